// The PostgreSQL side the HTTP benches share: the server they use, the backends serving one bench's instances (for
// their CPU), and dropping a bench's schema when it ends.
import pg from 'pg';

export const POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The PostgreSQL backends named `application` (other work on the machine uses the same server). */
export function backendsOf(application: string): Promise<number[]> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application]);
    return rows.map((row) => row.pid);
  });
}

export function dropSchema(schema: string): Promise<void> {
  return withClient(async (client) => void (await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
}
