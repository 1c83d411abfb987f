// `ferry admin backup FILE`: a consistent copy of the live SQLite database, taken while Ferry runs (SQLite's online
// backup API), written 0600 (it holds preimages and key indexes) under a temporary name and renamed when complete, so
// a FILE that exists is always a whole backup. PostgreSQL is backed up with its own tools (pg_dump), not by Ferry:
// docs/operating.md#backups.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { Database } from '../db/index.ts';
import { SqliteDatabase } from '../db/sqlite.ts';
import { privateSqliteFile } from '@ferry/sdk/fs/private.js';
import { AdminError } from './service.ts';

export interface BackupTaken {
  file: string;
  bytes: number;
  /** When the copy was complete: what happened after it is recovered from the chains and the node on restore. */
  takenAt: string;
}

export async function backupDatabase(database: Database, file: string): Promise<BackupTaken> {
  if (!(database instanceof SqliteDatabase)) {
    throw new AdminError(409, 'Ferry stores its swaps in PostgreSQL here: back it up with pg_dump (see docs/operating.md, Backups)');
  }
  if (!isAbsolute(file)) throw new AdminError(400, `backup file must be an absolute path: ${file}`);
  if (!existsSync(dirname(file))) throw new AdminError(400, `no such directory: ${dirname(file)}`);
  if (existsSync(file)) throw new AdminError(409, `${file} exists: a backup never overwrites a file`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  privateSqliteFile(partial);
  try {
    await database.backup(partial);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  return { file, bytes: statSync(file).size, takenAt: new Date().toISOString() };
}
