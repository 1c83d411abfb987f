// The chain reads every swap creation and pair quote makes — the fee estimate and the height — were one RPC each per
// request: under a burst of creations, dozens of identical calls in flight at once. Here concurrent callers share
// the read in flight, and a fee estimate is kept for a second (the node revises it once a block). A height is never
// kept past its own read: a timeout counts from a read that was in flight when the request asked, never an older one.
import type { MinerFees } from '../swaps/pairs.ts';
import type { AnyChain } from './context.ts';

/** How long a chain's miner fees stay quoted after their read. */
export const MINER_FEES_TTL_MS = 1_000;

interface Entry<T> {
  value: Promise<T>;
  /** When the read settled; undefined while in flight. */
  settledAt?: number;
}

/** Reads per key (a chain), shared while in flight and for `ttlMs` after; a failed read is forgotten at once. */
export class SharedReads<K extends object, T> {
  private readonly entries = new WeakMap<K, Entry<T>>();

  constructor(
    private readonly read: (key: K) => Promise<T>,
    private readonly ttlMs: number,
  ) {}

  get(key: K): Promise<T> {
    const entry = this.entries.get(key);
    if (entry !== undefined && (entry.settledAt === undefined || Date.now() - entry.settledAt < this.ttlMs)) return entry.value;
    const fresh: Entry<T> = { value: this.read(key) };
    this.entries.set(key, fresh);
    fresh.value.then(
      () => {
        fresh.settledAt = Date.now();
        // Kept only when ttlMs says so; a height is dropped as soon as it is read.
        if (this.ttlMs <= 0 && this.entries.get(key) === fresh) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      },
    );
    return fresh.value;
  }
}

/** The height a new swap's timeouts count from: one read shared by the creations in flight. */
const heights = new SharedReads<AnyChain, number>((chain) => chain.height(), 0);
export const creationHeight = (chain: AnyChain): Promise<number> => heights.get(chain);

export function sharedMinerFees(read: (chain: AnyChain) => Promise<MinerFees>): SharedReads<AnyChain, MinerFees> {
  return new SharedReads(read, MINER_FEES_TTL_MS);
}
