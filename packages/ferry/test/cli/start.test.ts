// `ferry start` as an operator runs it: zero-config apart from ports and data directory, over real sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.ts';
import { SCHEMA_VERSION } from '../../src/db/index.ts';
import { ferryCommand, runFerry } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

test('ferry start serves chain heights from its embedded devnet and stops cleanly on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-start-'));
  const env = { FERRY_DATA_DIR: dataDir, ...ephemeralPorts };
  const ferry = runFerry(['start'], env);
  try {
    const listening = await ferry.waitFor((e) => e.message === 'API listening');
    const url = listening.url as string;

    const heights = await (await fetch(`${url}/v2/chain/heights`)).json();
    // Zero-config serves Liquid too, on the devnet's Elements node, and RBTC on its anvil.
    assert.deepEqual(Object.keys(heights), ['BTC', 'L-BTC', 'RBTC']);
    assert.ok(Number.isInteger(heights.BTC) && heights.BTC >= 101, `funded devnet has mature coins: ${heights.BTC}`);
    assert.ok(Number.isInteger(heights['L-BTC']) && heights['L-BTC'] >= 101, `funded Elements devnet: ${heights['L-BTC']}`);
    assert.deepEqual(await (await fetch(`${url}/v2/chain/BTC/height`)).json(), { height: heights.BTC });
    assert.deepEqual(await (await fetch(`${url}/v2/chain/L-BTC/height`)).json(), { height: heights['L-BTC'] });

    const fees = await (await fetch(`${url}/v2/chain/fees`)).json();
    assert.ok(typeof fees.BTC === 'number' && fees.BTC >= 1);
    assert.equal(fees['L-BTC'], 0.1, "Liquid's relay floor");
    const versions = await (await fetch(`${url}/version`)).json();
    assert.equal(typeof versions.version, 'string');
    // the schema this code expects, and the one of the database it runs on (the same: it migrated it at start)
    assert.deepEqual([versions.schemaVersion, versions.databaseSchemaVersion], [SCHEMA_VERSION, SCHEMA_VERSION]);

    // The `ferry devnet` commands run asynchronously: a synchronous child would block this process's event loop for
    // as long as the command takes (tens of seconds on a busy machine), and a keep-alive connection the devnet
    // closed meanwhile would be reused before its close was read ("other side closed").
    const tool = async (...args: string[]) => {
      const run = await ferryCommand({ ...process.env, ...env }, 'devnet', ...args);
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout);
    };
    const info = await tool('info');
    assert.match(info.bitcoin.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(typeof info.bitcoin.rpcPassword, 'string');
    assert.deepEqual(Object.keys(info.bitcoin.wallets).sort(), ['operator', 'user']);
    // the devnet answers Core's JSON-RPC with the credentials it published
    const rpc = await fetch(info.bitcoin.rpcUrl, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${info.bitcoin.rpcUser}:${info.bitcoin.rpcPassword}`).toString('base64') },
      body: JSON.stringify({ id: 1, method: 'getblockcount', params: [] }),
    });
    assert.equal((await rpc.json()).result, heights.BTC);
    assert.deepEqual(Object.keys(info.lightning).sort(), ['alice', 'bob', 'ferry']);
    // the Elements node starts with the devnet, on its own ephemeral port
    assert.match(info.elements.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(info.elements.rpcUrl, info.bitcoin.rpcUrl);
    assert.deepEqual(info.elements.wallets, { operator: 'operator', user: 'user' });
    assert.match(info.lightning.alice.restUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    // and anvil, the EVM chain, as its own process
    assert.match(info.evm.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.evm.chainId, 31337);
    const chainId = await fetch(info.evm.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    assert.equal((await chainId.json()).result, '0x7a69');
    // the same nodes as a Ferry configuration of their own: what `ferry start --config` takes for a Ferry run apart
    const printed = await ferryCommand({ ...process.env, ...env }, 'devnet', 'config');
    assert.equal(printed.code, 0, printed.stderr);
    const configFile = join(dataDir, 'printed.toml');
    writeFileSync(configFile, printed.stdout);
    const external = loadConfig({ file: configFile, env: {} });
    assert.equal(external.devnet.enabled, false);
    assert.deepEqual(
      [external.bitcoin.rpcUrl, external.bitcoin.rpcPassword, external.bitcoin.wallet, external.liquid.rpcUrl, external.evm.rpcUrl, external.evm.chainId],
      [info.bitcoin.rpcUrl, info.bitcoin.rpcPassword, 'operator', info.elements.rpcUrl, info.evm.rpcUrl, 31337],
    );
    assert.deepEqual([external.lightning.backend, external.lightning.restUrl, external.lightning.macaroon], ['lnd', info.lightning.ferry.restUrl, info.lightning.ferry.macaroon]);

    // the devnet tools, as a person would use them
    const before = await tool('balances');
    const { invoice } = await tool('invoice', '25000', '--node', 'bob', '--memo', 'coffee');
    assert.match(invoice, /^lnbcrt250u1/);
    const paid = await tool('pay', invoice, '--node', 'alice');
    assert.equal(paid.status, 'SUCCEEDED');
    const afterPay = await tool('balances');
    assert.equal(afterPay.lightning.bob.local, before.lightning.bob.local + 25_000);
    assert.equal(afterPay.lightning.alice.local, before.lightning.alice.local - 25_000 - Math.ceil(paid.feeMsat / 1000));

    const address = await (await fetch(info.bitcoin.rpcUrl + '/wallet/operator', {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${info.bitcoin.rpcUser}:${info.bitcoin.rpcPassword}`).toString('base64') },
      body: JSON.stringify({ id: 1, method: 'getnewaddress', params: [] }),
    })).json();
    const { txid } = await tool('send', address.result, '0.5');
    assert.match(txid, /^[0-9a-f]{64}$/);
    const mined = await tool('mine', '2');
    assert.equal(mined.height, heights.BTC + 2);
    const afterMine = await tool('balances');
    assert.equal(afterMine.bitcoin.operator.trusted, before.bitcoin.operator.trusted + 50_000_000);
  } finally {
    ferry.child.kill('SIGTERM');
  }
  const anvil = Number(JSON.parse(readFileSync(join(dataDir, 'evm', 'anvil.pid'), 'utf8')).pid);
  assert.equal(await ferry.exited, 0);
  assert.equal(existsSync(join(dataDir, 'evm', 'anvil.pid')), false, 'anvil stopped with the devnet');
  assert.throws(() => process.kill(anvil, 0), { code: 'ESRCH' });
  assert.ok(existsSync(join(dataDir, 'evm', 'state.json')), "the EVM chain's state, kept for the next start");
});

test('a bad configuration stops start-up with a message naming the key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-badconf-'));
  const file = join(dir, 'ferry.toml');
  writeFileSync(file, '[api]\nport = "high"\n');
  const ferry = runFerry(['start', '--config', file], { FERRY_DATA_DIR: dir });
  assert.equal(await ferry.exited, 2);
  assert.match(ferry.lines.join('\n'), /api\.port/);
});
