// Swap key indexes for new swaps, taken from the storage counter a block at a time: one write per BLOCK swaps
// instead of one per swap (each a synchronous fsync on SQLite, on the event loop of every request). An index is still
// never handed out twice, across restarts and instances, since each block is taken in one atomic statement; what a
// restart leaves of its block is skipped, which costs nothing: each swap stores its own index.
import type { Storage } from '../db/index.ts';

export const KEY_INDEX_BLOCK = 16;

export class KeyIndexes {
  private next = 0;
  private end = 0;
  private refill: Promise<void> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly block = KEY_INDEX_BLOCK,
  ) {}

  /** A fresh index, never handed out before. Taken outside any transaction: a swap that fails does not give it back. */
  async take(): Promise<number> {
    while (this.next >= this.end) {
      this.refill ??= this.storage.counters
        .nextSwapKeyIndexes(this.block)
        .then((first) => {
          this.next = first;
          this.end = first + this.block;
        })
        .finally(() => {
          this.refill = undefined;
        });
      await this.refill;
    }
    return this.next++;
  }
}
