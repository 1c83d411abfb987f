// Where the passphrase comes from: the file first (one final line break dropped), then FERRY_PASSPHRASE, which is
// taken out of the environment whichever is used, so no child process inherits it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { givenPassphrase, PassphraseError } from '../../src/secrets/passphrase.ts';

test('a file wins over FERRY_PASSPHRASE, and the variable leaves the environment either way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-passphrase-'));
  try {
    const file = join(dir, 'passphrase');
    writeFileSync(file, ' spaces kept \n');
    const env: NodeJS.ProcessEnv = { FERRY_PASSPHRASE: 'from the environment' };
    assert.deepEqual(givenPassphrase(file, env), { value: ' spaces kept ', from: `file ${file}` });
    assert.equal('FERRY_PASSPHRASE' in env, false);

    const only: NodeJS.ProcessEnv = { FERRY_PASSPHRASE: 'from the environment' };
    assert.deepEqual(givenPassphrase('', only), { value: 'from the environment', from: 'FERRY_PASSPHRASE' });
    assert.equal('FERRY_PASSPHRASE' in only, false);
    assert.equal(givenPassphrase('', {}), undefined);

    writeFileSync(file, '\n');
    assert.throws(() => givenPassphrase(file, {}), (error: Error) => error instanceof PassphraseError && error.message === `the passphrase file ${file} is empty`);
    assert.throws(() => givenPassphrase(join(dir, 'none'), {}), /cannot read the passphrase file .*none: ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
