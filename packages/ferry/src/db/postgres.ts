// PostgreSQL through a pg Pool. Each transaction gets a dedicated pooled client; statements outside
// transactions go to whichever client is free.
import pg from 'pg';
import { DatabaseError, UniqueViolation, fromPostgresError } from './errors.ts';
import { normalizeParams } from './params.ts';
import { MAX_NAMED, StatementNames, isStalePlan } from './statement-names.ts';
import { TransactionScope, type TransactionConnection } from './transaction.ts';
import type { Database, ExecuteResult, Queryable, SqlValue } from './types.ts';

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresOptions {
  /** Tables live in this schema (created if missing) instead of the server's default search_path. */
  schema?: string;
  /** Most connections the pool opens; default 10. */
  poolSize?: number;
  /** How many distinct statement texts are prepared by name on each connection; default MAX_NAMED, 0: none. */
  preparedStatements?: number;
}

// pg hands BIGINT and NUMERIC back as strings to avoid precision loss; Ferry's values (satoshis,
// heights, ids) fit in a double, and SQLite returns numbers, so both dialects return numbers.
const numericTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

function toPgParams(params: readonly SqlValue[] | undefined): unknown[] {
  // pg sends a bigint as its decimal text, like any other value; only the JS type needs care.
  return normalizeParams(params).map((v) => (typeof v === 'bigint' ? v.toString() : v));
}

export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly scope = new TransactionScope();

  constructor(
    private readonly pool: pg.Pool,
    /** How a connection outside the pool is made, and the schema (if any) the tables live in. */
    private readonly dedicated?: { config: pg.ClientConfig; schema?: string },
    private readonly names = new StatementNames(),
  ) {}

  /** The schema Ferry's tables live in; undefined: the server's default search_path (usually public). */
  get schema(): string | undefined {
    return this.dedicated?.schema;
  }

  /**
   * A connected client of its own, outside the pool, for state bound to one session (advisory locks, LISTEN):
   * a pooled client would hand that state to whoever borrows it next. The caller ends it.
   */
  async dedicatedClient(): Promise<pg.Client> {
    if (this.dedicated === undefined) throw new DatabaseError('this database was opened without its connection settings');
    // TCP keepalive: a session that lives as long as the process (a leader's lock) must notice a vanished server.
    const client = new pg.Client({ ...this.dedicated.config, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    try {
      await client.connect();
    } catch (error) {
      throw fromPostgresError(error);
    }
    return client;
  }

  async query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    this.scope.assertOutside();
    return (await this.run(this.pool, sql, params)).rows as T[];
  }

  async execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult> {
    this.scope.assertOutside();
    return { changes: (await this.run(this.pool, sql, params)).rowCount ?? 0 };
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.scope.assertOutside();
    const client = await this.pool.connect().catch((error: unknown) => {
      throw fromPostgresError(error);
    });
    let broken: Error | undefined;
    const connection: TransactionConnection = {
      dialect: 'postgres',
      query: async <R>(sql: string, params?: readonly SqlValue[]) => (await this.run(client, sql, params)).rows as R[],
      execute: async (sql, params) => ({ changes: (await this.run(client, sql, params)).rowCount ?? 0 }),
      begin: async () => void (await this.run(client, 'BEGIN', [])),
      commit: async () => void (await this.run(client, 'COMMIT', [])),
      rollback: async () => {
        try {
          await client.query('ROLLBACK');
        } catch (error) {
          // A client that cannot roll back may still hold the transaction open: never reuse it.
          broken = error instanceof Error ? error : new Error(String(error));
        }
      },
    };
    try {
      return await this.scope.run(connection, fn);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private async run(target: pg.Pool | pg.PoolClient, sql: string, params: readonly SqlValue[] | undefined) {
    const name = this.names.nameOf(sql);
    try {
      return await target.query({ name, text: sql, values: toPgParams(params) });
    } catch (error) {
      if (!isStalePlan(error)) throw fromPostgresError(error);
      this.names.forget(sql);
      // Outside a transaction nothing else failed with it: run it again unprepared, so a rolling upgrade's compatible
      // migration costs an older instance's callers nothing. Inside one, the transaction is aborted: its caller retries.
      if (target !== this.pool) throw fromPostgresError(error);
      try {
        return await target.query({ text: sql, values: toPgParams(params) });
      } catch (again) {
        throw fromPostgresError(again);
      }
    }
  }
}

/** Splits Ferry's own `schema` parameter off a connection URL, leaving what pg understands. */
export function parsePostgresUrl(url: string): { connectionString: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresDatabase> {
  const parsed = parsePostgresUrl(url);
  const schema = options.schema ?? parsed.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new DatabaseError(`invalid PostgreSQL schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`);
  }
  const config: pg.ClientConfig = {
    connectionString: parsed.connectionString,
    connectionTimeoutMillis: 10_000,
    types: numericTypes,
    // A startup parameter, so every pooled connection has it before its first statement.
    options: schema ? `-c search_path=${schema}` : undefined,
  };
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 10 });
  // An idle client whose server went away emits 'error'; the pool drops it and the next query
  // reconnects, so there is nothing to do here but keep the process alive.
  pool.on('error', () => {});
  const db = new PostgresDatabase(pool, { config, schema }, new StatementNames(options.preparedStatements ?? MAX_NAMED));
  try {
    if (schema) await createSchema(db, schema);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

async function createSchema(db: PostgresDatabase, schema: string): Promise<void> {
  try {
    await db.execute(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Two processes creating the same schema at once: the loser sees a duplicate, which is fine.
    const duplicate = error instanceof UniqueViolation || (error as { code?: unknown }).code === '42P06';
    if (!duplicate) throw error;
  }
}
