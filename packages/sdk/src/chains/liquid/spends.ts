// Claim and refund transactions of Liquid swap outputs (Taproot, and legacy P2WSH through the redeem script), for
// whichever side spends them (Ferry's Liquid backend and the client SDK both build them here), as
// src/chains/bitcoin/spends.ts does for Bitcoin: one input,
// one output to the destination and the explicit fee output Elements requires. A blinded lockup is unblinded with
// its blinding private key, and the destination output is blinded to the destination's blinding public key. The
// fee is given, or a rate (sat/vbyte) times the transaction's discounted virtual size, the size Liquid's fee
// policy counts. Script-path spends are signed here alone; key-path spends are built unsigned (with the Elements
// Taproot sighash to sign together with the other side) and finished with the aggregated signature.
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { OutputType } from 'boltz-core';
import { Transaction, type TxOutput } from 'liquidjs-lib';
import type { Network } from '../../keys/index.ts';
import type { BuiltTransaction, FeeChoice } from '../backend.ts';
import { liquidNetwork, policyAsset } from './network.ts';
import { UnblindError, explicitOutput, isConfidentialOutput, unblindOutput } from './unblind.ts';
import type { LiquidSwapTree } from './htlc.ts';
import { zkpLib } from './zkp.ts';

/** A swap lockup being spent: its outpoint, the output itself and, for a blinded one, its blinding private key. */
export interface LiquidLockup {
  txid: string;
  vout: number;
  prevout: TxOutput;
  blindingPrivateKey?: Uint8Array;
}

/** Where a spend pays: an output script, blinded to `blindingPublicKey` when given (a confidential address). */
export interface LiquidDestination {
  script: Uint8Array;
  blindingPublicKey?: Uint8Array;
}

/** Liquid's relay floor: 0.1 sat per discounted vbyte. */
export const MIN_FEE_RATE = 0.1;

export class LockupUnblindError extends Error {}
export class FeeError extends Error {}

/** The lockup's value (sat) and asset id (hex as elementsd shows it); LockupUnblindError when it cannot be read. */
export function unblindLockup(lockup: LiquidLockup): { value: bigint; asset: string } {
  const { prevout, blindingPrivateKey } = lockup;
  const outpoint = `${lockup.txid}:${lockup.vout}`;
  if (!isConfidentialOutput(prevout)) {
    const { value, asset } = explicitOutput(prevout);
    return { value, asset };
  }
  if (blindingPrivateKey === undefined) {
    throw new LockupUnblindError(`lockup ${outpoint} is blinded: its blinding private key is needed to read its amount`);
  }
  try {
    const { value, asset } = unblindOutput(zkpLib(), prevout, blindingPrivateKey);
    return { value, asset };
  } catch (error) {
    if (!(error instanceof UnblindError)) throw error;
    throw new LockupUnblindError(`lockup ${outpoint} cannot be unblinded with the blinding key given (${error.message})`);
  }
}

/** The fee: given, or feeRate (sat/vbyte, at least MIN_FEE_RATE) times the discounted virtual size. */
export interface LiquidSpend extends FeeChoice {
  lockup: LiquidLockup;
  destination: LiquidDestination;
  network: Network;
}

export interface LiquidScriptPathSpend extends LiquidSpend {
  tree: LiquidSwapTree;
  /** x-only MuSig2 aggregate of both keys, untweaked. */
  internalKey: Uint8Array;
  privateKey: Uint8Array;
}

type Details = liquid.LiquidClaimDetails;
/** How the lockup is spent: the input's fields besides the output itself and its outpoint. */
type Spending = Omit<Details, keyof TxOutput | 'transactionId' | 'vout' | 'blindingPrivateKey'>;

/**
 * Builds with boltz-core's Liquid builder once to learn the discounted virtual size, then again with fee =
 * ceil(rate × vsize) (or the fee given); a refund (`refundAt`, its nLockTime) signs the refund leaf. Checks first
 * that the lockup holds L-BTC and that a blinded lockup goes to a blinded destination.
 */
function build(spend: LiquidSpend, spending: Spending, refundAt?: number) {
  const { lockup, destination } = spend;
  const { value, asset } = unblindLockup(lockup);
  if (asset !== policyAsset(spend.network)) throw new Error(`lockup ${lockup.txid}:${lockup.vout} holds asset ${asset}, not L-BTC`);
  const blinded = isConfidentialOutput(lockup.prevout);
  if (blinded && destination.blindingPublicKey === undefined) {
    throw new Error('Elements requires a blinded output when a blinded input is spent: the destination needs a blinding public key (a confidential address)');
  }
  const utxo = { ...lockup.prevout, ...spending, transactionId: lockup.txid, vout: lockup.vout } as Details;
  if (blinded) utxo.blindingPrivateKey = lockup.blindingPrivateKey;
  const blindingKey = destination.blindingPublicKey === undefined ? undefined : Buffer.from(destination.blindingPublicKey);
  const network = liquidNetwork(spend.network);
  const construct = (fee: bigint) =>
    liquid.constructClaimTransaction([utxo], Buffer.from(destination.script), fee, true, network, blindingKey, refundAt, refundAt !== undefined);
  // Rounded to a millionth first, so that 0.1 × 1230 is 123 and not 124.
  const fee = spend.fee ?? BigInt(Math.ceil(Math.round(Math.max(spend.feeRate, MIN_FEE_RATE) * construct(1n).virtualSize(true) * 1e6) / 1e6));
  if (value - fee < 1n) throw new FeeError(`the lockup holds ${value} sat: after a fee of ${fee} sat nothing is left`);
  return { tx: construct(fee), value, fee };
}

