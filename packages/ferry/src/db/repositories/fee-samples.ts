// The pairs' fee history (table pair_fee_samples): what each pair charged, one sample per ten-minute bucket, for the
// partner statistics call. A bucket written twice (two instances, a restart) keeps its first sample.
import type { Queryable } from '../types.ts';

export interface FeeSample {
  /** submarine, reverse or chain. */
  swapType: string;
  /** "FROM/TO" as the stats call names it: the asset the user sends, then the one they get. */
  pair: string;
  /** Unix seconds, the start of the ten-minute bucket. */
  sampledAt: number;
  /** Percent. */
  fee: number;
  /** Percent of the invoice Ferry may spend routing a submarine swap's payment; absent for the other types. */
  maxRoutingFee?: number;
}

export class FeeSampleRepository {
  constructor(private readonly q: Queryable) {}

  async record(samples: readonly FeeSample[]): Promise<void> {
    for (const sample of samples) {
      await this.q.execute(
        `INSERT INTO pair_fee_samples (swap_type, pair, sampled_at, fee, max_routing_fee) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (swap_type, pair, sampled_at) DO NOTHING`,
        [sample.swapType, sample.pair, sample.sampledAt, sample.fee, sample.maxRoutingFee ?? null],
      );
    }
  }

  /** One pair's samples taken at or after `since` (unix seconds), oldest first. */
  async series(swapType: string, pair: string, since: number): Promise<FeeSample[]> {
    const rows = await this.q.query<{ sampled_at: number | string; fee: number | string; max_routing_fee: number | string | null }>(
      `SELECT sampled_at, fee, max_routing_fee FROM pair_fee_samples
       WHERE swap_type = $1 AND pair = $2 AND sampled_at >= $3 ORDER BY sampled_at`,
      [swapType, pair, since],
    );
    return rows.map((row) => ({
      swapType,
      pair,
      sampledAt: Number(row.sampled_at),
      fee: Number(row.fee),
      ...(row.max_routing_fee !== null && { maxRoutingFee: Number(row.max_routing_fee) }),
    }));
  }

  /** Drops samples older than `before` (unix seconds); returns how many. */
  async prune(before: number): Promise<number> {
    return (await this.q.execute('DELETE FROM pair_fee_samples WHERE sampled_at < $1', [before])).changes;
  }
}
