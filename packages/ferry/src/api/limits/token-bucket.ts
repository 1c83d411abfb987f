// Token buckets by key (a client address): each holds up to `burst` tokens and regains `perSecond` of them per
// second; a request takes one. Buckets are refilled lazily when used, and full ones are forgotten by a sweep, so
// memory follows the addresses active in the last few seconds, not every address ever seen.

export interface BucketRate {
  burst: number;
  perSecond: number;
}

interface Bucket {
  tokens: number;
  at: number; // ms of the last refill
}

/** At most this many addresses are tracked; past it the oldest are forgotten (they start with a full bucket). */
const maxKeys = 200_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly rate: BucketRate,
    private readonly now: () => number = Date.now,
  ) {
    // a bucket idle for the time it takes to refill is full again: forgetting it changes nothing
    const refillMs = Math.max(1_000, (rate.burst / Math.max(rate.perSecond, 1e-9)) * 1_000);
    this.sweeper = setInterval(() => this.sweep(), Math.min(refillMs, 60_000));
    this.sweeper.unref();
  }

  /** 0 when a token was taken; otherwise the seconds until one is available (for Retry-After). */
  take(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.rate.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.rate.burst, bucket.tokens + ((now - bucket.at) / 1_000) * this.rate.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    if (this.rate.perSecond <= 0) return 3_600; // a bucket that never refills: try again much later
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.perSecond));
  }

  get size(): number {
    return this.buckets.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1_000) * this.rate.perSecond >= this.rate.burst) this.buckets.delete(key);
    }
  }
}
