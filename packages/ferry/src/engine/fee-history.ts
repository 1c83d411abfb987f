// The pairs' fee history behind GET /v2/swap/{type}/stats/{from}/{to}: partners chart what a pair charged over the
// last week. The reference keeps it as Prometheus samples at a ten-minute step; Ferry needs no Prometheus for it and
// keeps the same series in its own database: the leading instance writes each pair's fee (what the pair lists
// answer wallets at that moment) once per ten-minute bucket, and drops samples older than a week.
import type { FeeSample, FeeSampleRepository } from '../db/index.ts';
import type { Logger } from '../log/index.ts';

export const FEE_SAMPLE_SECONDS = 600;
export const FEE_HISTORY_SECONDS = 7 * 24 * 3600;

type Listed = Record<string, Record<string, { fees: { percentage: number } }>>;

/** The pair lists as the API answers them, keyed from → to (the reverse list from the Lightning side). */
export interface FeeSources {
  submarine(): Promise<Listed>;
  reverse(): Promise<Listed>;
  chain(): Promise<Listed>;
}

export interface PairStats {
  /** [unix seconds, percent] oldest first. */
  fee: Array<[number, number]>;
  /** Submarine swaps only: the most Ferry may spend routing the payment, in percent of the invoice. */
  maximalRoutingFee?: Array<[number, number]>;
}

export interface FeeHistoryOptions {
  samples: FeeSampleRepository;
  sources: FeeSources;
  /** Routing fee limit of submarine payments, parts per million of the invoice. */
  routingFeeLimitPpm: number;
  logger: Logger;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

const bucketOf = (seconds: number): number => Math.floor(seconds / FEE_SAMPLE_SECONDS) * FEE_SAMPLE_SECONDS;

export class FeeHistory {
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: FeeHistoryOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Samples now, then at the start of every bucket until stop(). */
  start(): void {
    if (this.timer !== undefined) return;
    const next = (): void => {
      const seconds = this.now() / 1000;
      this.timer = setTimeout(() => void this.sample().finally(() => this.timer !== undefined && next()), (bucketOf(seconds) + FEE_SAMPLE_SECONDS - seconds) * 1000 + 1000);
      this.timer.unref();
    };
    void this.sample().finally(next);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Writes every listed pair's current fee into the current bucket, once; drops samples older than a week. */
  async sample(): Promise<void> {
    try {
      const at = bucketOf(this.now() / 1000);
      const maxRoutingFee = Math.round(this.options.routingFeeLimitPpm) / 10_000;
      const samples: FeeSample[] = [];
      const add = (swapType: string, list: Listed, extra?: number): void => {
        for (const [from, tos] of Object.entries(list)) {
          for (const [to, body] of Object.entries(tos)) {
            samples.push({ swapType, pair: `${from}/${to}`, sampledAt: at, fee: body.fees.percentage, ...(extra !== undefined && { maxRoutingFee: extra }) });
          }
        }
      };
      const { sources } = this.options;
      add('submarine', await sources.submarine(), maxRoutingFee);
      add('reverse', await sources.reverse());
      add('chain', await sources.chain());
      await this.options.samples.record(samples);
      await this.options.samples.prune(at - FEE_HISTORY_SECONDS);
    } catch (error) {
      // A missed bucket is a gap in a chart, not a reason to stop: the next bucket samples again.
      this.options.logger.warn('could not sample the pair fees', { error: String(error) });
    }
  }

  /** The last week of one pair's samples; undefined when there are none (an unknown pair, or never sampled). */
  async stats(swapType: string, from: string, to: string): Promise<PairStats | undefined> {
    const series = await this.options.samples.series(swapType, `${from}/${to}`, this.now() / 1000 - FEE_HISTORY_SECONDS);
    if (series.length === 0) return undefined;
    const fee = series.map((s): [number, number] => [s.sampledAt, s.fee]);
    if (swapType !== 'submarine') return { fee };
    return { fee, maximalRoutingFee: series.map((s): [number, number] => [s.sampledAt, s.maxRoutingFee ?? 0]) };
  }
}
