// Every committed insert or update of a swap row is announced by PostgreSQL itself (NOTIFY from a row trigger): it is
// sent at commit, in commit order, whichever instance (or tool) wrote the row, and never for a rolled-back write.
// The payload is small (id, status, version, whether the status changed); listeners read the row back for the rest.
// Installed by every instance at start, idempotently, rather than as a migration: SQLite has no use for it.
import type { PostgresDatabase } from '../db/postgres.ts';
import { triggerKey } from './names.ts';

export interface SwapNotice {
  id: string;
  status: string;
  version: number;
  /** The row is new or its status differs from before this write. */
  changed: boolean;
}

const FUNCTION_SQL = `CREATE OR REPLACE FUNCTION ferry_notify_swap() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM pg_notify('ferry_' || left(md5(TG_TABLE_SCHEMA), 16), json_build_object(
    'id', NEW.id, 'status', NEW.status, 'version', NEW.version,
    'changed', TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status)::text);
  RETURN NULL;
END
$body$`;

export async function installSwapTrigger(db: PostgresDatabase, schema: string): Promise<void> {
  await db.transaction(async (tx) => {
    // Two instances starting together would otherwise fail on "tuple concurrently updated".
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [triggerKey(schema)]);
    await tx.execute(FUNCTION_SQL);
    await tx.execute('DROP TRIGGER IF EXISTS ferry_swap_notify ON swaps');
    await tx.execute('CREATE TRIGGER ferry_swap_notify AFTER INSERT OR UPDATE ON swaps FOR EACH ROW EXECUTE FUNCTION ferry_notify_swap()');
  });
}

/** A notice's payload, or undefined for anything else on the channel. */
export function parseSwapNotice(payload: string | undefined): SwapNotice | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Partial<SwapNotice>;
    if (typeof value.id !== 'string' || typeof value.status !== 'string' || typeof value.version !== 'number') return undefined;
    return { id: value.id, status: value.status, version: value.version, changed: value.changed === true };
  } catch {
    return undefined;
  }
}
