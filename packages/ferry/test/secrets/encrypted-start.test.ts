// Keys at rest as an operator uses them, with real `ferry` processes against a `ferry devnet` process: a restored
// plaintext mnemonic is encrypted with `ferry keys encrypt`, `ferry start` opens it with the passphrase from a file
// and makes its swap keys from it (a reverse swap's key is a child of the xpub `ferry keys show-xpub` printed), a
// wrong passphrase stops start-up with a clear error before anything runs, and a mainnet Ferry refuses a plaintext
// mnemonic unless told otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from '@scure/bip32';
import { hex } from '@scure/base';
import { isSealed } from '../../src/secrets/sealed.ts';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { devnetNodesEnv, ferryCommand, runFerry } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { requestReverse, SwapApi } from '../helpers/swap-api.ts';

const devnet = useDevnetProcess('ferry-keys-');
const PASSPHRASE = 'a long passphrase, only in its file';
const TPUB = { private: 0x04358394, public: 0x043587cf };

/** A data directory holding a plaintext mnemonic (a restored backup), and files with the right and a wrong passphrase. */
function operatorDir(name: string) {
  const dataDir = join(devnet.root, name);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mnemonic = generateMnemonic(wordlist, 256);
  writeFileSync(join(dataDir, 'mnemonic'), mnemonic + '\n', { mode: 0o600 });
  const passphraseFile = join(devnet.root, `${name}.passphrase`);
  writeFileSync(passphraseFile, PASSPHRASE + '\n', { mode: 0o600 });
  const wrongFile = join(devnet.root, `${name}.wrong`);
  writeFileSync(wrongFile, 'not the passphrase\n', { mode: 0o600 });
  return { dataDir, mnemonic, passphraseFile, wrongFile };
}

const parsed = (line: string): Record<string, any> => JSON.parse(line);

const keys = (env: Record<string, string>, ...args: string[]) => ferryCommand({ ...process.env, ...ephemeralPorts, ...env }, 'keys', ...args);

test('an encrypted mnemonic starts Ferry with the passphrase from a file; a wrong passphrase is refused with a clear error', async () => {
  await devnet.ready;
  const { dataDir, mnemonic, passphraseFile, wrongFile } = operatorDir('ferry');
  const mnemonicPath = join(dataDir, 'mnemonic');
  const env = { FERRY_DATA_DIR: dataDir };

  const plainXpub = await keys(env, 'show-xpub');
  assert.equal(plainXpub.code, 0, plainXpub.stderr);
  const xpub = plainXpub.stdout.trim();
  assert.match(xpub, /^tpub/);

  const encrypted = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphraseFile }, 'encrypt');
  assert.equal(encrypted.code, 0, encrypted.stderr);
  assert.match(encrypted.stdout, new RegExp(`encrypted ${mnemonicPath}`));
  const sealed = readFileSync(mnemonicPath, 'utf8');
  assert.ok(isSealed(sealed), sealed);
  for (const word of new Set(mnemonic.split(' '))) assert.ok(!new RegExp(`\\b${word}\\b`).test(sealed), `the word ${word} is in the file`);
  assert.equal(statSync(mnemonicPath).mode & 0o777, 0o600);

  // without a passphrase (no terminal here), and with a wrong one: refused before anything starts
  const none = await keys(env, 'show-xpub');
  assert.equal(none.code, 1);
  assert.match(none.stderr, /mnemonic is encrypted and no passphrase was given: give it with secrets\.passphraseFile/);
  const wrongStart = runFerry(['start'], { ...ephemeralPorts, ...devnetNodesEnv(devnet.info), ...env, FERRY_PASSPHRASE_FILE: wrongFile });
  assert.equal(await wrongStart.exited, 1, wrongStart.lines.join('\n'));
  const refusal = wrongStart.lines.join('\n');
  assert.match(refusal, new RegExp(`ferry: wrong passphrase for ${mnemonicPath} \\(or the file was altered\\): the passphrase from file ${wrongFile} does not open it`));
  assert.doesNotMatch(refusal, /API listening|devnet|storage ready/);
  assert.equal(readFileSync(mnemonicPath, 'utf8'), sealed, 'a refused start leaves the file as it was');

  const ferry = await devnet.startFerry({ ...env, FERRY_PASSPHRASE_FILE: passphraseFile });
  const opened = ferry.process.lines.map(parsed).find((entry) => entry.message === 'mnemonic decrypted');
  assert.deepEqual({ path: opened?.path, passphrase: opened?.passphrase }, { path: mnemonicPath, passphrase: `file ${passphraseFile}` });
  assert.ok(!ferry.process.lines.some((line) => line.includes(PASSPHRASE)), 'the passphrase is never logged');

  // Ferry's key of a new reverse swap derives from the encrypted mnemonic's account xpub
  const api = new SwapApi(ferry.apiUrl);
  const pairs = await api.expect('GET', '/v2/swap/reverse', undefined, 200);
  const { body } = await requestReverse(api, 'BTC', 'BTC', pairs.BTC.BTC.hash, 50_000);
  const account = HDKey.fromExtendedKey(xpub, TPUB);
  const children = Array.from({ length: 50 }, (_, index) => hex.encode(account.deriveChild(index).publicKey!));
  assert.ok(children.includes(body.refundPublicKey), `Ferry's key ${body.refundPublicKey} is not a child of ${xpub}`);
  // the swap's log lines are JSON and carry its id
  const isCreated = (entry: Record<string, unknown>) => entry.message === 'reverse swap created' && entry.swap === body.id;
  const created = ferry.process.lines.map(parsed).find(isCreated) ?? (await ferry.process.waitFor(isCreated));
  assert.equal(created.component, 'engine');
  // the HMAC key made at this start is sealed too (a passphrase was at hand)
  assert.ok(isSealed(readFileSync(join(dataDir, 'webhook-secret'), 'utf8')));

  ferry.process.child.kill('SIGTERM');
  assert.equal(await ferry.process.exited, 0);

  // show-xpub opens it the same way; decrypt turns every secret back into plain text, the same words
  const sealedXpub = await keys({ ...env, FERRY_PASSPHRASE: PASSPHRASE }, 'show-xpub');
  assert.equal(sealedXpub.stdout.trim(), xpub);
  const wrongDecrypt = await keys({ ...env, FERRY_PASSPHRASE_FILE: wrongFile }, 'decrypt');
  assert.equal(wrongDecrypt.code, 1);
  assert.equal(readFileSync(mnemonicPath, 'utf8'), sealed);
  const decrypted = await keys({ ...env, FERRY_PASSPHRASE_FILE: passphraseFile }, 'decrypt');
  assert.equal(decrypted.code, 0, decrypted.stderr);
  assert.equal(readFileSync(mnemonicPath, 'utf8'), mnemonic + '\n');
  assert.match(readFileSync(join(dataDir, 'webhook-secret'), 'utf8'), /^[0-9a-f]{64}\n$/);
});

