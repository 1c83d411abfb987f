// PostgreSQL's CPU per swap read through Ferry's store, with statements prepared by name (the default) next to
// the same reads parsed and planned each time (the baseline, as before), in one run on the same rows. Each mode
// has a one-connection pool tagged with its own application_name, so the backend's CPU is read from /proc.
import pg from 'pg';
import { createRepositories, openDatabase } from '../src/db/index.ts';
import { cpuMeter } from './load/cpu.ts';

const READS = Number(process.env.PREPARED_READS ?? 20_000);

async function backendPid(url: string, application: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application]);
    if (rows.length !== 1) throw new Error(`expected one backend named ${application}, found ${rows.length}`);
    return rows[0].pid;
  } finally {
    await client.end();
  }
}

async function cpuPerRead(url: string, schema: string, ids: string[], preparedStatements: number): Promise<number> {
  const application = `ferry-bench-prepared-${preparedStatements}-${process.pid}`;
  const withName = new URL(url);
  withName.searchParams.set('application_name', application);
  const db = await openDatabase(withName.toString(), { schema, poolSize: 1, preparedStatements, migrate: false });
  try {
    const swaps = createRepositories(db).swaps;
    for (const id of ids.slice(0, 200)) await swaps.get(id); // warm-up: connection, JIT, the prepared plan
    const meter = cpuMeter([await backendPid(url, application)]);
    for (let i = 0; i < READS; i++) {
      if ((await swaps.get(ids[i % ids.length])) === undefined) throw new Error('a bench swap vanished');
    }
    return meter()[0] / READS;
  } finally {
    await db.close();
  }
}

/** Lines for the instances bench: the same reads both ways, in turns. */
export async function benchPreparedReads(url: string, schema: string, ids: string[]): Promise<string[]> {
  const prepared: number[] = [];
  const parsed: number[] = [];
  for (let round = 0; round < 2; round++) {
    prepared.push(await cpuPerRead(url, schema, ids, 500));
    parsed.push(await cpuPerRead(url, schema, ids, 0));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return [
    `PostgreSQL CPU per swap read (${READS} reads × 2 rounds, one connection): prepared statements ${mean(prepared).toFixed(4)} ms, ` +
      `parsed each time (baseline) ${mean(parsed).toFixed(4)} ms: ${(mean(parsed) / mean(prepared)).toFixed(2)}x less`,
  ];
}
