// Brings a database up to the code's schema version, atomically, and refuses databases that a
// newer Ferry already migrated past what this code understands.
import { DatabaseError, SchemaTooNewError } from './errors.ts';
import { MIGRATIONS, types, type Migration } from './migrations.ts';
import type { Database, Queryable } from './types.ts';

export interface MigrationResult {
  /** Schema version found before migrating (0 for a fresh database). */
  from: number;
  /** Schema version now. */
  to: number;
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new DatabaseError(`migration "${m.name}" has version ${m.version}, expected ${i + 1}`);
    }
  });
}

async function currentVersion(q: Queryable): Promise<number> {
  const rows = await q.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}

export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationResult> {
  checkOrder(migrations);
  const latest = migrations.length;
  return db.transaction(async (tx) => {
    // Several instances may start at once; on SQLite the transaction's write lock already
    // serializes them, on PostgreSQL this lock does, per schema.
    if (tx.dialect === 'postgres') {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('ferry.migrate.' || coalesce(current_schema(), '')))`);
    }
    const t = types(tx.dialect);
    await tx.execute(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        version ${t.bigint} NOT NULL PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at ${t.bigint} NOT NULL
      )${t.tableSuffix}`,
    );
    const from = await currentVersion(tx);
    if (from > latest) throw new SchemaTooNewError(from, latest);
    for (const migration of migrations.slice(from)) {
      for (const statement of migration.statements(tx.dialect)) await tx.execute(statement);
      await tx.execute('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
    return { from, to: latest };
  });
}

/** The highest migration applied to the database, 0 if none. */
export async function schemaVersion(q: Queryable): Promise<number> {
  return currentVersion(q);
}