test('on mainnet Ferry refuses a plaintext mnemonic unless secrets.allowPlaintextMainnet, and makes a new one encrypted', async () => {
  await devnet.ready;
  const { dataDir, passphraseFile } = operatorDir('mainnet');
  const mainnet = { ...ephemeralPorts, ...devnetNodesEnv(devnet.info), FERRY_DATA_DIR: dataDir, FERRY_NETWORK: 'mainnet' };
  const refused = runFerry(['start'], mainnet);
  assert.equal(await refused.exited, 1);
  assert.match(refused.lines.join('\n'), /the mnemonic .*mnemonic is in plain text: on mainnet encrypt it first \(ferry keys encrypt\), or set secrets\.allowPlaintextMainnet = true/);

  // allowed: past the mnemonic (the devnet's regtest nodes then fail the network check, which names mainnet)
  const allowed = runFerry(['start'], { ...mainnet, FERRY_ALLOW_PLAINTEXT_MAINNET: 'true' });
  assert.equal(await allowed.exited, 1);
  const allowedOutput = allowed.lines.join('\n');
  assert.match(allowedOutput, /the mnemonic is in plain text on mainnet/);
  assert.match(allowedOutput, /refusing to start: .*checks? failed/);

  // no mnemonic yet: made encrypted with the given passphrase, and refused without one
  const fresh = join(devnet.root, 'mainnet-fresh');
  const noPassphrase = runFerry(['start'], { ...mainnet, FERRY_DATA_DIR: fresh });
  assert.equal(await noPassphrase.exited, 1);
  assert.match(noPassphrase.lines.join('\n'), /no mnemonic yet at .*, and on mainnet Ferry makes it encrypted only/);
  const made = runFerry(['start'], { ...mainnet, FERRY_DATA_DIR: fresh, FERRY_PASSPHRASE_FILE: passphraseFile });
  assert.equal(await made.exited, 1); // the network check again
  assert.ok(isSealed(readFileSync(join(fresh, 'mnemonic'), 'utf8')));
  const xpub = await keys({ FERRY_DATA_DIR: fresh, FERRY_NETWORK: 'mainnet', FERRY_PASSPHRASE_FILE: passphraseFile }, 'show-xpub');
  assert.match(xpub.stdout, /^xpub/);
});
