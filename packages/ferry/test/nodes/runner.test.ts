// `npm run test:nodes` without nodes says what it needs and runs nothing; a nodes file with a mistake is refused
// with the key named before anything starts; the example it prints is a valid nodes file and the one docs show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODES_EXAMPLE, NodesFileError, parseNodes } from './nodes-file.ts';

const runner = new URL('../../scripts/test-nodes.mjs', import.meta.url).pathname;

async function testNodes(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'FERRY_NODES' && name !== 'FERRY_NODES_FILE'));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [runner, ...args], { env: { ...clean, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return failed;
  }
}

test('without nodes it prints the format with an example and exits 0, having run nothing', async () => {
  const { code, stdout } = await testNodes([]);
  assert.equal(code, 0);
  assert.match(stdout, /No nodes configured: nothing was run/);
  assert.ok(stdout.includes(NODES_EXAMPLE), 'the example nodes file');
  assert.doesNotMatch(stdout, /^ℹ tests/m, 'no test runner started');
});

test('a nodes file with a mistake is refused naming it, before anything runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-nodes-runner-'));
  try {
    const file = join(dir, 'nodes.toml');
    writeFileSync(file, NODES_EXAMPLE.replace(/\[counterparty\][^]*$/, ''));
    const missing = await testNodes(['--nodes', file]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nodes\.toml: \[counterparty\] is required/);
    const fromEnv = await testNodes([], { FERRY_NODES: NODES_EXAMPLE.replace('[user.liquid]', '[user.lightning]') });
    assert.equal(fromEnv.code, 2);
    assert.match(fromEnv.stderr, /FERRY_NODES: unknown key user\.lightning/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the example is a nodes file: TOML and the same as JSON; docs show the same text', () => {
  const nodes = parseNodes(NODES_EXAMPLE, 'example');
  assert.equal(nodes.user.bitcoin.rpcUrl, 'http://127.0.0.1:18443', "the user's wallet is on Ferry's node unless told otherwise");
  assert.equal(nodes.user.bitcoin.rpcUser, 'ferry');
  assert.equal(nodes.user.liquid?.wallet, 'user');
  assert.ok(nodes.user.evm?.privateKey);
  assert.equal(nodes.counterparty.kind, 'lnd');
  const json = parseNodes(JSON.stringify({ ferry: nodes.ferry, user: { bitcoin: { wallet: 'user' }, liquid: { wallet: 'user' }, evm: nodes.user.evm }, counterparty: nodes.counterparty }), 'json');
  const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown; // TOML tables have no prototype
  assert.deepEqual(plain({ ...json, source: 'example' }), plain(nodes));
  assert.ok(readFileSync(new URL('../../../../docs/node-suite.md', import.meta.url), 'utf8').includes(NODES_EXAMPLE), 'docs/node-suite.md shows the example');
});

test('what each chain needs: the user side of a configured chain, real nodes only', () => {
  const refused = (text: string, pattern: RegExp) => assert.throws(() => parseNodes(text, 'f'), (error: unknown) => error instanceof NodesFileError && pattern.test(error.message));
  refused(NODES_EXAMPLE.replace('[user.liquid]\nwallet = "user"\n', ''), /f: \[user\.liquid\] is required: ferry\.liquid\.rpcUrl is configured/);
  refused(NODES_EXAMPLE.replace(/\[user\.evm\]\nprivateKey = .*\n/, ''), /\[user\.evm\] privateKey is required/);
  refused(NODES_EXAMPLE.replace('rpcUrl = "http://127.0.0.1:18443"\n', ''), /ferry\.bitcoin\.rpcUrl is required/);
  refused(NODES_EXAMPLE.replace('kind = "lnd"', 'kind = "eclair"'), /counterparty\.kind must be "lnd" or "cln"/);
  // Without Liquid and EVM sections, their user sides are not needed.
  const btcOnly = NODES_EXAMPLE.replace(/\[ferry\.liquid\][^[]*/, '').replace(/\[ferry\.evm\][^]*?(?=# The user)/, '');
  const nodes = parseNodes(btcOnly, 'f');
  assert.equal(nodes.user.liquid, undefined);
  assert.equal(nodes.user.evm, undefined);
});
