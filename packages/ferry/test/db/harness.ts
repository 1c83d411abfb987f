// Runs a storage test suite once on SQLite and once on PostgreSQL. Every database a test opens
// lives in its own place (a temp file, or a fresh schema of the shared `test` database) and is
// removed when the suite ends. PostgreSQL being down fails the tests: CI guarantees it is up.
import { after, describe } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createRepositories, openDatabase, type Database, type Dialect, type OpenOptions, type Storage } from '../../src/db/index.ts';

export const POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let postgresReady: Promise<void> | undefined;

/** Connects once, creating the `test` database if the server lacks it; explains a refusal. */
function ensurePostgres(): Promise<void> {
  postgresReady ??= (async () => {
    try {
      await withClient(POSTGRES_URL, async () => {});
    } catch (error) {
      if ((error as { code?: string }).code !== '3D000') throw unreachable(error);
      const url = new URL(POSTGRES_URL);
      const name = url.pathname.slice(1);
      url.pathname = '/postgres';
      await withClient(url.toString(), (c) => c.query(`CREATE DATABASE "${name}"`)).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw unreachable(e);
      });
    }
  })();
  return postgresReady;
}

function unreachable(error: unknown): Error {
  return new Error(
    `PostgreSQL at ${POSTGRES_URL} is not usable (${(error as Error).message}). The storage tests run on ` +
      'SQLite and PostgreSQL and never skip: start PostgreSQL (pg_ctlcluster <version> main start) or set ' +
      'FERRY_TEST_POSTGRES_URL.',
    { cause: error },
  );
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export class Harness {
  private readonly opened: Database[] = [];
  private readonly schemas: string[] = [];
  private readonly dirs: string[] = [];

  constructor(readonly dialect: Dialect) {}

  /** A URL naming a place where no database exists yet. */
  async freshUrl(): Promise<string> {
    if (this.dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'ferry-db-'));
      this.dirs.push(dir);
      return `sqlite:${join(dir, 'nested', 'ferry.db')}`;
    }
    await ensurePostgres();
    const schema = `ferry_test_${randomBytes(6).toString('hex')}`;
    this.schemas.push(schema);
    return `${POSTGRES_URL}?schema=${schema}`;
  }

  /** Opens `url` (a fresh place by default); closed when the suite ends. */
  async open(url?: string, options?: OpenOptions): Promise<Database> {
    const db = await openDatabase(url ?? (await this.freshUrl()), options);
    this.opened.push(db);
    return db;
  }

  async storage(options: { now?: () => number } = {}): Promise<Storage> {
    return createRepositories(await this.open(), options);
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.opened.map((db) => db.close()));
    if (this.schemas.length > 0) {
      await withClient(POSTGRES_URL, async (client) => {
        for (const schema of this.schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      });
    }
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** Declares the suite twice, as `<title> [sqlite]` and `<title> [postgres]`. */
export function onBothDialects(title: string, body: (h: Harness) => void): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(`${title} [${dialect}]`, () => {
      const harness = new Harness(dialect);
      after(() => harness.cleanup());
      body(harness);
    });
  }
}

/** A promise plus the function that resolves it, to hold a transaction open at a chosen point. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
