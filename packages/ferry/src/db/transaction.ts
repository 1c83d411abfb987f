// The transaction lifecycle both adapters share: begin, run the caller's function with a handle,
// commit or roll back, and make misuse fail loudly instead of silently escaping the transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseError, TransactionAborted } from './errors.ts';
import type { Dialect, ExecuteResult, Queryable, SqlValue } from './types.ts';

/** One connection with a transaction open on it, as an adapter provides it. */
export interface TransactionConnection extends Queryable {
  begin(): Promise<void>;
  commit(): Promise<void>;
  /** Must not throw: an adapter that cannot roll back discards the connection instead. */
  rollback(): Promise<void>;
}

class TransactionHandle implements Queryable {
  readonly dialect: Dialect;
  finished = false;
  failure: unknown = undefined;
  private failed = false;

  constructor(private readonly connection: TransactionConnection) {
    this.dialect = connection.dialect;
  }

  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.guarded(() => this.connection.query<T>(sql, params));
  }

  execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult> {
    return this.guarded(() => this.connection.execute(sql, params));
  }

  get hasFailed(): boolean {
    return this.failed;
  }

  private async guarded<T>(run: () => Promise<T>): Promise<T> {
    if (this.finished) throw new DatabaseError('transaction already finished; this handle can no longer be used');
    if (this.failed) {
      throw new TransactionAborted('an earlier statement in this transaction failed; it will be rolled back', {
        cause: this.failure,
      });
    }
    try {
      return await run();
    } catch (error) {
      this.failed = true;
      this.failure = error;
      throw error;
    }
  }
}

/** Tracks which transaction, if any, the current async call chain runs inside. */
export class TransactionScope {
  private readonly current = new AsyncLocalStorage<TransactionHandle>();

  assertOutside(): void {
    const handle = this.current.getStore();
    if (handle && !handle.finished) {
      throw new DatabaseError(
        'database used directly inside its own transaction; run statements on the transaction handle instead',
      );
    }
  }

  async run<T>(connection: TransactionConnection, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = new TransactionHandle(connection);
    try {
      // Inside the try: a BEGIN that fails on a broken connection still gets the rollback, which
      // is what tells the PostgreSQL adapter to discard that connection.
      await connection.begin();
      const result = await this.current.run(tx, () => fn(tx));
      if (tx.hasFailed) {
        throw new TransactionAborted('a statement failed inside the transaction, which was rolled back', {
          cause: tx.failure,
        });
      }
      tx.finished = true;
      await connection.commit();
      return result;
    } catch (error) {
      tx.finished = true;
      await connection.rollback();
      throw error;
    }
  }
}
