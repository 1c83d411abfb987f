// Which Lightning node the configuration makes Ferry drive: LND by default, Core Lightning with
// lightning.backend = "cln" (URL and rune, both required), and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { withDevnet } from '../../src/config/devnet.ts';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { lightningBackend } from '../../src/lightning/connect.ts';
import type { Logger } from '../../src/log/index.ts';
import { ClnBackend, LndRestClient } from '../../src/lightning/index.ts';

const external = { FERRY_DEVNET_ENABLED: 'false', FERRY_LND_REST_URL: 'https://127.0.0.1:3010' };
const node = { rpcUrl: 'http://127.0.0.1:18443', rpcUser: 'u', rpcPassword: 'p', wallets: { operator: 'operator', user: 'user' } };
const devnetEvm = { rpcUrl: 'http://127.0.0.1:8545', chainId: 31337, contracts: { etherSwap: '0x' + '1'.repeat(40), erc20Swap: '0x' + '2'.repeat(40), token: '0x' + '3'.repeat(40) } } as DevnetInfo['evm'];

test('lightning.backend picks the adapter; cln needs a rune; other names are refused', () => {
  assert.equal(loadConfig({ env: {} }).lightning.backend, 'lnd');
  const lnd = lightningBackend(loadConfig({ env: { ...external, FERRY_LND_MACAROON: 'ab' } }));
  assert.ok(lnd instanceof LndRestClient);
  assert.equal(lnd.nodeType, 'LND');

  const cln = lightningBackend(loadConfig({ env: { ...external, FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RUNE: 'cnVuZQ' } }));
  assert.ok(cln instanceof ClnBackend);
  assert.equal(cln.nodeType, 'CLN');
  assert.throws(() => lightningBackend(loadConfig({ env: { ...external, FERRY_LIGHTNING_BACKEND: 'cln' } })), (error: unknown) => error instanceof ConfigError && /lightning\.rune/.test(error.message));
  assert.throws(() => loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'eclair' } }), /lightning\.backend .*must be one of lnd, cln/);
  // the devnet's CLN node is Ferry's only when the devnet runs one (src/config/devnet.ts fills in its keys)
  const info = { bitcoin: node, elements: node, lightning: { ferry: { restUrl: 'http://127.0.0.1:8080', macaroon: 'ab', pubkey: '' } }, evm: devnetEvm } as DevnetInfo;
  assert.throws(() => withDevnet(loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'cln' } }), info), (error: unknown) => error instanceof ConfigError && /runs no CLN node/.test(error.message));
  assert.equal(lightningBackend(loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false' } })), undefined, 'no node configured, no devnet: none');
});

