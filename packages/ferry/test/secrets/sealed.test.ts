// The sealed-secret format on its own: what it opens, what it refuses, and that an edited parameter fails like a
// wrong passphrase (the parameters are the cipher's associated data).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSealed, seal, SealedFileError, unseal, WrongPassphrase } from '../../src/secrets/sealed.ts';

const LIGHT = { logN: 10, r: 8, p: 1 }; // the format's checks, not scrypt's cost, are under test here

test('a sealed secret opens with its passphrase only, and is JSON with every parameter in it', async () => {
  const text = await seal('the secret words', 'pass phrase', LIGHT);
  assert.ok(isSealed(text));
  assert.ok(!isSealed('abandon abandon about\n'));
  assert.ok(!text.includes('secret words'));
  const envelope = JSON.parse(text);
  assert.deepEqual(envelope.kdf.logN, 10);
  assert.equal(envelope.cipher, 'xchacha20-poly1305');
  assert.equal(await unseal(text, 'pass phrase', 'the file'), 'the secret words');
  await assert.rejects(unseal(text, 'pass phrasE', 'the file'), (error: Error) => error instanceof WrongPassphrase && error.message === 'wrong passphrase for the file (or the file was altered)');
  // two seals of one secret differ (fresh salt and nonce)
  assert.notEqual(await seal('the secret words', 'pass phrase', LIGHT), text);
  await assert.rejects(seal('x', ''), SealedFileError);
});

test('an edited work factor or salt fails as a wrong passphrase does; an out-of-range one is refused unread', async () => {
  const envelope = JSON.parse(await seal('the secret words', 'pass phrase', LIGHT));
  const edited = (change: (e: any) => void) => {
    const copy = structuredClone(envelope);
    change(copy);
    return JSON.stringify(copy);
  };
  await assert.rejects(unseal(edited((e) => (e.kdf.logN = 11)), 'pass phrase', 'f'), WrongPassphrase);
  await assert.rejects(unseal(edited((e) => (e.kdf.salt = '00' + e.kdf.salt.slice(2))), 'pass phrase', 'f'), WrongPassphrase);
  await assert.rejects(unseal(edited((e) => (e.ciphertext = 'ff' + e.ciphertext.slice(2))), 'pass phrase', 'f'), WrongPassphrase);
  await assert.rejects(unseal(edited((e) => (e.kdf.logN = 30)), 'pass phrase', 'f'), /f: scrypt parameters out of range/);
  await assert.rejects(unseal(edited((e) => (e.version = 2)), 'pass phrase', 'f'), SealedFileError);
});
