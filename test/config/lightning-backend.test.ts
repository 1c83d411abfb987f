// Which Lightning node the configuration makes Ferry drive: LND by default, Core Lightning with
// lightning.backend = "cln" (URL and rune, both required), and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { lightningBackend } from '../../src/lightning/connect.ts';
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
