// Names for PostgreSQL prepared statements. A named statement is parsed and planned once per connection and then
// only bound and executed, which is most of PostgreSQL's CPU for Ferry's short reads. Names are given to the first
// MAX_NAMED distinct texts only: a text built per call (an IN list of varying length) would otherwise leave an
// unbounded number of prepared statements in every server session; later texts run unnamed, as before.
import { createHash } from 'node:crypto';

export const MAX_NAMED = 500;

// Statements that change the session or its transaction are never worth preparing.
const UNPREPARED = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|LISTEN|UNLISTEN|NOTIFY|CREATE|ALTER|DROP)\b/i;

export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly unnamed = new Set<string>();

  constructor(private readonly max = MAX_NAMED) {}

  /** The statement's name, or undefined when it runs unnamed. */
  nameOf(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined) return known;
    if (this.names.size >= this.max || this.unnamed.has(sql) || UNPREPARED.test(sql)) return undefined;
    const name = `ferry_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    this.names.set(sql, name);
    return name;
  }

  /**
   * Stops naming a text whose prepared plan went stale: PostgreSQL refuses to run a prepared `SELECT *` once a
   * migration (of another instance) changed the table's columns — "cached plan must not change result type".
   * The failed statement is retried by its caller (effects, requests); from then on it is parsed each time.
   */
  forget(sql: string): void {
    this.names.delete(sql);
    this.unnamed.add(sql);
  }
}

/** PostgreSQL's refusal of a prepared statement whose table changed shape since it was prepared. */
export const isStalePlan = (error: unknown): boolean =>
  (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String((error as Error).message));
