import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, databaseUrl, loadConfig, usesDevnetBitcoin } from '../../src/config/index.ts';
import { pairsFromConfig } from '../../src/config/pair.ts';

const file = (text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'ferry-config-')), 'ferry.toml');
  writeFileSync(path, text);
  return path;
};

test('zero-config: regtest, devnet, SQLite in the data directory, API on 127.0.0.1:9001', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.network, 'regtest');
  assert.equal(config.api.host, '127.0.0.1');
  assert.equal(config.api.port, 9001);
  assert.equal(config.dataDir, resolve('./data'));
  assert.equal(databaseUrl(config), `sqlite:${resolve('./data/ferry.sqlite')}`);
  assert.equal(usesDevnetBitcoin(config), true);
  assert.deepEqual([config.devnet.bitcoinPort, config.devnet.elementsPort, config.devnet.evmPort], [18443, 18884, 8545]);
});

test('the devnet ports: from the file, the environment over it', () => {
  const path = file('[devnet]\nbitcoinPort = 28443\nelementsPort = 28884\nevmPort = 28545\n');
  assert.equal(loadConfig({ file: path, env: {} }).devnet.elementsPort, 28884);
  assert.equal(loadConfig({ file: path, env: {} }).devnet.evmPort, 28545);
  const config = loadConfig({ file: path, env: { FERRY_DEVNET_ELEMENTS_PORT: '0', FERRY_DEVNET_EVM_PORT: '0' } });
  assert.deepEqual([config.devnet.bitcoinPort, config.devnet.elementsPort, config.devnet.evmPort], [28443, 0, 0]);
  assert.throws(() => loadConfig({ env: { FERRY_DEVNET_ELEMENTS_PORT: '70000' } }), /devnet\.elementsPort.*port/);
  assert.throws(() => loadConfig({ env: { FERRY_DEVNET_EVM_PORT: '65536' } }), /devnet\.evmPort.*port/);
});

test('a TOML file sets keys; the environment overrides the file', () => {
  const path = file('dataDir = "/tmp/a"\n[api]\nport = 9100\n[database]\nurl = "postgres://x@127.0.0.1/test"\n[log]\nlevel = "debug"\n');
  const config = loadConfig({ file: path, env: { FERRY_API_PORT: '9200', FERRY_DATA_DIR: '/tmp/b' } });
  assert.equal(config.api.port, 9200);
  assert.equal(config.dataDir, '/tmp/b');
  assert.equal(config.log.level, 'debug');
  assert.equal(databaseUrl(config), 'postgres://x@127.0.0.1/test');
});

test('FERRY_CONFIG names the file when --config is not given', () => {
  const path = file('[api]\nhost = "0.0.0.0"\n');
  assert.equal(loadConfig({ env: { FERRY_CONFIG: path } }).api.host, '0.0.0.0');
});

test('a configured bitcoin backend replaces the devnet', () => {
  const config = loadConfig({ file: file('[bitcoin]\nrpcUrl = "http://127.0.0.1:8332"\n'), env: {} });
  assert.equal(usesDevnetBitcoin(config), false);
});

test('an unknown key stops start-up naming the key', () => {
  assert.throws(() => loadConfig({ file: file('[api]\nprot = 1\n'), env: {} }), (error: Error) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /unknown config key: api\.prot/);
    return true;
  });
  assert.throws(() => loadConfig({ file: file('colour = "blue"\n'), env: {} }), /unknown config key: colour/);
});

test('a wrong type stops start-up naming the key', () => {
  assert.throws(() => loadConfig({ file: file('[api]\nport = "9001"\n'), env: {} }), /api\.port must be a port|api\.port must be a non-negative integer/);
  assert.throws(() => loadConfig({ file: file('[api]\nport = 70000\n'), env: {} }), /api\.port must be a port/);
  assert.throws(() => loadConfig({ file: file('api = 3\n'), env: {} }), /api must be a table/);
  assert.throws(() => loadConfig({ file: file('[log]\nlevel = "loud"\n'), env: {} }), /log\.level must be one of/);
  assert.throws(() => loadConfig({ file: file('[devnet]\nenabled = "yes"\n'), env: {} }), /devnet\.enabled must be a boolean/);
  assert.throws(() => loadConfig({ env: { FERRY_API_PORT: 'abc' } }), /api\.port must be a non-negative integer/);
});

test('broken TOML and a missing file are reported', () => {
  assert.throws(() => loadConfig({ file: file('[api\n'), env: {} }), /not valid TOML/);
  assert.throws(() => loadConfig({ file: '/nonexistent/ferry.toml', env: {} }), /cannot read config file/);
});

test('pair and swap settings: numbers and integers are checked by key', () => {
  const config = loadConfig({ file: file('[pair]\nrate = 1.5\nfeePercentage = 0.5\nminimal = 20000\n[swap]\nclaimDelayMs = 500\n'), env: {} });
  assert.equal(config.pair.rate, 1.5);
  assert.equal(config.pair.feePercentage, 0.5);
  assert.equal(config.pair.minimal, 20_000);
  assert.equal(config.pair.timeoutReverse, 144);
  assert.equal(config.swap.claimDelayMs, 500);
  assert.throws(() => loadConfig({ file: file('[pair]\nrate = "high"\n'), env: {} }), /pair\.rate must be a non-negative number/);
  assert.throws(() => loadConfig({ file: file('[pair]\nminimal = 1.5\n'), env: {} }), /pair\.minimal must be a non-negative integer/);
});

