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
    const rows = await this.q.query<{ issued: number }>(
      `INSERT INTO counters (name, value) VALUES ($1, 1)
       ON CONFLICT (name) DO UPDATE SET value = counters.value + 1
       RETURNING value - 1 AS issued`,
      [name],
    );
    return rows[0].issued;
  }

  /** The value `next` would hand out now, without taking it. */
  async peek(name: string): Promise<number> {
    const rows = await this.q.query<{ value: number }>('SELECT value FROM counters WHERE name = $1', [name]);
    return rows[0]?.value ?? 0;
  }

  nextSwapKeyIndex(): Promise<number> {
    return this.next(SWAP_KEY_INDEX);
  }
}