test("lightning.cln.hold: the hold plugin's gRPC needs host:port and its three mTLS files; without it, no hold invoices and a warning naming the setting", async () => {
  const cln = { ...external, FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RUNE: 'cnVuZQ' };
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {}, child: () => logger };
  const overRpc = lightningBackend(loadConfig({ env: cln }), logger);
  assert.ok(overRpc instanceof ClnBackend);
  assert.equal(warnings.length, 1, 'a warning at start');
  assert.match(warnings[0], /cannot hold invoices: reverse swaps .* are refused.*lightning\.cln\.hold\.grpcUrl/);
  assert.equal(overRpc.holdInvoices, false, 'the backend says it cannot hold invoices');
  // refused before anything reaches the node (its URL is not even reachable here)
  const hash = '11'.repeat(32);
  await assert.rejects(overRpc.createHoldInvoice({ paymentHash: hash, amountMsat: 1000n, expirySeconds: 600, cltvExpiry: 100 }), /lightning\.cln\.hold\.grpcUrl/);
  await assert.rejects(overRpc.injectHoldInvoice('lni1x', 100), /lightning\.cln\.hold\.grpcUrl/);
  assert.equal(overRpc.onionMessages(), undefined, 'no onion messages without the gRPC stream');

  assert.equal(loadConfig({ env: { FERRY_CLN_HOLD_GRPC_URL: '127.0.0.1:9292', FERRY_CLN_HOLD_CERT_DIR: '/x' } }).lightning.cln.hold.grpcUrl, '127.0.0.1:9292');
  assert.throws(() => loadConfig({ env: { FERRY_CLN_HOLD_GRPC_URL: 'https://127.0.0.1:9292', FERRY_CLN_HOLD_CERT_DIR: '/x' } }), /lightning\.cln\.hold\.grpcUrl must be host:port/);
  assert.throws(() => loadConfig({ env: { FERRY_CLN_HOLD_GRPC_URL: '127.0.0.1:9292' } }), /lightning\.cln\.hold\.certDir \(or lightning\.cln\.hold\.caCert, .*clientKey\) is needed/);
  assert.throws(() => loadConfig({ env: { FERRY_CLN_HOLD_CERT_DIR: '/x' } }), /lightning\.cln\.hold\.grpcUrl is needed/);
  // the three files one by one instead of the directory, in the TOML file's [lightning.cln.hold]
  const dir = mkdtempSync(join(tmpdir(), 'ferry-hold-config-'));
  const toml = (lines: string[]) => {
    writeFileSync(join(dir, 'ferry.toml'), ['[lightning.cln.hold]', 'grpcUrl = "localhost:9292"', ...lines].join('\n'));
    return loadConfig({ env: {}, file: join(dir, 'ferry.toml') });
  };
  assert.deepEqual(toml(['caCert = "/h/ca.pem"', 'clientCert = "/h/client.pem"', 'clientKey = "/h/client-key.pem"']).lightning.cln.hold, {
    grpcUrl: 'localhost:9292',
    certDir: '',
    caCert: '/h/ca.pem',
    clientCert: '/h/client.pem',
    clientKey: '/h/client-key.pem',
  });
  assert.throws(() => toml(['caCert = "/h/ca.pem"', 'clientCert = "/h/client.pem"']), /or lightning\.cln\.hold\.clientKey\) is needed/);
  assert.throws(() => toml(['port = 9292']), /unknown config key: lightning\.cln\.hold\.port/);
  rmSync(dir, { recursive: true });
  // a directory without the plugin's files is refused when Ferry starts, naming the file
  assert.throws(
    () => lightningBackend(loadConfig({ env: { ...cln, FERRY_CLN_HOLD_GRPC_URL: '127.0.0.1:9292', FERRY_CLN_HOLD_CERT_DIR: '/nonexistent/hold' } })),
    (error: unknown) => error instanceof ConfigError && /\/nonexistent\/hold\/ca\.pem/.test(error.message),
  );
});

test("lightning.cln.rpcSocket: Core Lightning over lightningd's JSON-RPC socket, no clnrest URL or rune, the devnet's node not used", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-cln-socket-config-'));
  try {
    const socket = join(dir, 'lightning-rpc');
    const config = loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RPC_SOCKET: socket } });
    assert.equal(config.lightning.cln.rpcSocket, socket);
    // the devnet is on, but a configured socket is Ferry's node (no "runs no CLN node" refusal)
    const info = { bitcoin: node, elements: node, lightning: {}, evm: devnetEvm } as unknown as DevnetInfo;
    assert.deepEqual(withDevnet(config, info).lightning, config.lightning);
    const cln = lightningBackend(config);
    assert.ok(cln instanceof ClnBackend);
    // it calls that socket: nothing listens there, so the call fails naming it
    await assert.rejects(cln.getInfo(), new RegExp(`lightning-rpc ${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    cln.close();
    // the socket is a CLN setting: on LND it changes nothing
    assert.ok(lightningBackend(loadConfig({ env: { ...external, FERRY_LND_MACAROON: 'ab', FERRY_CLN_RPC_SOCKET: socket } })) instanceof LndRestClient);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