test('[[pairs]]: a list of pairs, each checked by key; without it the BTC/BTC pair of [pair]', () => {
  assert.deepEqual(loadConfig({ env: {} }).pairs, []);
  const config = loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\nrate = 1\nminimal = 20000\n'), env: {} });
  assert.equal(config.pairs.length, 1);
  assert.equal(config.pairs[0].id, 'BTC/BTC');
  assert.equal(config.pairs[0].minimal, 20_000);
  assert.equal(config.pairs[0].maximal, 10_000_000, 'unset keys take the defaults');
  assert.deepEqual(
    pairsFromConfig(config).map((pair) => [pair.id, pair.base, pair.quote, pair.limits.minimal]),
    [['BTC/BTC', 'BTC', 'BTC', 20_000]],
  );
  // Without [[pairs]]: BTC/BTC from [pair], and L-BTC/BTC with [pair]'s prices and Liquid's timeouts while Liquid is
  // served, RBTC/BTC with RSK's (and no 0-conf) while the EVM chain is.
  const defaults = pairsFromConfig(loadConfig({ file: file('[pair]\nminimal = 30000\n'), env: {} }));
  assert.deepEqual(
    defaults.map((pair) => [pair.id, pair.limits.minimal, pair.limits.maximalZeroConf, pair.timeouts.reverse, pair.timeouts.swapMinimal, pair.timeouts.swapMaximal]),
    [['BTC/BTC', 30_000, 1_000_000, 144, 144, 288], ['L-BTC/BTC', 30_000, 1_000_000, 1440, 1440, 2880], ['RBTC/BTC', 30_000, 0, 2880, 2880, 5760]],
  );
  const noDevnet = loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false', FERRY_BITCOIN_RPC_URL: 'http://127.0.0.1:1' } });
  assert.deepEqual(pairsFromConfig(noDevnet).map((pair) => pair.id), ['BTC/BTC'], 'no Elements or EVM node: no Liquid or RBTC pair');
  const withElements = loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false', FERRY_LIQUID_RPC_URL: 'http://127.0.0.1:2' } });
  assert.deepEqual(pairsFromConfig(withElements).map((pair) => pair.id), ['BTC/BTC', 'L-BTC/BTC']);
  // A [[pairs]] entry for L-BTC/BTC takes Liquid's timeouts unless it sets its own.
  const listed = loadConfig({ file: file('[[pairs]]\nid = "L-BTC/BTC"\ntimeoutReverse = 1000\n'), env: {} }).pairs[0];
  assert.deepEqual([listed.timeoutReverse, listed.timeoutSwapMinimal, listed.timeoutSwapMaximal], [1000, 1440, 2880]);
  assert.throws(() => loadConfig({ file: file('pairs = 3\n'), env: {} }), /pairs must be a list of tables/);
  assert.throws(() => loadConfig({ file: file('[[pairs]]\nid = "BTCBTC"\n'), env: {} }), /pairs\[0\]\.id must be a pair id/);
  assert.throws(() => loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\nfee = 1\n'), env: {} }), /unknown config key: pairs\[0\]\.fee/);
  assert.throws(() => loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\nminimal = 1.5\n'), env: {} }), /pairs\[0\]\.minimal must be a non-negative integer/);
  assert.throws(
    () => loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\n[[pairs]]\nid = "BTC/BTC"\n'), env: {} }),
    /pair BTC\/BTC is listed twice/,
  );
});

test('effect retries: attempts and delays from [effects], checked so retries happen at all', () => {
  const defaults = loadConfig({ env: {} }).effects;
  assert.deepEqual(defaults, { maxAttempts: 50, retryMs: 1_000, retryMaxMs: 60_000 });
  const config = loadConfig({ file: file('[effects]\nmaxAttempts = 5\nretryMs = 200\nretryMaxMs = 2000\n'), env: {} });
  assert.deepEqual(config.effects, { maxAttempts: 5, retryMs: 200, retryMaxMs: 2_000 });
  assert.throws(() => loadConfig({ file: file('[effects]\nmaxAttempts = 0\n'), env: {} }), /effects\.maxAttempts must be at least 1/);
  assert.throws(() => loadConfig({ file: file('[effects]\nretryMs = 0\n'), env: {} }), /effects\.retryMs must be at least 1/);
  assert.throws(() => loadConfig({ file: file('[effects]\nretryMs = 5000\nretryMaxMs = 1000\n'), env: {} }), /retryMaxMs must be at least effects\.retryMs/);
  assert.throws(() => loadConfig({ file: file('[effects]\nmaxAttempts = 2.5\n'), env: {} }), ConfigError);
  assert.equal(loadConfig({ file: file('[swap]\nfeeBumpAfterBlocks = 0\n'), env: {} }).swap.feeBumpAfterBlocks, 0);
  assert.equal(loadConfig({ env: {} }).swap.feeBumpAfterBlocks, 6);
});
