// Turns a lockup seen on chain into the submarine machine's event: checks the amount against the expected one,
// decides whether it is deep enough to act on (the confirmations its amount needs, src/swaps/confirmations.ts)
// and whether one that is not may be trusted (0-conf). Pure; the engine gathers the facts.
import type { ContractLockupValues } from '../chains/contract-chain.ts';
import type { LegacyScript } from '../chains/backend.ts';
import type { SwapTreeJson } from '../protocol/wire.ts';
import { statusesWith } from './derive.ts';
import type { AnyMachine, MachineEvent } from './machine.ts';
import { submarineMachine } from './submarine-machine.ts';
import { SwapStatus } from './status.ts';
import type { SubmarineEvent } from './submarine-machine.ts';

export interface LockupObservation {
  txid: string;
  vout: number;
  value: number; // sat
  hex: string;
  confirmations: number;
  /** Fee rate of the transaction in sat/vbyte, when it is unconfirmed and the node knows it. */
  feeRate?: number;
  /** 80% of the current fee estimate when feeRate was read: the least an unconfirmed lockup must pay for 0-conf. */
  minZeroConfFeeRate?: number;
  /** Any input with nSequence < 0xfffffffe (BIP 125 replaceable). */
  signalsRbf: boolean;
  /** Why the output cannot count as a lockup whatever its value (the chain's watcher says: Liquid's other assets). */
  refusal?: string;
  /** Contract chains: the lockup's values, kept with the record. */
  contract?: ContractLockupValues;
  /** Contract chains: the block the Lockup event is in, kept with the record so its depth can be followed. */
  blockHeight?: number;
}

export interface LockupPolicy {
  maximalZeroConf: number;
  /** 80% of the current fee estimate, sat/vbyte. */
  minZeroConfFeeRate: number;
  /** A lockup above expected × (1 + this / 100) is refused, so a mistaken overpayment can be refunded. */
  overpaymentTolerancePercent: number;
  /**
   * Blocks the lockup must be deep in to count as confirmed (default 1). A shallower one in a block is judged as
   * an unconfirmed one: accepted only under the 0-conf rules, otherwise `lockup.mempool` (zeroConfRejected).
   */
  confirmations?: number;
}

/**
 * A swap on an account/contract chain (EVM) keeps, instead of keys, a tree and a script, the contract and the
 * addresses its lockup must name; the fields of SwapOutputData below that describe an output are then absent,
 * and only legs without `contract` (src/engine/legs/lockup-leg.ts) read them.
 */
export interface ContractSwapData {
  /** The swap contract. */
  address: string;
  /** Ferry's account for a user lockup, the client's for Ferry's. */
  claimAddress: string;
  /** Ferry's account for its own lockup; a user lockup's is the one its Lockup event names. */
  refundAddress?: string;
}

/** What every swap with a lockup output keeps in its data: the output's keys, tree and script, and its referral. */
export interface SwapOutputData {
  [key: string]: unknown;
  /** Hex; the client's key in a reverse swap, Ferry's in a submarine swap. */
  claimPublicKey: string;
  /** Hex; Ferry's key in a reverse swap, the client's in a submarine swap. */
  refundPublicKey: string;
  /** Taproot swaps: the script tree. */
  swapTree?: SwapTreeJson;
  /** Legacy swaps (API v1): the redeem script and its wrapping. */
  legacy?: LegacyScript;
  lockupScript: string;
  /** Confidential chains: the private key blinding the lockup address, hex. */
  blindingKey?: string;
  /** Contract chains: see ContractSwapData. */
  contract?: ContractSwapData;
  /** The partner the swap was created through; fees of referred swaps are reported to it. */
  referralId?: string;
  preimage?: string;
  failureReason?: string;
}

