// The chain reads every swap creation and pair quote makes — the fee estimate and the height — were one RPC each per
// request: under a burst of creations, dozens of identical calls in flight at once. Here concurrent callers share
// the read in flight, and a fee estimate is kept for a second (the node revises it once a block). A height is never
// kept past its own read: a timeout counts from a read that was in flight when the request asked, never an older one.
// Fee reads are also remembered for a minute after they are replaced: a pair's hash names the fees it was quoted
// with, and a wallet that read the pairs, checked them and then created its swap must not be refused because a
// block landed in between (on an EVM chain every block moves the gas price).
import type { MinerFees } from '../swaps/pairs.ts';
import type { AnyChain } from './context.ts';

/** How long a chain's miner fees stay quoted after their read. */
export const MINER_FEES_TTL_MS = 1_000;

/** How long a quote's fees are honoured after newer ones replaced them (the reference refreshes its quotes each minute). */
export const QUOTE_GRACE_MS = 60_000;

interface Entry<T> {
  value: Promise<T>;
  /** When the read settled; undefined while in flight. */
  settledAt?: number;
}

/** Reads per key (a chain), shared while in flight and for `ttlMs` after; a failed read is forgotten at once. */
export class SharedReads<K extends object, T> {
  private readonly entries = new WeakMap<K, Entry<T>>();
  private readonly settled = new WeakMap<K, { value: T; at: number }[]>();

  constructor(
    private readonly read: (key: K) => Promise<T>,
    private readonly ttlMs: number,
    private readonly keepMs = 0,
  ) {}

  /** The values read for `key` in the last `keepMs`, newest first. */
  recent(key: K): T[] {
    const since = Date.now() - this.keepMs;
    return (this.settled.get(key) ?? []).filter((read) => read.at >= since).map((read) => read.value);
  }

  get(key: K): Promise<T> {
    const entry = this.entries.get(key);
    if (entry !== undefined && (entry.settledAt === undefined || Date.now() - entry.settledAt < this.ttlMs)) return entry.value;
    const fresh: Entry<T> = { value: this.read(key) };
    this.entries.set(key, fresh);
    fresh.value.then(
      (value) => {
        fresh.settledAt = Date.now();
        if (this.keepMs > 0) this.remember(key, value, fresh.settledAt);
        // Kept only when ttlMs says so; a height is dropped as soon as it is read.
        if (this.ttlMs <= 0 && this.entries.get(key) === fresh) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      },
    );
    return fresh.value;
  }

  private remember(key: K, value: T, at: number): void {
    const kept = (this.settled.get(key) ?? []).filter((read) => read.at >= at - this.keepMs);
    this.settled.set(key, [{ value, at }, ...kept]);
  }
}

/** The height a new swap's timeouts count from: one read shared by the creations in flight. */
const heights = new SharedReads<AnyChain, number>((chain) => chain.height(), 0);
export const creationHeight = (chain: AnyChain): Promise<number> => heights.get(chain);

export function sharedMinerFees(read: (chain: AnyChain) => Promise<MinerFees>): SharedReads<AnyChain, MinerFees> {
  return new SharedReads(read, MINER_FEES_TTL_MS, QUOTE_GRACE_MS);
}
