// Claim and refund transactions of Taproot swap outputs, for whichever side spends them (the client SDK and
// Ferry's Bitcoin backend both build them here): one input, one output to the destination, the fee sized from the
// fee rate and the transaction's real virtual size, or given. Script-path spends are signed here alone;
// key-path spends are built unsigned (with the sighash to sign together with the service) and finished with
// the aggregated signature. Legacy (P2WSH, P2SH-P2WSH) outputs — API v1 swaps, other clients' refund files — are
// claimed and refunded through their redeem script.
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction, constructRefundTransaction, Scripts } from 'boltz-core';
import type { ClaimDetails, RefundDetails } from 'boltz-core';
import { equalBytes } from '@noble/curves/utils.js';
import type { Types } from 'boltz-core';
import type { BuiltTransaction, FeeChoice } from '../backend.ts';

type SwapTree = Types.SwapTree;

/** The swap output being spent. */
export interface SwapOutput {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

export type { BuiltTransaction, FeeChoice };

/** Outputs below this are refused by relay policy (P2WSH/P2TR dust at 3 sat/vB is 330). */
export const DUST_LIMIT = 330n;

/** Sequence of every input we sign: signals RBF and, being below the maximum, lets nLockTime apply. */
export const SEQUENCE = 0xfffffffd;

// boltz-core's Transaction class is its own copy of @scure/btc-signer's under tsx: use it only through methods.
type BuiltTx = ReturnType<typeof constructClaimTransaction>;

/** The output of `txHex` that pays `script`. */
export function findOutput(txHex: string, script: Uint8Array): SwapOutput | undefined {
  const tx = Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  for (let vout = 0; vout < tx.outputsLength; vout++) {
    const output = tx.getOutput(vout);
    if (output.script && output.amount !== undefined && equalBytes(output.script, script)) {
      return { txid: tx.id, vout, value: output.amount, script: output.script };
    }
  }
  return undefined;
}

export class FeeError extends Error {}

/** Builds once to learn the virtual size, then again with fee = ceil(rate × vsize) (or the fee given). */
function withFee(build: (fee: bigint) => BuiltTx, choice: FeeChoice, value: bigint): BuiltTx {
  const fee = choice.fee ?? BigInt(Math.ceil(Math.max(choice.feeRate, 1) * build(0n).vsize));
  if (value - fee < DUST_LIMIT) throw new FeeError(`the output holds ${value} sat: after a fee of ${fee} sat nothing spendable is left`);
  return build(fee);
}

function result(tx: BuiltTx, output: SwapOutput): BuiltTransaction {
  const amount = tx.getOutput(0).amount!;
  return { txid: tx.id, hex: hex.encode(tx.toBytes(true, true)), fee: output.value - amount, amount, vsize: tx.vsize, lockTime: tx.lockTime };
}

function details(output: SwapOutput, privateKey: Uint8Array) {
  return { transactionId: output.txid, vout: output.vout, script: output.script, amount: output.value, privateKey };
}

export interface ScriptPathSpend extends FeeChoice {
  output: SwapOutput;
  tree: SwapTree;
  /** x-only MuSig2 aggregate of both keys, untweaked. */
  internalKey: Uint8Array;
  privateKey: Uint8Array;
  destination: Uint8Array;
}

/** Claim through the claim leaf: witness <signature> <preimage> <claim script> <control block>. */
export function scriptPathClaim(spend: ScriptPathSpend & { preimage: Uint8Array }): BuiltTransaction {
  const utxo = { ...details(spend.output, spend.privateKey), type: OutputType.Taproot, swapTree: spend.tree, internalKey: spend.internalKey, preimage: spend.preimage };
  const tx = withFee((fee) => constructClaimTransaction([utxo as ClaimDetails], spend.destination, fee, true), spend, spend.output.value);
  return result(tx, spend.output);
}

/**
 * Refund through the refund leaf: witness <signature> <refund script> <control block>, nLockTime = the
 * timeout (OP_CHECKLOCKTIMEVERIFY demands it) and a non-final sequence so the lock time is enforced.
 */
export function scriptPathRefund(spend: ScriptPathSpend & { timeoutBlockHeight: number }): BuiltTransaction {
  const utxo = { ...details(spend.output, spend.privateKey), type: OutputType.Taproot, swapTree: spend.tree, internalKey: spend.internalKey };
  const tx = withFee(
    (fee) => constructRefundTransaction([utxo as RefundDetails], spend.destination, spend.timeoutBlockHeight, fee, true),
    spend,
    spend.output.value,
  );
  return result(tx, spend.output);
}

export type LegacyOutputType = 'p2wsh' | 'p2sh-p2wsh';

/** The output scripts a legacy redeem script can be locked to. */
export function legacyOutputScripts(redeemScript: Uint8Array): Record<LegacyOutputType, Uint8Array> {
  return {
    p2wsh: Scripts.p2wshOutput(redeemScript),
    'p2sh-p2wsh': Scripts.p2shP2wshOutput(redeemScript),
  };
}

const legacyType = (outputType: LegacyOutputType) => (outputType === 'p2wsh' ? OutputType.Bech32 : OutputType.Compatibility);

/**
 * Claim of a legacy swap with the preimage: witness <signature> <preimage> <redeem script>, and for P2SH-P2WSH the
 * signature script OP_0 <sha256(redeem script)>.
 */
export function legacyClaim(spend: {
  output: SwapOutput;
  outputType: LegacyOutputType;
  redeemScript: Uint8Array;
  privateKey: Uint8Array;
  preimage: Uint8Array;
  destination: Uint8Array;
  feeRate: number;
}): BuiltTransaction {
  const utxo = { ...details(spend.output, spend.privateKey), type: legacyType(spend.outputType), redeemScript: spend.redeemScript, preimage: spend.preimage };
  const tx = withFee((fee) => constructClaimTransaction([utxo as ClaimDetails], spend.destination, fee, true), spend, spend.output.value);
  return result(tx, spend.output);
}

/** Refund of a legacy swap: the redeem script's timeout branch with a dummy preimage, nLockTime = timeout. */
export function legacyRefund(spend: {
  output: SwapOutput;
  outputType: LegacyOutputType;
  redeemScript: Uint8Array;
  privateKey: Uint8Array;
  timeoutBlockHeight: number;
  destination: Uint8Array;
  feeRate: number;
}): BuiltTransaction {
  const utxo = { ...details(spend.output, spend.privateKey), type: legacyType(spend.outputType), redeemScript: spend.redeemScript };
  const tx = withFee(
    (fee) => constructRefundTransaction([utxo as RefundDetails], spend.destination, spend.timeoutBlockHeight, fee, true),
    spend,
    spend.output.value,
  );
  return result(tx, spend.output);
}

/** An unsigned key-path spend, its sighash (SIGHASH_DEFAULT), and how to finish it with a signature. */
export interface KeyPathDraft {
  /** Serialized with a placeholder signature: what the service gets to check before it signs. */
  unsignedHex: string;
  sighash: Uint8Array;
  finish(signature: Uint8Array): BuiltTransaction;
}

/** A cooperative spend (claim or refund alike): nLockTime 0, the key path needs no time lock. */
export function keyPathDraft(spend: FeeChoice & { output: SwapOutput; destination: Uint8Array }): KeyPathDraft {
  const utxo = { ...details(spend.output, new Uint8Array(32).fill(1)), type: OutputType.Taproot, cooperative: true, preimage: new Uint8Array(32) };
  const tx = withFee((fee) => constructClaimTransaction([utxo as ClaimDetails], spend.destination, fee, true), spend, spend.output.value);
  const sighash = tx.preimageWitnessV1(0, [spend.output.script], SigHash.DEFAULT, [spend.output.value]);
  return {
    unsignedHex: hex.encode(tx.toBytes(true, true)),
    sighash,
    finish(signature) {
      tx.updateInput(0, { finalScriptWitness: [signature] }, true);
      return result(tx, spend.output);
    },
  };
}

/** A key-path spend drafted earlier (its unsigned hex), finished with the aggregated signature. */
export function finishKeyPathSpend(unsignedHex: string, signature: Uint8Array): { txid: string; hex: string } {
  const tx = Transaction.fromRaw(hex.decode(unsignedHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
  tx.updateInput(0, { finalScriptWitness: [signature] }, true);
  return { txid: tx.id, hex: hex.encode(tx.toBytes(true, true)) };
}
