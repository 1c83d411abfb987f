// Consensus constants and the time-lock rules (nLockTime finality, BIP68 relative locks, BIP113
// median-time-past) with regtest parameters.
import { COIN } from './amount.ts';
import type { Tx } from './tx.ts';
import { SEQUENCE_FINAL } from './tx.ts';

export const COINBASE_MATURITY = 100;
export const SUBSIDY_HALVING_INTERVAL = 150; // regtest
export const MAX_BLOCK_WEIGHT = 4_000_000;
export const MAX_STANDARD_TX_WEIGHT = 400_000;
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
export const LOCKTIME_THRESHOLD = 500_000_000;
export const REGTEST_BITS = 0x207fffff;

const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
const SEQUENCE_LOCKTIME_TYPE_FLAG = 0x00400000;
const SEQUENCE_LOCKTIME_MASK = 0x0000ffff;
const SEQUENCE_LOCKTIME_GRANULARITY = 9;

export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / SUBSIDY_HALVING_INTERVAL);
  if (halvings >= 64) return 0n;
  return (50n * COIN) >> BigInt(halvings);
}

/** The fields the time-lock rules read; Bitcoin's Tx has them, the Elements node maps its transactions to them. */
export type LockFields = Pick<Tx, 'version' | 'locktime'> & { inputs: readonly { sequence: number }[] };

/** Core's IsFinalTx: the tx may be included in a block at `height` whose lock time is `time` (MTP). */
export function isFinalTx(tx: LockFields, height: number, time: number): boolean {
  if (tx.locktime === 0) return true;
  if (tx.locktime < (tx.locktime < LOCKTIME_THRESHOLD ? height : time)) return true;
  return tx.inputs.every((input) => input.sequence === SEQUENCE_FINAL);
}

/** The chain facts BIP68 needs about each spent coin and the block being built. */
export interface SequenceContext {
  nextHeight: number; // height of the block the tx would enter
  tipMedianTime: number; // MTP of the current tip
  /** MTP of the block at `height` (for height-based ancestors of each coin). */
  medianTimeAt(height: number): number;
}

/** Core's CalculateSequenceLocks + EvaluateSequenceLocks; `coinHeights[i]` = height of the block of input i's coin. */
export function sequenceLocksSatisfied(tx: LockFields, coinHeights: number[], ctx: SequenceContext): boolean {
  if (tx.version < 2) return true;
  let minHeight = -1;
  let minTime = -1;
  tx.inputs.forEach((input, i) => {
    if (input.sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) return;
    const coinHeight = coinHeights[i];
    const value = input.sequence & SEQUENCE_LOCKTIME_MASK;
    if (input.sequence & SEQUENCE_LOCKTIME_TYPE_FLAG) {
      const coinTime = ctx.medianTimeAt(Math.max(coinHeight - 1, 0));
      minTime = Math.max(minTime, coinTime + (value << SEQUENCE_LOCKTIME_GRANULARITY) - 1);
    } else {
      minHeight = Math.max(minHeight, coinHeight + value - 1);
    }
  });
  return minHeight < ctx.nextHeight && minTime < ctx.tipMedianTime;
}

export function medianOf(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
