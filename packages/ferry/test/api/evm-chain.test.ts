// The EVM chain's endpoints against Ferry on its devnet (zero-config: the devnet's anvil and contracts): v1
// /getcontracts, v2 /chain/contracts and /chain/RBTC/contracts in the reference's shapes, RBTC's height and gas
// price among the other chains'; a mismatching [evm] stopping start-up; and the 501 every contract route answers
// when no EVM chain is served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, formatUnits, getAddress, toQuantity } from 'ethers';
import { startFerry, type Ferry } from '../../src/app.ts';
import { createApiServer } from '../../src/api/index.ts';
import { listen, stopServer } from '../../src/api/http/server.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

interface Schema {
  required?: string[];
  properties?: Record<string, Schema>;
}
const openapi = JSON.parse(readFileSync(new URL('../fixtures/boltz-v2-openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};

let dataDir: string;
let ferry: Ferry;
let provider: JsonRpcProvider;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-api-evm-'));
  ferry = await startFerry(loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } }), silentLogger);
  provider = new JsonRpcProvider(ferry.devnet!.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
});
after(async () => {
  provider?.destroy();
  await ferry?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function get(base: string, path: string) {
  const response = await fetch(base + path);
  return { status: response.status, json: await response.json() };
}

/** Every field the reference's schema requires, recursively. */
function assertRequired(value: Record<string, unknown>, schema: Schema, where: string): void {
  for (const key of schema.required ?? []) assert.ok(key in value, `${where}.${key} is required by the reference`);
  for (const [key, inner] of Object.entries(schema.properties ?? {})) {
    if (value[key] && typeof value[key] === 'object') assertRequired(value[key] as Record<string, unknown>, inner, `${where}.${key}`);
  }
}

test("the contracts: the devnet's EtherSwap, ERC20Swap and test token, on v1 and v2, in the reference's shapes", async () => {
  const { contracts } = ferry.devnet!.info.evm;
  const swapContracts = { EtherSwap: getAddress(contracts.etherSwap), ERC20Swap: getAddress(contracts.erc20Swap) };
  const rsk = {
    network: { chainId: 31337, name: 'anvil' },
    swapContracts,
    supportedContracts: { 6: { ...swapContracts, features: ['BatchClaim', 'CommitmentSwap'] } },
    tokens: { TRC20: getAddress(contracts.token) },
  };
  const v2 = await get(ferry.apiUrl, '/v2/chain/contracts');
  assert.deepEqual(v2, { status: 200, json: { rsk } });
  assertRequired(v2.json.rsk, openapi.components.schemas.Contracts!, 'rsk');
  assert.deepEqual(await get(ferry.apiUrl, '/v2/chain/RBTC/contracts'), { status: 200, json: rsk });
  const { supportedContracts: _, ...v1 } = rsk;
  assert.deepEqual(await get(ferry.apiUrl, '/getcontracts'), { status: 200, json: { rsk: v1 } });

  for (const currency of ['BTC', 'L-BTC', 'DOGE']) {
    const answer = await get(ferry.apiUrl, `/v2/chain/${currency}/contracts`);
    assert.deepEqual(answer, { status: 404, json: { error: `${currency} is not on an EVM chain` } });
  }
});

test("RBTC's height and gas price (GWEI), alone and among the other chains'", async () => {
  const height = await provider.getBlockNumber();
  assert.deepEqual(await get(ferry.apiUrl, '/v2/chain/RBTC/height'), { status: 200, json: { height } });
  await provider.send('anvil_mine', [toQuantity(5)]);
  assert.deepEqual(await get(ferry.apiUrl, '/v2/chain/RBTC/height'), { status: 200, json: { height: height + 5 } });
  assert.equal((await get(ferry.apiUrl, '/v2/chain/heights')).json.RBTC, height + 5);

  const gwei = Number(formatUnits(BigInt(await provider.send('eth_gasPrice', [])), 'gwei'));
  assert.ok(gwei > 0);
  assert.deepEqual(await get(ferry.apiUrl, '/v2/chain/RBTC/fee'), { status: 200, json: { fee: gwei } });
  assert.equal((await get(ferry.apiUrl, '/v2/chain/fees')).json.RBTC, gwei);
  assert.equal((await get(ferry.apiUrl, '/getfeeestimation')).json.RBTC, gwei);
});

test('RBTC transactions are not served through the UTXO transaction routes, and that is said', async () => {
  const id = '0x' + 'ab'.repeat(32);
  const message = 'RBTC is an EVM chain: its transactions are not served here, ask its node';
  assert.deepEqual(await get(ferry.apiUrl, `/v2/chain/RBTC/transaction/${id}`), { status: 400, json: { error: message } });
});

test('a configuration the EVM chain does not match stops start-up, naming the key', async () => {
  const other = mkdtempSync(join(tmpdir(), 'ferry-api-evm-'));
  try {
    const config = loadConfig({ env: { FERRY_DATA_DIR: other, ...ephemeralPorts, FERRY_EVM_CHAIN_ID: '30' } });
    await assert.rejects(startFerry(config, silentLogger), /config key evm.chainId is 30, but the devnet's anvil runs chain 31337/);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('no EVM chain served: the contract routes answer 501, RBTC is an unknown currency', async () => {
  const server = createApiServer({ chains: new Map(), lightning: {}, logger: silentLogger, maxBodyBytes: 1024 });
  const address = await listen(server, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${address.port}`;
  try {
    const notServed = { status: 501, json: { error: 'Ferry serves no EVM chain (RBTC): there are no swap contracts' } };
    for (const path of ['/getcontracts', '/v2/chain/contracts', '/v2/chain/RBTC/contracts']) assert.deepEqual(await get(base, path), notServed, path);
    assert.deepEqual(await get(base, '/v2/chain/RBTC/height'), { status: 400, json: { error: 'could not find currency: RBTC' } });
  } finally {
    await stopServer(server);
  }
});
