// One entry point for both stores: the URL picks the dialect.
import { migrate } from './migrator.ts';
import type { Migration } from './migrations.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';
import type { Database } from './types.ts';

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (created if missing); overrides a `?schema=` URL parameter. */
  schema?: string;
  /** PostgreSQL only: most pooled connections; default 10. */
  poolSize?: number;
  /** PostgreSQL only: distinct statement texts prepared by name per connection (0: none); default 500. */
  preparedStatements?: number;
  /** Apply pending migrations before returning; default true. */
  migrate?: boolean;
  /** The migration list to apply; defaults to Ferry's own. */
  migrations?: readonly Migration[];
}

export type DatabaseLocation = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string };

/**
 * `postgres://…` / `postgresql://…` → PostgreSQL; `sqlite:<path>`, `sqlite://<path>`,
 * `sqlite::memory:`, `:memory:` or a bare file path → SQLite.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url };
  if (/^sqlite:/i.test(url)) {
    const rest = url.slice('sqlite:'.length);
    return { dialect: 'sqlite', path: rest.startsWith('//') ? rest.slice(2) : rest };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw new Error(`unsupported database URL scheme: ${url}`);
  return { dialect: 'sqlite', path: url };
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  const location = parseDatabaseUrl(url);
  if (location.dialect === 'sqlite' && location.path === '') throw new Error(`no SQLite path in ${url}`);
  const db =
    location.dialect === 'sqlite'
      ? openSqlite(location.path)
      : await openPostgres(location.url, { schema: options.schema, poolSize: options.poolSize, preparedStatements: options.preparedStatements });
  if (options.migrate !== false) {
    try {
      await migrate(db, options.migrations);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return db;
}
