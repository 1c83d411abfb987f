// The devnet handed to Ferry as configuration (src/config/devnet.ts, src/devnet/ferry-config.ts): zero-config fills
// every backend the operator left unset with the devnet's node, whole, and keeps every one they set; `ferry doctor`
// finds the running devnet's devnet.json or says none runs; and the ferry.toml `ferry devnet` writes loads into
// the very configuration zero-config runs with, the embedded devnet off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, servesEvm, servesLiquid } from '../../src/config/index.ts';
import { devnetBackends, withDevnet, withRunningDevnet } from '../../src/config/devnet.ts';
import { ferryConfigPath, writeFerryConfig } from '@ferry/devnet/ferry-config.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ferry-devnet-config-'));

// What a devnet.json says (the shape startDevnet writes), with a CLN node running the hold plugin.
const node = (port: number) => ({ rpcUrl: `http://127.0.0.1:${port}`, rpcUser: 'devnet', rpcPassword: `pw${port}`, wallets: { operator: 'operator', user: 'user' } });
const hold = { grpcUrl: '127.0.0.1:9292', certDir: '/d/cln/hold', caCert: '/d/cln/hold/ca.pem', clientCert: '/d/cln/hold/client.pem', clientKey: '/d/cln/hold/client-key.pem' };
const info = {
  bitcoin: node(18443),
  elements: node(18884),
  lightning: { ferry: { restUrl: 'http://127.0.0.1:8080', macaroon: 'abcd', pubkey: '02'.padEnd(66, '1') } },
  cln: { cln: { restUrl: 'http://127.0.0.1:3010', rune: 'cnVuZQ', pubkey: '03'.padEnd(66, '2'), hold } },
  evm: {
    rpcUrl: 'http://127.0.0.1:8545',
    chainId: 31337,
    contracts: { etherSwap: '0x5fbdb2315678afecb367f032d93f642f64180aa3', erc20Swap: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512', token: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0' },
  },
} as unknown as DevnetInfo;

test("zero-config: every backend is the devnet's node, as an operator's keys; nothing is left to the devnet after", () => {
  const config = loadConfig({ env: {} });
  assert.deepEqual(devnetBackends(config), ['bitcoin', 'liquid', 'evm', 'lightning']);
  const resolved = withDevnet(config, info);
  assert.deepEqual(resolved.bitcoin, { rpcUrl: 'http://127.0.0.1:18443', rpcUser: 'devnet', rpcPassword: 'pw18443', wallet: 'operator', pollIntervalMs: 1000 });
  assert.deepEqual(resolved.liquid, { rpcUrl: 'http://127.0.0.1:18884', rpcUser: 'devnet', rpcPassword: 'pw18884', wallet: 'operator', pollIntervalMs: 1000 });
  assert.deepEqual(
    [resolved.evm.rpcUrl, resolved.evm.chainId, resolved.evm.etherSwap, resolved.evm.erc20Swap, resolved.evm.tokens],
    ['http://127.0.0.1:8545', 31337, info.evm.contracts.etherSwap, info.evm.contracts.erc20Swap, { TRC20: info.evm.contracts.token }],
  );
  assert.deepEqual([resolved.lightning.backend, resolved.lightning.restUrl, resolved.lightning.macaroon, resolved.lightning.rune], ['lnd', 'http://127.0.0.1:8080', 'abcd', '']);
  assert.deepEqual(devnetBackends(resolved), []);
  assert.equal(servesLiquid(resolved) && servesEvm(resolved), true);
  assert.deepEqual(config.bitcoin.rpcUrl, '', 'the configuration handed in is not changed');
});

test("a backend the operator configured is theirs, whole; an unset one is the devnet's, whole", () => {
  const env = { FERRY_BITCOIN_RPC_URL: 'http://10.0.0.1:8332', FERRY_BITCOIN_RPC_USER: 'op', FERRY_BITCOIN_RPC_PASSWORD: 'secret', FERRY_BITCOIN_WALLET: 'ferry', FERRY_LIQUID_WALLET: 'mine' };
  const config = loadConfig({ env });
  assert.deepEqual(devnetBackends(config), ['liquid', 'evm', 'lightning']);
  const resolved = withDevnet(config, info);
  assert.deepEqual(resolved.bitcoin, config.bitcoin);
  // a wallet without its node means nothing: Liquid is the devnet's node, with its operator wallet
  assert.deepEqual([resolved.liquid.rpcUrl, resolved.liquid.wallet], ['http://127.0.0.1:18884', 'operator']);
  const lnd = loadConfig({ env: { FERRY_LND_REST_URL: 'https://10.0.0.2:8080', FERRY_LND_MACAROON: 'ff' } });
  assert.deepEqual(withDevnet(lnd, info).lightning, lnd.lightning);
});

test("on Core Lightning, Ferry's node is the devnet's `cln` with its hold plugin's gRPC; the devnet must run one", () => {
  const config = loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'cln' } });
  const { lightning } = withDevnet(config, info);
  assert.deepEqual([lightning.backend, lightning.restUrl, lightning.rune, lightning.macaroon], ['cln', 'http://127.0.0.1:3010', 'cnVuZQ', '']);
  assert.deepEqual(lightning.cln, { rpcSocket: '', hold });
  const { cln: _, ...withoutCln } = info;
  assert.throws(() => withDevnet(config, withoutCln as DevnetInfo), (error: unknown) => error instanceof ConfigError && /runs no CLN node/.test(error.message));
});

test('the devnet disabled: nothing is left to it, the configuration is as loaded', () => {
  const config = loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false' } });
  assert.deepEqual(devnetBackends(config), []);
  assert.deepEqual(withDevnet(config, info), config);
  assert.equal(withRunningDevnet(config), config);
});

test("ferry doctor: the devnet running on the data directory, or a ConfigError naming what uses it", () => {
  const dataDir = dir();
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, FERRY_LND_REST_URL: 'https://10.0.0.2:8080' } });
  assert.throws(() => withRunningDevnet(config), (error: unknown) =>
    error instanceof ConfigError && error.message.startsWith(`bitcoin, liquid, evm use the devnet, and no devnet.json is in ${dataDir}`));
  writeFileSync(join(dataDir, 'devnet.json'), JSON.stringify(info));
  const resolved = withRunningDevnet(config);
  assert.deepEqual([resolved.bitcoin.rpcUrl, resolved.lightning.restUrl], ['http://127.0.0.1:18443', 'https://10.0.0.2:8080']);
});

test("ferry devnet's ferry.toml loads into zero-config's configuration, with the embedded devnet off", () => {
  const dataDir = dir();
  for (const backend of ['lnd', 'cln'] as const) {
    writeFerryConfig(dataDir, info, backend);
    const loaded = loadConfig({ file: ferryConfigPath(dataDir), env: {} });
    const zeroConfig = withDevnet(loadConfig({ env: { FERRY_LIGHTNING_BACKEND: backend } }), info);
    assert.equal(loaded.devnet.enabled, false);
    assert.deepEqual(devnetBackends(loaded), []);
    assert.deepEqual({ ...loaded, devnet: zeroConfig.devnet }, zeroConfig, backend);
  }
});
