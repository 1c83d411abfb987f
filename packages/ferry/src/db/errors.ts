// Typed storage errors, the same on both dialects, so callers never parse driver messages.

export class DatabaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An INSERT or UPDATE collided with a UNIQUE or PRIMARY KEY constraint. */
export class UniqueViolation extends DatabaseError {
  readonly table: string | undefined;
  readonly columns: readonly string[];

  constructor(table: string | undefined, columns: readonly string[], cause: unknown) {
    super(`unique constraint violated: ${table ?? '?'}(${columns.join(', ')})`, { cause });
    this.table = table;
    this.columns = columns;
  }

  /** The first (usually only) column of the violated constraint. */
  get column(): string | undefined {
    return this.columns[0];
  }
}

/** A row referenced a missing parent, or a parent still referenced was deleted. */
export class ForeignKeyViolation extends DatabaseError {}

/**
 * The database was migrated by a newer Ferry, with at least one migration this code does not know that is not marked
 * compatible with older code; running would risk corrupting it.
 */
export class SchemaTooNewError extends DatabaseError {
  readonly databaseVersion: number;
  readonly codeVersion: number;
  /** The unknown migrations not marked compatible (empty when unknown to the caller). */
  readonly incompatible: readonly { version: number; name: string }[];

  constructor(databaseVersion: number, codeVersion: number, incompatible: readonly { version: number; name: string }[] = []) {
    const named = incompatible.map((m) => `${m.version} "${m.name}"`).join(', ');
    super(
      `database schema is at version ${databaseVersion}, but this Ferry knows migrations only up to ` +
        `${codeVersion}` +
        (named ? ` and migration${incompatible.length === 1 ? '' : 's'} ${named} ${incompatible.length === 1 ? 'is' : 'are'} not marked compatible with older code` : '') +
        '; upgrade Ferry or point it at another database',
    );
    this.databaseVersion = databaseVersion;
    this.codeVersion = codeVersion;
    this.incompatible = incompatible;
  }
}

/**
 * A statement failed inside a transaction and the transaction function carried on anyway.
 * PostgreSQL refuses further statements in such a transaction; SQLite is made to behave the same,
 * so code that works on one dialect works on the other.
 */
export class TransactionAborted extends DatabaseError {}

function sqliteConstraintColumns(message: string): { table?: string; columns: string[] } {
  // "UNIQUE constraint failed: swaps.preimage_hash" or "...: t.a, t.b"
  const list = message.split(':').slice(1).join(':').trim();
  const parts = list.split(',').map((s) => s.trim()).filter(Boolean);
  const table = parts[0]?.includes('.') ? parts[0].split('.')[0] : undefined;
  return { table, columns: parts.map((p) => p.split('.').pop() ?? p) };
}

/** Maps a better-sqlite3 error to a typed error, or returns it unchanged. */
export function fromSqliteError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const { table, columns } = sqliteConstraintColumns((error as Error).message);
    return new UniqueViolation(table, columns, error);
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new ForeignKeyViolation('foreign key constraint violated', { cause: error });
  }
  return error;
}

/** Maps a pg error to a typed error, or returns it unchanged. */
export function fromPostgresError(error: unknown): unknown {
  const e = error as { code?: unknown; table?: string; detail?: string; constraint?: string };
  if (e?.code === '23505') {
    // detail: "Key (preimage_hash)=(ab12) already exists." or "Key (a, b)=(1, 2) already exists."
    const match = /^Key \((.+?)\)=/.exec(e.detail ?? '');
    const columns = match ? match[1].split(',').map((c) => c.trim().replace(/^"|"$/g, '')) : [];
    return new UniqueViolation(e.table, columns, error);
  }
  if (e?.code === '23503') {
    return new ForeignKeyViolation(`foreign key constraint violated: ${e.constraint ?? '?'}`, { cause: error });
  }
  return error;
}
