// Files only the operator's account may read: the data directory (0700) and the databases in it (0600). They are
// created with those modes, so no other account can open them in the moment between creation and a chmod. What an
// older version left wider is tightened once.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

const tighten = (path: string, mode: number) => {
  if ((statSync(path).mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
};

/** Creates the directory (and missing parents) 0700, or tightens an existing one to 0700. */
export function privateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
  tighten(path, DIR_MODE);
}

/**
 * Makes an SQLite database file 0600 before SQLite opens it: SQLite creates a database 0644 but its -wal and -shm
 * files with the database file's mode, so creating the database ourselves makes all three 0600.
 */
export function privateSqliteFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    tighten(path, FILE_MODE);
    for (const companion of [`${path}-wal`, `${path}-shm`]) if (existsSync(companion)) tighten(companion, FILE_MODE);
  }
}
