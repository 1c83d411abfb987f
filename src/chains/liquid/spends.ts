// Claim and refund transactions of Liquid Taproot swap outputs, for whichever side spends them (Ferry's Liquid
// backend and the client SDK both build them here), as src/chains/bitcoin/spends.ts does for Bitcoin: one input,
// one output to the destination and the explicit fee output Elements requires. A blinded lockup is unblinded with
// its blinding private key, and the destination output is blinded to the destination's blinding public key. The
// fee is given, or a rate (sat/vbyte) times the transaction's discounted virtual size, the size Liquid's fee
// policy counts. Script-path spends are signed here alone; key-path spends are built unsigned (with the Elements
// Taproot sighash to sign together with the other side) and finished with the aggregated signature.
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { OutputType } from 'boltz-core';
import { Transaction, type TxOutput } from 'liquidjs-lib';
import type { Network } from '../../keys/index.ts';
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

export interface LiquidBuiltTransaction {
  txid: string;
  hex: string;
  /** sat, paid in the explicit fee output. */
  fee: bigint;
  /** sat paid to the destination. */
  amount: bigint;
  /** The discounted virtual size. */
  vsize: number;
  lockTime: number;
}

/** Liquid's relay floor: 0.1 sat per discounted vbyte. */
export const MIN_FEE_RATE = 0.1;

export class LockupUnblindError extends Error {}
export class FeeError extends Error {}

/** The lockup's value (sat) and asset id (hex as elementsd shows it); LockupUnblindError when it cannot be read. */
export function unblindLockup(lockup: LiquidLockup): { value: bigint; asset: string } {
  const { prevout, blindingPrivateKey } = lockup;
  const outpoint = `${lockup.txid}:${lockup.vout}`;
  if (!isConfidentialOutput(prevout)) return explicitOutput(prevout);
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

/** How a spend pays its fee: a rate (sat/vbyte of the discounted size), or a fixed amount (sat). */
export interface LiquidFeeChoice {
  feeRate: number;
  /** Overrides feeRate. */
  fee?: bigint;
}

interface SpendBase extends LiquidFeeChoice {
  lockup: LiquidLockup;
  destination: LiquidDestination;
  network: Network;
}

export interface LiquidScriptPathSpend extends SpendBase {
  tree: LiquidSwapTree;
  /** x-only MuSig2 aggregate of both keys, untweaked. */
  internalKey: Uint8Array;
  privateKey: Uint8Array;
}

type Details = liquid.LiquidClaimDetails;
type Build = (utxo: Details, fee: bigint) => Transaction;

/**
 * Builds once to learn the discounted virtual size, then again with fee = ceil(rate × vsize) (or the fee given).
 * Checks first that the lockup holds L-BTC and that a blinded lockup goes to a blinded destination.
 */
function withFee(spend: SpendBase, utxo: Omit<Details, keyof TxOutput | 'transactionId' | 'vout' | 'blindingPrivateKey'>, build: Build) {
  const { lockup, destination, network } = spend;
  const { value, asset } = unblindLockup(lockup);
  if (asset !== policyAsset(network)) throw new Error(`lockup ${lockup.txid}:${lockup.vout} holds asset ${asset}, not L-BTC`);
  const blinded = isConfidentialOutput(lockup.prevout);
  if (blinded && destination.blindingPublicKey === undefined) {
    throw new Error('Elements requires a blinded output when a blinded input is spent: the destination needs a blinding public key (a confidential address)');
  }
  const details = {
    ...lockup.prevout,
    ...utxo,
    transactionId: lockup.txid,
    vout: lockup.vout,
    ...(blinded ? { blindingPrivateKey: lockup.blindingPrivateKey } : {}),
  } as Details;
  const fee = spend.fee ?? BigInt(Math.ceil(Math.max(spend.feeRate, MIN_FEE_RATE) * build(details, 1n).virtualSize(true)));
  if (value - fee < 1n) throw new FeeError(`the lockup holds ${value} sat: after a fee of ${fee} sat nothing is left`);
  const tx = build(details, fee);
  return { tx, value, fee };
}

function result({ tx, value, fee }: { tx: Transaction; value: bigint; fee: bigint }): LiquidBuiltTransaction {
  return { txid: tx.getId(), hex: tx.toHex(), fee, amount: value - fee, vsize: tx.virtualSize(true), lockTime: tx.locktime };
}

const blindingKeyOf = (destination: LiquidDestination) =>
  destination.blindingPublicKey === undefined ? undefined : Buffer.from(destination.blindingPublicKey);

const taproot = (spend: LiquidScriptPathSpend) =>
  ({ type: OutputType.Taproot, swapTree: spend.tree, internalKey: spend.internalKey, privateKey: spend.privateKey }) as const;

/** Claim through the claim leaf: witness <signature> <preimage> <claim script> <control block>. */
export function scriptPathClaim(spend: LiquidScriptPathSpend & { preimage: Uint8Array }): LiquidBuiltTransaction {
  const { destination } = spend;
  const network = liquidNetwork(spend.network);
  return result(
    withFee(spend, { ...taproot(spend), preimage: spend.preimage }, (utxo, fee) =>
      liquid.constructClaimTransaction([utxo], Buffer.from(destination.script), fee, true, network, blindingKeyOf(destination)),
    ),
  );
}

/**
 * Refund through the refund leaf: witness <signature> <refund script> <control block>, nLockTime = the timeout
 * (OP_CHECKLOCKTIMEVERIFY demands it) and a non-final sequence so the lock time is enforced.
 */
export function scriptPathRefund(spend: LiquidScriptPathSpend & { timeoutBlockHeight: number }): LiquidBuiltTransaction {
  const { destination } = spend;
  const network = liquidNetwork(spend.network);
  return result(
    withFee(spend, { ...taproot(spend), preimage: new Uint8Array(0) }, (utxo, fee) =>
      liquid.constructRefundTransaction([utxo], Buffer.from(destination.script), spend.timeoutBlockHeight, fee, true, network, blindingKeyOf(destination)),
    ),
  );
}

/** An unsigned key-path spend, its Elements Taproot sighash (SIGHASH_DEFAULT), and how to finish it. */
export interface LiquidKeyPathDraft {
  /** Serialized with a placeholder signature: what the other side gets to check before it signs. */
  unsignedHex: string;
  sighash: Uint8Array;
  finish(signature: Uint8Array): LiquidBuiltTransaction;
}

/** A cooperative spend (claim or refund alike): nLockTime 0, the key path needs no time lock. */
export function keyPathDraft(spend: SpendBase): LiquidKeyPathDraft {
  const { destination } = spend;
  const network = liquidNetwork(spend.network);
  const built = withFee(spend, { type: OutputType.Taproot, cooperative: true, preimage: new Uint8Array(0) }, (utxo, fee) =>
    liquid.constructClaimTransaction([utxo], Buffer.from(destination.script), fee, true, network, blindingKeyOf(destination)),
  );
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
