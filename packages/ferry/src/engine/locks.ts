// Mutual exclusion by name (a swap id, an operator wallet): one operation at a time, so reads, decisions and writes
// about a swap never interleave. Within a process a queue per name; across processes that share the database a
// lease in its `locks` table, taken after the queue and renewed while the work runs.
import { randomBytes } from 'node:crypto';
import type { LockRepository } from '../db/index.ts';

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once nobody queued behind us, so the map holds only busy names.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

export interface NamedLockOptions {
  /**
   * Who this process is as a lease holder. A restarted instance that keeps its id takes its own leases back at
   * once instead of waiting for them to expire; two live processes must never share one. Default: random.
   */
  owner?: string;
  /** How long a lease lasts without renewal: a crashed holder blocks others at most this long. */
  leaseMs?: number;
  /** How often a waiting process asks again for a lease another one holds. */
  retryMs?: number;
}

export class NamedLocks {
  private readonly local = new KeyedMutex();
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly leases?: LockRepository,
    options: NamedLockOptions = {},
  ) {
    this.owner = options.owner ?? randomBytes(12).toString('hex');
    this.leaseMs = options.leaseMs ?? 15_000;
    this.retryMs = options.retryMs ?? 25;
  }

  run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const leases = this.leases;
    if (leases === undefined) return this.local.run(name, fn);
    return this.local.run(name, async () => {
      while (!(await leases.tryAcquire(name, this.owner, this.leaseMs))) {
        await new Promise((resolve) => setTimeout(resolve, this.retryMs));
      }
      const renewal = setInterval(() => void leases.renew(name, this.owner, this.leaseMs).catch(() => {}), this.leaseMs / 3);
      renewal.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renewal);
        await leases.release(name, this.owner).catch(() => {});
      }
    });
  }
}
