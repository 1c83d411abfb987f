// Ferry's files are the operator's alone: a real Ferry on its devnet, started on a data directory that does not
// exist yet under the common umask 022, leaves the directory 0700 and every SQLite file (its own and the devnet's,
// with their -wal and -shm) 0600. An older install's wider modes are tightened on the next start.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateDirectory, privateSqliteFile } from '@ferry/sdk/fs/private.js';
import { openSqlite } from '../../src/db/sqlite.ts';
import { startV1World } from '../api/v1-support.ts';

const root = mkdtempSync(join(tmpdir(), 'ferry-perms-'));
after(() => rmSync(root, { recursive: true, force: true }));
process.umask(0o022);

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

test('a fresh data directory is 0700; ferry.sqlite, its -wal and -shm and the devnet databases are 0600', async () => {
  const dataDir = join(root, 'fresh', 'data');
  const world = await startV1World({}, (config) => {
    config.dataDir = dataDir;
  });
  try {
    assert.equal(mode(dataDir), '700');
    const databases = ['ferry.sqlite', 'bitcoin/node.sqlite', 'elements/node.sqlite'];
    for (const database of databases) {
      for (const file of [database, `${database}-wal`, `${database}-shm`]) {
        const path = join(dataDir, file);
        assert.ok(existsSync(path), `${file} exists (WAL mode keeps -wal and -shm while open)`);
        assert.equal(mode(path), '600', file);
      }
    }
    assert.equal(mode(join(dataDir, 'mnemonic')), '600');
  } finally {
    await world.close();
  }
});

test('wider modes left by an older version are tightened, the -wal and -shm with the database', () => {
  const dir = join(root, 'old');
  privateDirectory(dir);
  chmodSync(dir, 0o755);
  const path = join(dir, 'ferry.sqlite');
  const db = openSqlite(path);
  db.close();
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o644);
  privateDirectory(dir);
  privateSqliteFile(path);
  assert.equal(mode(dir), '700');
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) assert.equal(mode(file), '600', file);
});