function result({ tx, value, fee }: { tx: Transaction; value: bigint; fee: bigint }): BuiltTransaction {
  return { txid: tx.getId(), hex: tx.toHex(), fee, amount: value - fee, vsize: tx.virtualSize(true), lockTime: tx.locktime };
}

const scriptPath = (spend: LiquidScriptPathSpend) =>
  ({ type: OutputType.Taproot, swapTree: spend.tree, internalKey: spend.internalKey, privateKey: spend.privateKey }) as const;

/** Claim through the claim leaf: witness <signature> <preimage> <claim script> <control block>. */
export const scriptPathClaim = (spend: LiquidScriptPathSpend & { preimage: Uint8Array }): BuiltTransaction =>
  result(build(spend, { ...scriptPath(spend), preimage: spend.preimage }));

/**
 * Refund through the refund leaf: witness <signature> <refund script> <control block>, nLockTime = the timeout
 * (OP_CHECKLOCKTIMEVERIFY demands it) and a non-final sequence so the lock time is enforced.
 */
export const scriptPathRefund = (spend: LiquidScriptPathSpend & { timeoutBlockHeight: number }): BuiltTransaction =>
  result(build(spend, { ...scriptPath(spend), preimage: new Uint8Array(0) }, spend.timeoutBlockHeight));

/** A legacy (P2WSH) lockup spent through its redeem script by the key it names. */
export interface LiquidLegacySpend extends LiquidSpend {
  redeemScript: Uint8Array;
  privateKey: Uint8Array;
}

const legacySpending = (spend: LiquidLegacySpend, preimage: Uint8Array) =>
  ({ type: OutputType.Bech32, redeemScript: spend.redeemScript, privateKey: spend.privateKey, preimage }) as Spending;

/** Claim of a legacy lockup: witness <signature> <preimage> <redeem script>. */
export const legacyClaim = (spend: LiquidLegacySpend & { preimage: Uint8Array }): BuiltTransaction =>
  result(build(spend, legacySpending(spend, spend.preimage)));

/** Refund of a legacy lockup: an empty item in the preimage's place, nLockTime = the timeout. */
export const legacyRefund = (spend: LiquidLegacySpend & { timeoutBlockHeight: number }): BuiltTransaction =>
  result(build(spend, legacySpending(spend, new Uint8Array(0)), spend.timeoutBlockHeight));

/** An unsigned key-path spend, its Elements Taproot sighash (SIGHASH_DEFAULT), and how to finish it. */
export interface LiquidKeyPathDraft {
  /** Serialized with a placeholder signature: what the other side gets to check before it signs. */
  unsignedHex: string;
  sighash: Uint8Array;
  finish(signature: Uint8Array): BuiltTransaction;
}

/** A cooperative spend (claim or refund alike): nLockTime 0, the key path needs no time lock. */
export function keyPathDraft(spend: LiquidSpend): LiquidKeyPathDraft {
  const built = build(spend, { type: OutputType.Taproot, cooperative: true, preimage: new Uint8Array(0) });
  const unsignedHex = built.tx.toHex();
  return {
    unsignedHex,
    sighash: sighashOf(built.tx, 0, [spend.lockup.prevout], spend.network),
    finish: (signature) => result({ ...built, tx: Transaction.fromHex(finishKeyPathSpend(unsignedHex, signature).hex) }),
  };
}

/** A key-path spend drafted earlier (its unsigned hex), finished with the aggregated signature at input 0. */
export function finishKeyPathSpend(unsignedHex: string, signature: Uint8Array): { txid: string; hex: string } {
  const tx = Transaction.fromHex(unsignedHex);
  tx.ins[0].witness = [Buffer.from(signature)];
  return { txid: tx.getId(), hex: tx.toHex() };
}

function sighashOf(tx: Transaction, index: number, prevouts: TxOutput[], network: Network): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= tx.ins.length) throw new RangeError(`the transaction has no input ${index}`);
  if (prevouts.length !== tx.ins.length) throw new RangeError(`${tx.ins.length} inputs but ${prevouts.length} spent outputs`);
  return new Uint8Array(liquid.TaprootUtils.hashForWitnessV1(liquidNetwork(network), prevouts, tx, index));
}

/**
 * The Elements key-path sighash (SIGHASH_DEFAULT, committing to the network's genesis block hash) of input `index`
 * of a client's own transaction, given every output its inputs spend: what Ferry co-signs for the client.
 */
export const clientSpendSighash = (txHex: string, index: number, prevouts: TxOutput[], network: Network): Uint8Array =>
  sighashOf(Transaction.fromHex(txHex), index, prevouts, network);
