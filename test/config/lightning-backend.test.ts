// Which Lightning node the configuration makes Ferry drive: LND by default, Core Lightning with
// lightning.backend = "cln" (URL and rune, both required), and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { lightningBackend } from '../../src/lightning/connect.ts';
import type { Logger } from '../../src/log/index.ts';
import { ClnBackend, LndRestClient } from '../../src/lightning/index.ts';

const external = { FERRY_DEVNET_ENABLED: 'false', FERRY_LND_REST_URL: 'https://127.0.0.1:3010' };

test('lightning.backend picks the adapter; cln needs a rune; other names are refused', () => {
  assert.equal(loadConfig({ env: {} }).lightning.backend, 'lnd');
  const lnd = lightningBackend(loadConfig({ env: { ...external, FERRY_LND_MACAROON: 'ab' } }), undefined);
  assert.ok(lnd instanceof LndRestClient);
  assert.equal(lnd.nodeType, 'LND');

  const cln = lightningBackend(loadConfig({ env: { ...external, FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RUNE: 'cnVuZQ' } }), undefined);
  assert.ok(cln instanceof ClnBackend);
  assert.equal(cln.nodeType, 'CLN');
  assert.throws(() => lightningBackend(loadConfig({ env: { ...external, FERRY_LIGHTNING_BACKEND: 'cln' } }), undefined), (error: unknown) => error instanceof ConfigError && /lightning\.rune/.test(error.message));
  assert.throws(() => loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'eclair' } }), /lightning\.backend .*must be one of lnd, cln/);
  // the devnet's CLN node is Ferry's only when the devnet runs one
  assert.throws(() => lightningBackend(loadConfig({ env: { FERRY_LIGHTNING_BACKEND: 'cln' } }), undefined), /runs no CLN node/);
  assert.equal(lightningBackend(loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false' } }), undefined), undefined, 'no node configured, no devnet: none');
});

test("lightning.cln.hold: the hold plugin's gRPC needs host:port and its three mTLS files; without it, no hold invoices and a warning naming the setting", async () => {
  const cln = { ...external, FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RUNE: 'cnVuZQ' };
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message) => warnings.push(message), error() {}, child: () => logger };
  const overRpc = lightningBackend(loadConfig({ env: cln }), undefined, logger);
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
    () => lightningBackend(loadConfig({ env: { ...cln, FERRY_CLN_HOLD_GRPC_URL: '127.0.0.1:9292', FERRY_CLN_HOLD_CERT_DIR: '/nonexistent/hold' } }), undefined),
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
    const cln = lightningBackend(config, undefined);
    assert.ok(cln instanceof ClnBackend);
    // it calls that socket: nothing listens there, so the call fails naming it
    await assert.rejects(cln.getInfo(), new RegExp(`lightning-rpc ${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    cln.close();
    // the socket is a CLN setting: on LND it changes nothing
    assert.ok(lightningBackend(loadConfig({ env: { ...external, FERRY_LND_MACAROON: 'ab', FERRY_CLN_RPC_SOCKET: socket } }), undefined) instanceof LndRestClient);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
