// SQLite through better-sqlite3: one synchronous connection per database file and process, so
// statements are atomic by construction and transactions are serialized with an async mutex.
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { privateSqliteFile } from '@ferry/sdk/fs/private.js';
import { DatabaseError, fromSqliteError } from './errors.ts';
import { Mutex } from './mutex.ts';
import { normalizeParams } from './params.ts';
import { translatePlaceholders } from './placeholders.ts';
import { TransactionScope, type TransactionConnection } from './transaction.ts';
import type { Database, ExecuteResult, Queryable, SqlValue } from './types.ts';

const STATEMENT_CACHE_SIZE = 256;
const BUSY_TIMEOUT_MS = 5000;

interface Prepared {
  statement: BetterSqlite3.Statement;
  order: number[];
  arity: number;
}

/**
 * One better-sqlite3 connection and everything that must be shared by all users of it. Handles
 * opened on the same file in one process share one of these: with two connections, a transaction
 * awaiting in one would make the other's write spin in SQLite's busy handler, blocking the very
 * event loop the first needs to finish.
 */
class SharedConnection {
  readonly mutex = new Mutex();
  readonly scope = new TransactionScope();
  private readonly statements = new Map<string, Prepared>();
  handles = 0;

  constructor(readonly connection: BetterSqlite3.Database) {}

  runQuery<T>(sql: string, params: readonly SqlValue[] | undefined): T[] {
    const { statement, values } = this.bind(sql, params);
    try {
      if (statement.reader) return statement.all(...values) as T[];
      statement.run(...values);
      return [];
    } catch (error) {
      throw fromSqliteError(error);
    }
  }

  runExecute(sql: string, params: readonly SqlValue[] | undefined): ExecuteResult {
    const { statement, values } = this.bind(sql, params);
    try {
      return { changes: statement.run(...values).changes };
    } catch (error) {
      throw fromSqliteError(error);
    }
  }

  transactionConnection(): TransactionConnection {
    const connection = this.connection;
    return {
      dialect: 'sqlite',
      query: async <T>(sql: string, params?: readonly SqlValue[]) => this.runQuery<T>(sql, params),
      execute: async (sql, params) => this.runExecute(sql, params),
      // IMMEDIATE takes the write lock up front, so another process cannot make us fail half-way.
      begin: async () => void connection.exec('BEGIN IMMEDIATE'),
      commit: async () => void connection.exec('COMMIT'),
      rollback: async () => {
        if (connection.inTransaction) connection.exec('ROLLBACK');
      },
    };
  }

  close(): void {
    this.statements.clear();
    this.connection.close();
  }

  private bind(sql: string, params: readonly SqlValue[] | undefined) {
    const prepared = this.prepare(sql);
    const given = normalizeParams(params);
    if (given.length !== prepared.arity) {
      throw new RangeError(`statement expects ${prepared.arity} parameters, got ${given.length}: ${sql}`);
    }
    return { statement: prepared.statement, values: prepared.order.map((i) => given[i]) };
  }

  private prepare(sql: string): Prepared {
    const cached = this.statements.get(sql);
    if (cached) return cached;
    const translated = translatePlaceholders(sql);
    let statement: BetterSqlite3.Statement;
    try {
      statement = this.connection.prepare(translated.sql);
    } catch (error) {
      throw fromSqliteError(error);
    }
    const prepared = { statement, order: translated.order, arity: translated.arity };
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    this.statements.set(sql, prepared);
    return prepared;
  }
}

const sharedByFile = new Map<string, SharedConnection>();

export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private closed = false;

  constructor(
    private readonly shared: SharedConnection,
    private readonly release: () => void,
  ) {}

  async query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.exclusive(() => this.shared.runQuery<T>(sql, params));
  }

  async execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult> {
    return this.exclusive(() => this.shared.runExecute(sql, params));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.assertUsable();
    const release = await this.shared.mutex.acquire();
    try {
      this.assertOpen();
      return await this.shared.scope.run(this.shared.transactionConnection(), fn);
    } finally {
      release();
    }
  }

  /**
   * A consistent copy of the live database in `destination` (SQLite's online backup API): pages are copied in steps
   * between the service's own statements, which SQLite carries into the copy as they commit (they share this
   * connection), so the file is one committed state.
   */
  async backup(destination: string): Promise<void> {
    this.assertUsable();
    await this.shared.connection.backup(destination);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.shared.scope.assertOutside();
    this.closed = true;
    const release = await this.shared.mutex.acquire();
    try {
      this.release();
    } finally {
      release();
    }
  }

  /** Runs a single statement, after any open transaction: on the shared connection it would join it. */
  private async exclusive<T>(run: () => T): Promise<T> {
    this.assertUsable();
    if (this.shared.mutex.idle) return run();
    const release = await this.shared.mutex.acquire();
    try {
      this.assertOpen();
      return run();
    } finally {
      release();
    }
  }

  private assertUsable(): void {
    this.assertOpen();
    this.shared.scope.assertOutside();
  }

  private assertOpen(): void {
    if (this.closed) throw new DatabaseError('database is closed');
  }
}

/** Opens (creating if needed) the SQLite database at `path`, or an in-memory one for ':memory:'. */
export function openSqlite(path: string): SqliteDatabase {
  if (path === ':memory:') {
    const shared = new SharedConnection(connect(path));
    return new SqliteDatabase(shared, () => shared.close());
  }
  const dir = resolve(dirname(path));
  mkdirSync(dir, { recursive: true });
  const key = join(realpathSync(dir), basename(path));
  let shared = sharedByFile.get(key);
  if (!shared) {
    privateSqliteFile(key); // swaps, keys' indexes and preimages: no other account reads them
    shared = new SharedConnection(connect(key));
    sharedByFile.set(key, shared);
  }
  shared.handles++;
  const owner = shared;
  return new SqliteDatabase(owner, () => {
    if (--owner.handles > 0) return;
    sharedByFile.delete(key);
    owner.close();
  });
}

function connect(path: string): BetterSqlite3.Database {
  const connection = new BetterSqlite3(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    // FULL: a commit the engine acted on (an invoice paid, a lockup sent) must survive a power cut.
    connection.pragma('synchronous = FULL');
  } catch (error) {
    connection.close();
    throw error;
  }
  return connection;
}
