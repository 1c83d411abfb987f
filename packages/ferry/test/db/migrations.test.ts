import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIGRATIONS, SchemaTooNewError, migrate, schemaVersion, type Migration } from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

const TABLES = ['chain_checkpoints', 'swaps', 'swap_effects', 'counters', 'kv'];
const LATEST = MIGRATIONS.length;

const extraTable: Migration = {
  version: LATEST + 1,
  name: 'test_extra_table',
  statements: () => ['CREATE TABLE test_extra (id TEXT NOT NULL PRIMARY KEY)'],
};

const brokenMigration: Migration = {
  version: LATEST + 1,
  name: 'test_broken',
  statements: () => ['CREATE TABLE half_done (id TEXT NOT NULL PRIMARY KEY)', 'CREATE TABLE oops (id NOT A TYPE AT ALL ('],
};

onBothDialects('migrations', (h) => {
  test('a fresh database gets every table and the latest version', async () => {
    const db = await h.open();
    assert.equal(await schemaVersion(db), LATEST);
    for (const table of TABLES) assert.deepEqual(await db.query(`SELECT COUNT(*) AS n FROM ${table}`), [{ n: 0 }]);
    const applied = await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    assert.deepEqual(
      applied,
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
  });

  test('re-opening is idempotent and keeps the data', async () => {
    const url = await h.freshUrl();
    const first = await h.open(url);
    await first.execute('INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, 0)', ['k', 'v']);
    await first.close();
    const second = await h.open(url);
    assert.deepEqual(await migrate(second), { from: LATEST, to: LATEST });
    assert.deepEqual(await second.query('SELECT COUNT(*) AS n FROM schema_migrations'), [{ n: LATEST }]);
    assert.deepEqual(await second.query('SELECT value FROM kv WHERE key = $1', ['k']), [{ value: 'v' }]);
  });

  test('a database migrated by a newer Ferry is refused with a clear error', async () => {
    const url = await h.freshUrl();
    const db = await h.open(url);
    await db.execute('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 0)', [
      LATEST + 1,
      'from_the_future',
    ]);
    await db.close();
    await assert.rejects(h.open(url), (e) => {
      assert.ok(e instanceof SchemaTooNewError);
      assert.equal(e.databaseVersion, LATEST + 1);
      assert.equal(e.codeVersion, LATEST);
      assert.match(e.message, new RegExp(`version ${LATEST + 1}.*up to ${LATEST}`));
      return true;
    });
    const raw = await h.open(url, { migrate: false });
    assert.equal(await schemaVersion(raw), LATEST + 1);
  });

  test('only the migrations a database lacks are applied', async () => {
    const url = await h.freshUrl();
    const db = await h.open(url);
    await db.execute('INSERT INTO counters (name, value) VALUES ($1, 7)', ['kept']);
    await db.close();
    const upgraded = await h.open(url, { migrate: false });
    assert.deepEqual(await migrate(upgraded, [...MIGRATIONS, extraTable]), { from: LATEST, to: LATEST + 1 });
    assert.equal(await schemaVersion(upgraded), LATEST + 1);
    assert.deepEqual(await upgraded.query('SELECT COUNT(*) AS n FROM test_extra'), [{ n: 0 }]);
    assert.deepEqual(await upgraded.query('SELECT value FROM counters WHERE name = $1', ['kept']), [{ value: 7 }]);
  });

  test('a migration that fails half-way leaves the database as it was', async () => {
    const url = await h.freshUrl();
    await (await h.open(url)).close();
    await assert.rejects(h.open(url, { migrations: [...MIGRATIONS, brokenMigration] }));
    const db = await h.open(url);
    assert.equal(await schemaVersion(db), LATEST);
    await assert.rejects(db.query('SELECT COUNT(*) AS n FROM half_done'));
  });

  test('a failed first migration leaves no tables behind', async () => {
    const url = await h.freshUrl();
    await assert.rejects(h.open(url, { migrations: [{ ...brokenMigration, version: 1 }] }));
    const db = await h.open(url, { migrate: false });
    await assert.rejects(db.query('SELECT COUNT(*) AS n FROM schema_migrations'));
    await assert.rejects(db.query('SELECT COUNT(*) AS n FROM half_done'));
  });

  test('a migration list with a gap is rejected before touching the database', async () => {
    const url = await h.freshUrl();
    await assert.rejects(
      h.open(url, { migrations: [...MIGRATIONS, { ...extraTable, version: LATEST + 2 }] }),
      /expected \d+/,
    );
  });

  test('instances starting together migrate once', async () => {
    const url = await h.freshUrl();
    const dbs = await Promise.all([h.open(url), h.open(url), h.open(url)]);
    assert.deepEqual(await dbs[0].query('SELECT COUNT(*) AS n FROM schema_migrations'), [{ n: LATEST }]);
    for (const db of dbs) assert.equal(await schemaVersion(db), LATEST);
  });
});
