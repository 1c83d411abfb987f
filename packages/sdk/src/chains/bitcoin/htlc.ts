// Bitcoin's Taproot swap outputs (boltz-core's trees, our KeyAgg) and the spends Ferry signs of them — claim leaf,
// refund leaf, MuSig2 key path — built by spends.ts, the same builders the client SDK uses.
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { SwapTreeSerializer, reverseSwapTree, swapTree, type Types } from 'boltz-core';
import { serviceSwapOutputKey, swapOutputKey } from '../../keys/index.ts';
import type { SwapTreeJson } from '../../protocol/wire.ts';
import { swapClientKey, treeOf, type SignedTransaction, type SwapLockup, type SwapOutputTerms, type SwapSigner, type UnsignedKeyPathSpend } from '../backend.ts';
import { finishKeyPathSpend, keyPathDraft, scriptPathClaim, scriptPathRefund } from './spends.ts';

export const parseTransaction = (txHex: string): Transaction =>
  Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });

export function serializeTree(tree: Types.SwapTree): SwapTreeJson {
  const serialized = SwapTreeSerializer.serializeSwapTree(tree);
  return { claimLeaf: serialized.claimLeaf, refundLeaf: serialized.refundLeaf };
}

export function deserializeTree(tree: SwapTreeJson): Types.SwapTree {
  return SwapTreeSerializer.deserializeSwapTree(tree) as Types.SwapTree;
}

export function buildSwapOutput(terms: SwapOutputTerms): { tree: Types.SwapTree; outputScript: Uint8Array } {
  const build = terms.kind === 'submarine' ? swapTree : reverseSwapTree;
  const tree = build(false, terms.preimageHash, terms.claimPublicKey, terms.refundPublicKey, terms.timeoutBlockHeight);
  const { outputScript } = terms.servicePrivateKey === undefined
    ? swapOutputKey(terms.servicePublicKey, swapClientKey(terms), tree)
    : serviceSwapOutputKey(terms.servicePrivateKey, terms.servicePublicKey, swapClientKey(terms), tree);
  return { tree, outputScript };
}

/** The lockup as the spend builders take it. */
const spent = (lockup: SwapLockup) => ({ txid: lockup.txid, vout: lockup.vout, value: BigInt(lockup.value), script: hex.decode(lockup.script) });

/** Ferry's script-path spends: its key signs, the internal key aggregates [service, client]. */
function scriptPath(lockup: SwapLockup, signer: SwapSigner, destination: Uint8Array, fee: number) {
  const tree = deserializeTree(treeOf(signer));
  const { internalKey } = swapOutputKey(signer.servicePublicKey, signer.clientPublicKey, tree);
  return { output: spent(lockup), tree, internalKey, privateKey: signer.servicePrivateKey, destination, feeRate: 0, fee: BigInt(fee) };
}

const signed = (built: { txid: string; hex: string }): SignedTransaction => ({ txid: built.txid, hex: built.hex });

export function claimThroughScript(
  lockup: SwapLockup,
  signer: SwapSigner,
  preimage: Uint8Array,
  destination: Uint8Array,
  fee: number,
): SignedTransaction {
  return signed(scriptPathClaim({ ...scriptPath(lockup, signer, destination, fee), preimage }));
}

export function refundThroughScript(
  lockup: SwapLockup,
  signer: SwapSigner,
  timeoutBlockHeight: number,
  destination: Uint8Array,
  fee: number,
): SignedTransaction {
  return signed(scriptPathRefund({ ...scriptPath(lockup, signer, destination, fee), timeoutBlockHeight }));
}

/** A one-input key-path sweep; the witness is the aggregated signature alone. */
export function keyPathSweep(lockup: SwapLockup, destination: Uint8Array, fee: number): UnsignedKeyPathSpend {
  const draft = keyPathDraft({ output: spent(lockup), destination, feeRate: 0, fee: BigInt(fee) });
  return { hex: draft.unsignedHex, sighash: draft.sighash };
}

export const withKeyPathSignature = (unsignedHex: string, signature: Uint8Array): SignedTransaction => finishKeyPathSpend(unsignedHex, signature);
