// The storage contract shared by the SQLite and PostgreSQL adapters. SQL is written once, with
// PostgreSQL-style `$1, $2` placeholders; the SQLite adapter translates them.

export type Dialect = 'sqlite' | 'postgres';

/** A bound parameter. Booleans are stored as 1/0 and `undefined` as NULL on both dialects. */
export type SqlValue = string | number | bigint | boolean | null | undefined | Uint8Array;

export interface ExecuteResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

/** Anything SQL can be run on: the database itself or an open transaction. */
export interface Queryable {
  readonly dialect: Dialect;
  /** Runs one statement and returns its rows (an empty list for statements without a result set). */
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs one statement and reports how many rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult>;
}

export interface Database extends Queryable {
  /**
   * Runs `fn` in one transaction: committed if it resolves, rolled back if it rejects. Use only `tx`
   * inside `fn`; touching the database itself from inside its own transaction throws, because on
   * SQLite it would wait for the transaction forever and on PostgreSQL it would escape it.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Tells the database itself from a transaction handle. */
export function isDatabase(q: Queryable): q is Database {
  return typeof (q as Partial<Database>).transaction === 'function';
}
