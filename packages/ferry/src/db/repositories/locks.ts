// Leases by name in the database: whoever holds a name's row until it expires is its only holder, across every
// process on the same database. A holder renews its lease while working; a crashed holder's lease runs out.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export class LockRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  /** Takes the lease if it is free or expired; true when `owner` holds it now. */
  async tryAcquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const result = await this.q.execute(
      `INSERT INTO locks (name, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE locks.expires_at <= $4 OR locks.owner = excluded.owner`,
      [name, owner, now + ttlMs, now],
    );
    return result.changes === 1;
  }

  /** Extends a lease still held; false when it was lost (expired and taken). */
  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const result = await this.q.execute('UPDATE locks SET expires_at = $3 WHERE name = $1 AND owner = $2', [name, owner, this.now() + ttlMs]);
    return result.changes === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.q.execute('DELETE FROM locks WHERE name = $1 AND owner = $2', [name, owner]);
  }
}
