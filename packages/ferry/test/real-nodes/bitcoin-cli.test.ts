// The project's bitcoin-cli stand-in (scripts/real-nodes/bitcoin-cli.mjs) against the devnet's Bitcoin node, called
// as lightningd's bcli calls it: password and arguments on stdin (-stdinrpcpass -stdin), JSON arguments converted,
// a string result printed raw, other results as the node's JSON text with its number text kept (0.00001000), RPC
// errors as `error code:` / `error message:` with exit status |code|. Needs no lightningd: runs in every test run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';

const CLI = resolve(import.meta.dirname, '../../scripts/real-nodes/bitcoin-cli.mjs');

describe('bitcoin-cli stand-in', () => {
  let dataDir: string;
  let devnet: BitcoinDevnet;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-bitcoin-cli-'));
    devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  });
  after(async () => {
    await devnet?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs the stand-in as bcli does (async: the devnet answers from this process). */
  function cli(args: string[], stdinArgs: string[] = [], extra: string[] = []): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const url = new URL(devnet.rpcUrl);
    const { NODE_OPTIONS: _testRunOptions, ...env } = process.env;
    const child = spawn(CLI, ['-regtest', `-rpcconnect=${url.hostname}`, `-rpcport=${url.port}`, `-rpcuser=${devnet.rpcUser}`, '-stdinrpcpass', ...extra, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end([devnet.rpcPassword, ...stdinArgs].join('\n') + '\n');
    return new Promise((done) => child.on('close', (status) => done({ status, stdout, stderr })));
  }

  test('arguments on stdin, a string result printed raw', async () => {
    const genesis = await cli(['getblockhash'], ['0'], ['-stdin']);
    assert.equal(genesis.status, 0, genesis.stderr);
    assert.equal(genesis.stdout, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206\n');
  });

  test("a JSON result as the node wrote it: amounts keep Core's 8 decimals", async () => {
    const fee = await cli(['estimatesmartfee'], ['2', 'CONSERVATIVE'], ['-stdin']);
    assert.equal(fee.status, 0, fee.stderr);
    assert.match(fee.stdout, /"feerate":0\.\d{8}[,}]/);
    const mempool = await cli(['getmempoolinfo'], [], ['-rpcwait', '-rpcwaittimeout=1']);
    assert.match(mempool.stdout, /"mempoolminfee":0\.00001000,/);
  });

  test('an RPC error: code and message on stderr, exit status |code|, nothing on stdout', async () => {
    const out = await cli(['getblockhash', '999999']);
    assert.equal(out.status, 8);
    assert.equal(out.stdout, '');
    assert.equal(out.stderr, 'error code: -8\nerror message:\nBlock height out of range\n');
  });

  test('a null result prints nothing', async () => {
    const out = await cli(['gettxout', '00'.repeat(32), '0']);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout, '');
  });
});
