// The passphrase asked on a terminal: `ferry keys` run in a pseudo-terminal (util-linux `script`) asks for it on the
// terminal, does not echo what is typed, and opens the mnemonic with it (or refuses a wrong one); `ferry keys
// encrypt` asks twice and encrypts nothing when the two differ. Skipped, saying why, where `script` is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isSealed } from '../../src/secrets/sealed.ts';
import { ferryBin } from '../helpers/ferry-process.ts';

const hasScript = spawnSync('script', ['--version']).status === 0;

/** `ferry ARGS` on a pseudo-terminal; each time `prompt` shows, the next of `typed` is typed (then Enter). */
function onTerminal(args: string[], env: Record<string, string>, typed: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, ferryBin, ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let asked = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    // a question is answered once it is on the screen: Ferry has turned echo off by then
    const questions = screen.match(/passphrase[^:\n]*: |the same again: /g)?.length ?? 0;
    while (asked < questions && asked < typed.length) child.stdin.write(typed[asked++] + '\r');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, screen })));
}

test('the passphrase is asked on the terminal without echo; encrypt asks twice', { skip: !hasScript && 'util-linux script is not installed' }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-prompt-'));
  try {
    const mnemonicPath = join(dataDir, 'mnemonic');
    writeFileSync(mnemonicPath, generateMnemonic(wordlist, 256) + '\n', { mode: 0o600 });
    const env = { FERRY_DATA_DIR: dataDir };

    const differ = await onTerminal(['keys', 'encrypt'], env, ['first try', 'second try']);
    assert.equal(differ.code, 1, differ.screen);
    assert.match(differ.screen, /the two passphrases differ: nothing was encrypted/);
    assert.ok(!isSealed(readFileSync(mnemonicPath, 'utf8')));

    const encrypted = await onTerminal(['keys', 'encrypt'], env, ['typed secret', 'typed secret']);
    assert.equal(encrypted.code, 0, encrypted.screen);
    assert.match(encrypted.screen, /new passphrase: \r?\nthe same again: \r?\nencrypted /);
    assert.ok(isSealed(readFileSync(mnemonicPath, 'utf8')));

    const shown = await onTerminal(['keys', 'show-xpub'], env, ['typed secret']);
    assert.equal(shown.code, 0, shown.screen);
    assert.match(shown.screen, new RegExp(`passphrase of ${mnemonicPath}: \\r?\\ntpub[1-9A-HJ-NP-Za-km-z]{100,}\\r?\\n`));
    assert.doesNotMatch(encrypted.screen + shown.screen, /typed secret/, 'what is typed is not echoed');

    const wrong = await onTerminal(['keys', 'show-xpub'], env, ['not it']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.screen, /wrong passphrase for .*mnemonic \(or the file was altered\): the passphrase from the terminal does not open it/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
