// Small pieces of service state that do not deserve a table of their own.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export class KvRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const rows = await this.q.query<{ value: string }>('SELECT value FROM kv WHERE key = $1', [key]);
    return rows[0]?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.q.execute(
      `INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [key, value, this.now()],
    );
  }

  /** True if the key existed. */
  async delete(key: string): Promise<boolean> {
    return (await this.q.execute('DELETE FROM kv WHERE key = $1', [key])).changes > 0;
  }
}
