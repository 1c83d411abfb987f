// The schema version as the operator meets it: `ferry --version` prints it, and `ferry start` refuses a database a
// newer Ferry migrated incompatibly (before it touches any node) while it opens one migrated compatibly.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION, openDatabase } from '../../src/db/index.ts';
import { version } from '../../src/version.ts';
import { ferryCommand, runFerry } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { Harness } from './harness.ts';

const dirs: string[] = [];
const harnesses = { sqlite: new Harness('sqlite'), postgres: new Harness('postgres') };
after(async () => {
  await Promise.all(Object.values(harnesses).map((h) => h.cleanup()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * `ferry start`'s environment on `databaseUrl` with no devnet and no nodes: start-up opens the database and only then
 * fails, for want of a bitcoin backend, so the database is all these runs decide on.
 */
function startEnv(databaseUrl: string): Record<string, string | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-schema-'));
  dirs.push(dataDir);
  return { ...process.env, ...ephemeralPorts, FERRY_DATA_DIR: dataDir, FERRY_DEVNET_ENABLED: 'false', FERRY_DATABASE_URL: databaseUrl, FERRY_LOG_FORMAT: 'json' };
}

/** A real database at this code's schema plus one migration of a newer Ferry, marked compatible or not. */
async function migratedByNewer(h: Harness, compatible: boolean): Promise<string> {
  const url = await h.freshUrl();
  const db = await openDatabase(url);
  await db.execute('INSERT INTO schema_migrations (version, name, applied_at, compatible) VALUES ($1, $2, 0, $3)', [SCHEMA_VERSION + 1, 'from a newer Ferry', compatible ? 1 : 0]);
  await db.close();
  return url;
}

test('ferry --version and ferry version print the database schema version the code expects', async () => {
  for (const args of [['--version'], ['version']]) {
    const run = await ferryCommand(process.env, ...args);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${version}\ndatabase schema ${SCHEMA_VERSION}\n`);
  }
});

for (const dialect of ['sqlite', 'postgres'] as const) {
  test(`ferry start refuses a ${dialect} database with a newer incompatible migration, naming both versions`, async () => {
    const run = await ferryCommand(startEnv(await migratedByNewer(harnesses[dialect], false)), 'start');
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(
      run.stderr,
      `ferry: database schema is at version ${SCHEMA_VERSION + 1}, but this Ferry knows migrations only up to ${SCHEMA_VERSION} ` +
        `and migration ${SCHEMA_VERSION + 1} "from a newer Ferry" is not marked compatible with older code; ` +
        'upgrade Ferry or point it at another database\n',
    );
    assert.doesNotMatch(run.stdout, /storage ready/);
  });

  test(`ferry start opens a ${dialect} database whose newer migration is marked compatible`, async () => {
    const ferry = runFerry(['start'], startEnv(await migratedByNewer(harnesses[dialect], true)));
    // it stops by itself, where any instance without nodes stops; every line is read once its pipes close
    const closed = new Promise<number | null>((resolve) => ferry.child.on('close', resolve));
    assert.equal(await closed, 1);
    const output = ferry.lines.join('\n');
    const ready = ferry.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((e) => e.message === 'storage ready');
    assert.equal(ready?.dialect, dialect, output);
    assert.match(output, /no bitcoin backend/, 'it got past the database');
    assert.doesNotMatch(output, /schema is at version/);
  });
}
