// The restore drill on SQLite (restore-drill.ts): the backup is `ferry admin backup FILE` taken while Ferry runs;
// restoring is copying the file back to <dataDir>/ferry.sqlite.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs): what is recovered after the backup is read from the node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { restoreDrill } from './restore-drill.ts';

const drill = restoreDrill('ferry-restore-sqlite-', () => ({
  async backup({ env }, file) {
    const taken = await ferryCommand({ ...process.env, ...env }, 'admin', 'backup', file);
    assert.equal(taken.code, 0, taken.stderr);
    assert.equal(JSON.parse(taken.stdout).file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup holds preimages: the operator alone reads it');
    const again = await ferryCommand({ ...process.env, ...env }, 'admin', 'backup', file);
    assert.equal(again.code, 1, 'a backup never overwrites a file');
    assert.match(again.stderr, /exists/);
  },
  async lose() {},
  async restore(file, dataDir) {
    copyFileSync(file, join(dataDir, 'ferry.sqlite'));
  },
}));

test('restore drill on SQLite: every swap ends as it would have, nothing paid twice', { timeout: 600_000 }, () => drill.run());
