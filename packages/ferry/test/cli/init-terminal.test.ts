// `ferry init` typed on a terminal (a pseudo-terminal from util-linux `script`): each question answered once it
// shows, the answers echoed but the RPC password's, and the file written from them; the doctor then fails the
// unreachable nodes (exit 1), which is its verdict, not init's. Skipped, saying why, where `script` is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { parse } from 'smol-toml';
import { ferryBin } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

const hasScript = spawnSync('script', ['--version']).status === 0;

test('ferry init on a terminal: questions answered as they show, the password not echoed', { skip: !hasScript && 'util-linux script is not installed', timeout: 300_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'ferry-init-tty-'));
  try {
    const configPath = join(root, 'ferry.toml');
    const macaroon = 'ab'.repeat(40);
    const answers = ['regtest', join(root, 'data'), 'http://127.0.0.1:9', 'ferry-rpc', 'typed-password', '', '', '', 'lnd', 'http://127.0.0.1:9', macaroon, '', '', ''];
    const command = [process.execPath, ferryBin, 'init', '--config', configPath].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...ephemeralPorts }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let answered = 0;
    let answeredAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      screen += stripVTControlCharacters(chunk.toString()); // readline's cursor moves
      // a question waits when the screen ends with one ("...: "), shown since the last answer
      if (screen.endsWith(': ') && screen.length > answeredAt && answered < answers.length) {
        answeredAt = screen.length;
        child.stdin.write(answers[answered++] + '\r');
      }
    });
    const code = await new Promise((resolve) => child.on('exit', resolve)).finally(() => child.kill());
    assert.equal(answered, answers.length, screen);
    assert.equal(code, 1, screen); // the doctor: nothing listens on port 9
    assert.match(screen, /Bitcoin Core RPC user: ferry-rpc\r*\n/);
    assert.match(screen, /Bitcoin Core RPC password: \r*\nBitcoin Core wallet/);
    assert.doesNotMatch(screen, /typed-password/);
    assert.match(screen, /reachable +bitcoin +FAIL/);
    const written = JSON.parse(JSON.stringify(parse(readFileSync(configPath, 'utf8'))));
    assert.deepEqual(written.bitcoin, { rpcUrl: 'http://127.0.0.1:9', rpcUser: 'ferry-rpc', rpcPassword: 'typed-password', wallet: 'ferry' });
    assert.deepEqual(written.lightning, { backend: 'lnd', restUrl: 'http://127.0.0.1:9', macaroon });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
