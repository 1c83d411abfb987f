// Brings a database up to the code's schema version, atomically, and refuses databases that a
// newer Ferry already migrated past what this code understands — unless every migration it lacks
// is marked compatible (it only expands the schema: migrations.ts, "Expand, then contract").
import { DatabaseError, SchemaTooNewError } from './errors.ts';
import { MIGRATIONS, types, type Migration } from './migrations.ts';
import type { Database, Queryable } from './types.ts';

export interface MigrationResult {
  /** Schema version found before migrating (0 for a fresh database). */
  from: number;
  /** Schema version now: the code's, or the database's when a newer Ferry migrated it compatibly. */
  to: number;
}

/**
 * The bookkeeping column that tells an older Ferry whether a migration it does not know leaves its code working.
 * Databases from before the column get it here (their rows are all known to this code, so its default is moot).
 */
async function ensureCompatibleColumn(tx: Queryable): Promise<void> {
  const [{ n }] =
    tx.dialect === 'sqlite'
      ? await tx.query<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info('schema_migrations') WHERE name = 'compatible'`)
      : await tx.query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'compatible'`,
        );
  if (Number(n) === 0) {
    await tx.execute(`ALTER TABLE schema_migrations ADD COLUMN compatible ${types(tx.dialect).bigint} NOT NULL DEFAULT 0`);
  }
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
        applied_at ${t.bigint} NOT NULL,
        compatible ${t.bigint} NOT NULL DEFAULT 0
      )${t.tableSuffix}`,
    );
    await ensureCompatibleColumn(tx);
    const from = await currentVersion(tx);
    if (from > latest) {
      const incompatible = await tx.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations WHERE version > $1 AND compatible = 0 ORDER BY version',
        [latest],
      );
      if (incompatible.length > 0) throw new SchemaTooNewError(from, latest, incompatible);
      return { from, to: from };
    }
    for (const migration of migrations.slice(from)) {
      for (const statement of migration.statements(tx.dialect)) await tx.execute(statement);
      await tx.execute('INSERT INTO schema_migrations (version, name, applied_at, compatible) VALUES ($1, $2, $3, $4)', [
        migration.version,
        migration.name,
        Date.now(),
        migration.compatible ? 1 : 0,
      ]);
    }
    return { from, to: latest };
  });
}

/** The highest migration applied to the database, 0 if none. */
export async function schemaVersion(q: Queryable): Promise<number> {
  return currentVersion(q);
}
