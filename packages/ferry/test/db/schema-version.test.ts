// Rolling upgrades' guard: a database a newer Ferry migrated is refused unless every migration this code lacks is
// marked compatible (it only expands the schema), and GET /version tells the code's schema from the database's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../../src/api/index.ts';
import { listen } from '../../src/api/http/server.ts';
import { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError, migrate, schemaVersion, type Database, type Migration } from '../../src/db/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { onBothDialects, type Harness } from './harness.ts';

/** What a newer Ferry's migration leaves in the bookkeeping table: the row, with or without the marker. */
async function newerMigration(db: Database, version: number, name: string, compatible: boolean): Promise<void> {
  await db.execute('INSERT INTO schema_migrations (version, name, applied_at, compatible) VALUES ($1, $2, 0, $3)', [version, name, compatible ? 1 : 0]);
}

/** A database at this code's schema, closed, with `newer` then applied by "a newer Ferry". */
async function migratedByNewer(h: Harness, newer: { name: string; compatible: boolean }[]): Promise<string> {
  const url = await h.freshUrl();
  const db = await h.open(url);
  for (const [i, m] of newer.entries()) await newerMigration(db, SCHEMA_VERSION + 1 + i, m.name, m.compatible);
  await db.close();
  return url;
}

async function versionOver(db: Database): Promise<{ status: number; json: Record<string, unknown> }[]> {
  const server = createApiServer({ chains: new Map(), lightning: {}, logger: silentLogger, maxBodyBytes: 1024, databaseSchemaVersion: () => schemaVersion(db) });
  const { port } = (await listen(server, 0, '127.0.0.1')) as AddressInfo;
  try {
    return await Promise.all(
      ['/version', '/v2/version'].map(async (path) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: response.status, json: (await response.json()) as Record<string, unknown> };
      }),
    );
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  }
}

test('the schema version the code expects is its highest migration', () => {
  assert.equal(SCHEMA_VERSION, MIGRATIONS.length);
  assert.equal(SCHEMA_VERSION, MIGRATIONS.at(-1)!.version);
});

onBothDialects('schema versions across a rolling upgrade', (h) => {
  test('a newer migration not marked compatible is refused, naming both versions and the migration', async () => {
    const url = await migratedByNewer(h, [{ name: 'drop the old column', compatible: false }]);
    await assert.rejects(h.open(url), (e) => {
      assert.ok(e instanceof SchemaTooNewError);
      assert.equal(e.databaseVersion, SCHEMA_VERSION + 1);
      assert.equal(e.codeVersion, SCHEMA_VERSION);
      assert.deepEqual(e.incompatible, [{ version: SCHEMA_VERSION + 1, name: 'drop the old column' }]);
      assert.equal(
        e.message,
        `database schema is at version ${SCHEMA_VERSION + 1}, but this Ferry knows migrations only up to ${SCHEMA_VERSION} ` +
          `and migration ${SCHEMA_VERSION + 1} "drop the old column" is not marked compatible with older code; ` +
          'upgrade Ferry or point it at another database',
      );
      return true;
    });
  });

  test('newer migrations all marked compatible are accepted, and the database keeps its version', async () => {
    const url = await migratedByNewer(h, [
      { name: 'add a table', compatible: true },
      { name: 'add a nullable column', compatible: true },
    ]);
    const db = await h.open(url, { migrate: false });
    assert.deepEqual(await migrate(db), { from: SCHEMA_VERSION + 2, to: SCHEMA_VERSION + 2 });
    assert.equal(await schemaVersion(db), SCHEMA_VERSION + 2, 'nothing applied, nothing rolled back');
    // the older instance's own tables still answer
    assert.deepEqual(await db.query('SELECT COUNT(*) AS n FROM swaps'), [{ n: 0 }]);
    const replies = await versionOver(db);
    for (const reply of replies) {
      assert.equal(reply.status, 200);
      assert.equal(reply.json.schemaVersion, SCHEMA_VERSION);
      assert.equal(reply.json.databaseSchemaVersion, SCHEMA_VERSION + 2);
      assert.equal(typeof reply.json.version, 'string');
    }
  });

  test('one incompatible migration among compatible ones is refused, and only it is named', async () => {
    const url = await migratedByNewer(h, [
      { name: 'add a table', compatible: true },
      { name: 'make a column NOT NULL', compatible: false },
    ]);
    await assert.rejects(h.open(url), (e) => {
      assert.ok(e instanceof SchemaTooNewError);
      assert.equal(e.databaseVersion, SCHEMA_VERSION + 2);
      assert.deepEqual(e.incompatible, [{ version: SCHEMA_VERSION + 2, name: 'make a column NOT NULL' }]);
      return true;
    });
  });

  test('the marker of a migration this code applies is recorded for the older code that meets it', async () => {
    const expanding: Migration = {
      version: SCHEMA_VERSION + 1,
      name: 'test_expanding',
      compatible: true,
      statements: () => ['CREATE TABLE test_expanding (id TEXT NOT NULL PRIMARY KEY)'],
    };
    const contracting: Migration = {
      version: SCHEMA_VERSION + 2,
      name: 'test_contracting',
      statements: () => ['DROP TABLE test_expanding'],
    };
    const url = await h.freshUrl();
    const db = await h.open(url, { migrations: [...MIGRATIONS, expanding] });
    assert.deepEqual(await db.query('SELECT version, compatible FROM schema_migrations WHERE version > $1', [SCHEMA_VERSION]), [
      { version: SCHEMA_VERSION + 1, compatible: 1 },
    ]);
    // the code that predates it runs beside it
    assert.deepEqual(await migrate(db), { from: SCHEMA_VERSION + 1, to: SCHEMA_VERSION + 1 });
    assert.deepEqual(await migrate(db, [...MIGRATIONS, expanding, contracting]), { from: SCHEMA_VERSION + 1, to: SCHEMA_VERSION + 2 });
    // once contracted, neither older code starts on it
    await assert.rejects(migrate(db), SchemaTooNewError);
    await assert.rejects(migrate(db, [...MIGRATIONS, expanding]), (e) => e instanceof SchemaTooNewError && e.codeVersion === SCHEMA_VERSION + 1);
  });

  test('a database from before the marker gets its column, and its version is unchanged', async () => {
    const url = await h.freshUrl();
    const db = await h.open(url);
    await db.execute('ALTER TABLE schema_migrations DROP COLUMN compatible');
    await db.close();
    const reopened = await h.open(url);
    assert.equal(await schemaVersion(reopened), SCHEMA_VERSION);
    assert.deepEqual(await reopened.query('SELECT COUNT(*) AS n FROM schema_migrations WHERE compatible = 0'), [{ n: SCHEMA_VERSION }]);
    const replies = await versionOver(reopened);
    assert.deepEqual(
      replies.map((r) => [r.json.schemaVersion, r.json.databaseSchemaVersion]),
      [
        [SCHEMA_VERSION, SCHEMA_VERSION],
        [SCHEMA_VERSION, SCHEMA_VERSION],
      ],
    );
  });
});
