// `ferry keys rotate` as an operator runs it, with real `ferry` processes: the encrypted mnemonic and HMAC keys get
// the new passphrase (the old one no longer opens them, the words and the xpub are unchanged); a wrong current
// passphrase exits 1 and leaves every file byte for byte as it was, with no staged file left beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isSealed, unseal, WrongPassphrase } from '../../src/secrets/sealed.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';

const keys = (env: Record<string, string>, ...args: string[]) => {
  const base = { ...process.env };
  delete base.FERRY_PASSPHRASE;
  delete base.FERRY_PASSPHRASE_FILE;
  return ferryCommand({ ...base, ...env }, 'keys', ...args);
};

test('ferry keys rotate re-encrypts every secret with the new passphrase; a wrong current one changes nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-rotate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  const mnemonic = generateMnemonic(wordlist, 256);
  const files = { mnemonic: join(dataDir, 'mnemonic'), webhook: join(dataDir, 'webhook-secret') };
  const passphrases = { old: join(dir, 'old'), next: join(dir, 'next'), wrong: join(dir, 'wrong') };
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(files.mnemonic, mnemonic + '\n', { mode: 0o600 });
  writeFileSync(files.webhook, 'a0b1c2d3e4f5\n', { mode: 0o600 });
  writeFileSync(passphrases.old, 'the old passphrase\n');
  writeFileSync(passphrases.next, 'the new passphrase\n');
  writeFileSync(passphrases.wrong, 'not the old one\n');
  const env = { FERRY_DATA_DIR: dataDir };

  const xpub = await keys(env, 'show-xpub');
  assert.equal(xpub.code, 0, xpub.stderr);
  const encrypted = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.old }, 'encrypt');
  assert.equal(encrypted.code, 0, encrypted.stderr);
  const sealedBefore = Object.fromEntries(Object.entries(files).map(([k, path]) => [k, readFileSync(path, 'utf8')]));
  assert.ok(Object.values(sealedBefore).every(isSealed));

  // a wrong current passphrase: exit 1, a clear message, every file as it was, nothing staged
  const refused = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.wrong, FERRY_NEW_PASSPHRASE_FILE: passphrases.next }, 'rotate');
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /^ferry keys rotate: .*does not open it\n$/);
  assert.doesNotMatch(refused.stderr, /not the old one|the new passphrase/);
  for (const [k, path] of Object.entries(files)) assert.equal(readFileSync(path, 'utf8'), sealedBefore[k], `${path} unchanged`);
  assert.deepEqual(readdirSync(dataDir).sort(), ['mnemonic', 'webhook-secret']);

  // no new passphrase given (no terminal here): refused before any file is touched
  const noNew = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.old }, 'rotate');
  assert.equal(noNew.code, 1);
  assert.match(noNew.stderr, /no new passphrase/);
  for (const [k, path] of Object.entries(files)) assert.equal(readFileSync(path, 'utf8'), sealedBefore[k]);

  const rotated = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.old, FERRY_NEW_PASSPHRASE_FILE: passphrases.next }, 'rotate');
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.equal(rotated.stdout, `rotated ${files.mnemonic}\nrotated ${files.webhook}\n`);
  assert.deepEqual(readdirSync(dataDir).sort(), ['mnemonic', 'webhook-secret'], 'no staged file left');
  for (const path of Object.values(files)) {
    const text = readFileSync(path, 'utf8');
    assert.ok(isSealed(text));
    await assert.rejects(unseal(text, 'the old passphrase', path), WrongPassphrase, 'the old passphrase no longer opens it');
  }
  assert.equal(await unseal(readFileSync(files.mnemonic, 'utf8'), 'the new passphrase', files.mnemonic), mnemonic);
  assert.equal(await unseal(readFileSync(files.webhook, 'utf8'), 'the new passphrase', files.webhook), 'a0b1c2d3e4f5');

  // ferry opens them with the new passphrase only: the same xpub
  const after = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.next }, 'show-xpub');
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, xpub.stdout);
  const old = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphrases.old }, 'show-xpub');
  assert.equal(old.code, 1);
});
