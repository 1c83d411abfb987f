// Monotonic counters, e.g. the BIP32 index of the next swap key. One atomic statement per
// increment, so concurrent callers (or processes) never receive the same value.
import type { Queryable } from '../types.ts';

/** The counter that numbers swap keys (m/.../index). */
export const SWAP_KEY_INDEX = 'swap_key_index';

export class CounterRepository {
  constructor(private readonly q: Queryable) {}

  /**
   * Hands out the counter's next value: 0, 1, 2, … Inside a transaction that later rolls back the
   * value is handed out again, so take it outside one if it can leave the process before commit.
   */
  async next(name: string): Promise<number> {
    return this.nextBlock(name, 1);
  }

  /** Hands out `count` consecutive values at once (in one statement): the first of them. */
  async nextBlock(name: string, count: number): Promise<number> {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`invalid counter block ${count}`);
    const rows = await this.q.query<{ issued: number }>(
      `INSERT INTO counters (name, value) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET value = counters.value + $2
       RETURNING value - $2 AS issued`,
      [name, count],
    );
    return Number(rows[0].issued);
  }

  /** The value `next` would hand out now, without taking it. */
  async peek(name: string): Promise<number> {
    const rows = await this.q.query<{ value: number }>('SELECT value FROM counters WHERE name = $1', [name]);
    return rows[0]?.value ?? 0;
  }

  nextSwapKeyIndex(): Promise<number> {
    return this.next(SWAP_KEY_INDEX);
  }

  /** `count` swap key indexes at once: the first of them. */
  nextSwapKeyIndexes(count: number): Promise<number> {
    return this.nextBlock(SWAP_KEY_INDEX, count);
  }
}
