// The restore drill on PostgreSQL (restore-drill.ts): Ferry's schema is backed up with PostgreSQL's own pg_dump while
// Ferry runs (one consistent snapshot), lost with the data directory (DROP SCHEMA), and put back with pg_restore.
// `ferry admin backup` refuses here and names pg_dump.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { POSTGRES_URL } from '../db/harness.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { restoreDrill } from './restore-drill.ts';

const exec = promisify(execFile);
const schema = `ferry_restore_${randomBytes(6).toString('hex')}`;

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

after(() => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));

const drill = restoreDrill('ferry-restore-postgres-', () => ({
  databaseUrl: `${POSTGRES_URL}?schema=${schema}`,
  async backup({ env }, file) {
    const refused = await ferryCommand({ ...process.env, ...env }, 'admin', 'backup', `${file}.sqlite`);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /pg_dump/, 'Ferry names the tool that backs up PostgreSQL');
    await exec('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${file}`, `--dbname=${POSTGRES_URL}`]);
  },
  async lose() {
    await sql(`DROP SCHEMA "${schema}" CASCADE`);
  },
  async restore(file) {
    await exec('pg_restore', ['--exit-on-error', `--dbname=${POSTGRES_URL}`, file]);
  },
}));

test('restore drill on PostgreSQL (pg_dump, pg_restore): every swap ends as it would have, nothing paid twice', { timeout: 600_000 }, () => drill.run());
