// Bitcoin's Taproot swap outputs and the spends Ferry builds of them, with boltz-core's trees and transaction
// constructors: the claim leaf (preimage), the refund leaf (timeout) and the MuSig2 key path. Each spend is written
// here once, whichever swap type or leg asks for it.
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import {
  OutputType,
  SwapTreeSerializer,
  constructClaimTransaction,
  constructRefundTransaction,
  reverseSwapTree,
  swapTree,
  type Types,
} from 'boltz-core';
import { swapOutputKey } from '../../keys/index.ts';
import type { SwapTreeJson } from '../../protocol/wire.ts';
import type { SignedTransaction, SwapLockup, SwapOutputTerms, SwapSigner, UnsignedKeyPathSpend } from '../backend.ts';

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
  const build = terms.kind === 'reverse' ? reverseSwapTree : swapTree;
  const tree = build(false, terms.preimageHash, terms.claimPublicKey, terms.refundPublicKey, terms.timeoutBlockHeight);
  const client = terms.kind === 'reverse' ? terms.claimPublicKey : terms.refundPublicKey;
  const { outputScript } = swapOutputKey(terms.servicePublicKey, client, tree);
  return { tree, outputScript };
}

const signed = (transaction: Transaction): SignedTransaction => ({ txid: transaction.id, hex: hex.encode(transaction.toBytes(true, true)) });

function scriptPathInput(lockup: SwapLockup, signer: SwapSigner) {
  const tree = deserializeTree(signer.tree);
  const { internalKey } = swapOutputKey(signer.servicePublicKey, signer.clientPublicKey, tree);
  return {
    type: OutputType.Taproot as const,
    transactionId: lockup.txid,
    vout: lockup.vout,
    script: hex.decode(lockup.script),
    amount: BigInt(lockup.value),
    privateKey: signer.servicePrivateKey,
    swapTree: tree,
    internalKey,
  };
}

export function claimThroughScript(
  lockup: SwapLockup,
  signer: SwapSigner,
  preimage: Uint8Array,
  destination: Uint8Array,
  fee: number,
): SignedTransaction {
  return signed(constructClaimTransaction([{ ...scriptPathInput(lockup, signer), preimage }], destination, BigInt(fee)));
}

export function refundThroughScript(
  lockup: SwapLockup,
  signer: SwapSigner,
  timeoutBlockHeight: number,
  destination: Uint8Array,
  fee: number,
): SignedTransaction {
  return signed(constructRefundTransaction([scriptPathInput(lockup, signer)], destination, timeoutBlockHeight, BigInt(fee), true));
}

/** A one-input key-path sweep; the witness is the aggregated signature alone. */
export function keyPathSweep(lockup: SwapLockup, destination: Uint8Array, fee: number): UnsignedKeyPathSpend {
  const script = hex.decode(lockup.script);
  const transaction = constructClaimTransaction(
    [
      {
        type: OutputType.Taproot,
        cooperative: true,
        transactionId: lockup.txid,
        vout: lockup.vout,
        script,
        amount: BigInt(lockup.value),
        // Cooperative inputs are not signed here: the key and preimage only fill the constructor's shape.
        privateKey: new Uint8Array(32).fill(1),
        preimage: new Uint8Array(32),
      },
    ],
    destination,
    BigInt(fee),
  );
  const sighash = transaction.preimageWitnessV1(0, [script], SigHash.DEFAULT, [BigInt(lockup.value)]);
  return { hex: hex.encode(transaction.toBytes(true, true)), sighash };
}

export function withKeyPathSignature(unsignedHex: string, signature: Uint8Array): SignedTransaction {
  const transaction = parseTransaction(unsignedHex);
  transaction.updateInput(0, { finalScriptWitness: [signature] }, true);
  return signed(transaction);
}