/** What the swap keeps about its lockup. */
export interface LockupRecord {
  txid: string;
  vout: number;
  value: number;
  hex: string;
  /** Deep enough to act on: the confirmations its amount needs (LockupPolicy.confirmations), not merely in a block. */
  confirmed: boolean;
  zeroConf: boolean;
  zeroConfRejected: boolean;
  /** Contract chains: the values the lockup was made with (txid is the transaction hash, vout the log index). */
  contract?: ContractLockupValues;
  /** Contract chains: the block its Lockup event was seen in. */
  blockHeight?: number;
}

/**
 * Whether a swap in this status may still swap its recorded lockup for a replacement (a fee bump): only while
 * nothing can have started from it (a payment, Ferry's own lockup). An unconfirmed lockup accepted for 0-conf in
 * transaction.mempool is what those start from, so it stays. `machine` is the swap type's (submarine by default).
 */
export function lockupReplaceable(status: string, lockup: LockupRecord, machine: AnyMachine = submarineMachine as AnyMachine): boolean {
  if (status === SwapStatus.TransactionMempool) return lockup.zeroConfRejected;
  return statusesWith(machine, 'lockup.mempool').includes(status);
}

/**
 * Classifies a lockup seen paying the swap's address. `replacesRecorded`: the engine found that this other
 * transaction takes the recorded lockup's place (it spends one of the same coins, or the recorded one left the
 * mempool unconfirmed) while lockupReplaceable holds; it is then judged afresh, amount and 0-conf alike.
 */
export function classifySubmarineLockup(
  data: { lockup?: unknown; expectedAmount?: unknown },
  seen: LockupObservation,
  policy: LockupPolicy,
  replacesRecorded = false,
): MachineEvent<SubmarineEvent> | undefined {
  const existing = data.lockup as LockupRecord | undefined;
  const deep = seen.confirmations >= Math.max(1, policy.confirmations ?? 1);
  if (existing !== undefined && !(replacesRecorded && existing.txid !== seen.txid)) {
    // Otherwise only the first lockup counts; a second payment to the address is the user's to refund after the timeout.
    if (existing.txid !== seen.txid || existing.vout !== seen.vout) return undefined;
    if (deep && !existing.confirmed) {
      return { type: 'lockup.confirmed', data: { lockup: { ...existing, confirmed: true } } };
    }
    return undefined;
  }

  const lockup: LockupRecord = {
    txid: seen.txid,
    vout: seen.vout,
    value: seen.value,
    hex: seen.hex,
    confirmed: deep,
    zeroConf: false,
    zeroConfRejected: false,
    ...(seen.contract !== undefined && { contract: seen.contract }),
    ...(seen.blockHeight !== undefined && { blockHeight: seen.blockHeight }),
  };
  if (seen.refusal !== undefined) return { type: 'lockup.rejected', data: { lockup, failureReason: seen.refusal } };
  const expected = typeof data.expectedAmount === 'number' ? data.expectedAmount : undefined;
  if (expected !== undefined) {
    const failureDetails = { expected, actual: seen.value };
    if (seen.value < expected) {
      return { type: 'lockup.rejected', data: { lockup, failureReason: `locked ${seen.value} is less than expected ${expected}`, failureDetails } };
    }
    const tolerated = expected + Math.floor((expected * policy.overpaymentTolerancePercent) / 100);
    if (seen.value > tolerated) {
      return { type: 'lockup.rejected', data: { lockup, failureReason: `locked ${seen.value} is more than expected ${expected}`, failureDetails } };
    }
  }
  if (lockup.confirmed) return { type: 'lockup.confirmed', data: { lockup } };
  const zeroConf =
    policy.maximalZeroConf > 0 &&
    seen.value <= policy.maximalZeroConf &&
    seen.feeRate !== undefined &&
    seen.feeRate >= policy.minZeroConfFeeRate &&
    !seen.signalsRbf;
  if (zeroConf) return { type: 'lockup.zeroConf', data: { lockup: { ...lockup, zeroConf: true } } };
  return { type: 'lockup.mempool', data: { lockup: { ...lockup, zeroConfRejected: true } } };
}
