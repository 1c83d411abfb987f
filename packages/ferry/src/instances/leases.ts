// A new leader frees the swap lock leases of instances that are gone, instead of waiting for them to expire (15 s):
// an instance is gone when its liveness advisory lock (names.ts instanceKey) can be taken. It is held meanwhile, so a
// restarting instance with that id waits (leader.ts) rather than taking leases that are being deleted.
import type pg from 'pg';
import type { PostgresDatabase } from '../db/postgres.ts';
import { instanceKey } from './names.ts';

/** Deletes the leases of every owner other than `self` with no live session; returns those owners. */
export async function freeLeasesOfGoneInstances(db: PostgresDatabase, client: pg.Client, schema: string, self: string): Promise<string[]> {
  const owners = await db.query<{ owner: string }>('SELECT DISTINCT owner FROM locks WHERE owner <> $1', [self]);
  const gone: string[] = [];
  for (const { owner } of owners) {
    const key = instanceKey(schema, owner);
    const taken = (await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS taken', [key])).rows[0].taken;
    if (!taken) continue;
    try {
      await db.execute('DELETE FROM locks WHERE owner = $1', [owner]);
      gone.push(owner);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
    }
  }
  return gone;
}
