// The chain endpoints of v1 and v2 against Ferry running on its devnet: real node, real transactions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerry, type Ferry } from '../../src/app.ts';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { buildClaim, buildRefund, findLockupOutput, makeHtlc } from '../helpers/htlc.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

let ferry: Ferry;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let elements: CoreRpcClient;

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-api-chain-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  ferry = await startFerry(config, silentLogger);
  const info = ferry.devnet!.info.bitcoin;
  rpc = new CoreRpcClient({ url: info.rpcUrl, user: info.rpcUser, password: info.rpcPassword });
  user = rpc.wallet(info.wallets.user);
  const liquid = ferry.devnet!.info.elements;
  elements = new CoreRpcClient({ url: liquid.rpcUrl, user: liquid.rpcUser, password: liquid.rpcPassword });
});
after(() => ferry.close());

async function get(path: string) {
  const response = await fetch(ferry.apiUrl + path);
  return { status: response.status, json: await response.json() };
}

async function post(path: string, body: unknown) {
  const response = await fetch(ferry.apiUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

const mine = async (blocks = 1) => rpc.generateToAddress(blocks, await user.getNewAddress());

test('heights and fees on v1 and v2 come from the nodes, Liquid\'s at its 0.1 sat/vB floor', async () => {
  const height = await rpc.getBlockCount();
  const liquidHeight = await elements.getBlockCount();
  const rbtcHeight = await ferry.evm.get('RBTC')!.height(); // the EVM chain's: test/api/evm-chain.test.ts
  assert.deepEqual(await get('/v2/chain/heights'), { status: 200, json: { BTC: height, 'L-BTC': liquidHeight, RBTC: rbtcHeight } });
  assert.deepEqual(await get('/v2/chain/BTC/height'), { status: 200, json: { height } });
  assert.deepEqual(await get('/v2/chain/L-BTC/height'), { status: 200, json: { height: liquidHeight } });
  const fees = await get('/v2/chain/fees');
  assert.equal(fees.status, 200);
  assert.ok(fees.json.BTC >= 1);
  assert.equal(fees.json['L-BTC'], 0.1);
  assert.deepEqual(await get('/v2/chain/BTC/fee'), { status: 200, json: { fee: fees.json.BTC } });
  assert.deepEqual(await get('/v2/chain/L-BTC/fee'), { status: 200, json: { fee: 0.1 } });
  assert.deepEqual(await get('/getfeeestimation'), { status: 200, json: fees.json });
  assert.equal((await get('/v2/version')).json.version, (await get('/version')).json.version);
});

test('a swap lockup is fetched, an early refund is refused with the reason, the claim is broadcast and confirms', async () => {
  const height = await rpc.getBlockCount();
  const htlc = makeHtlc({ kind: 'taproot', timeoutBlockHeight: height + 10 });
  const fundingTxid = await user.sendToAddress(htlc.address, 0.001);

  const pending = await get(`/v2/chain/BTC/transaction/${fundingTxid}`);
  assert.equal(pending.status, 200);
  assert.equal(pending.json.confirmations, undefined, 'unconfirmed: no confirmations field');
  const funding = findLockupOutput(pending.json.hex, htlc);
  assert.ok(funding, 'the served hex pays the lockup address');
  assert.equal(funding.value, 100_000n);
  assert.deepEqual(await post('/gettransaction', { currency: 'BTC', transactionId: fundingTxid }), {
    status: 200,
    json: { transactionHex: pending.json.hex },
  });

  await mine();
  assert.equal((await get(`/v2/chain/BTC/transaction/${fundingTxid}`)).json.confirmations, 1);

  const refund = buildRefund(htlc, funding);
  const early = await post('/v2/chain/BTC/transaction', { hex: refund.hex });
  assert.equal(early.status, 400);
  assert.match(early.json.error, /non-final/);
  const earlyV1 = await post('/broadcasttransaction', { currency: 'BTC', transactionHex: refund.hex });
  assert.equal(earlyV1.status, 400);
  assert.match(earlyV1.json.error, /non-final/);

  const badClaim = buildClaim(htlc, funding, { preimage: new Uint8Array(32).fill(7) });
  const rejected = await post('/v2/chain/BTC/transaction', { hex: badClaim.hex });
  assert.equal(rejected.status, 400);
  assert.match(rejected.json.error, /mandatory-script-verify-flag-failed/);

  const claim = buildClaim(htlc, funding);
  assert.deepEqual(await post('/v2/chain/BTC/transaction', { hex: claim.hex }), { status: 201, json: { id: claim.txid } });
  assert.deepEqual(await rpc.getRawMempool(), [claim.txid]);
  await mine();
  const confirmed = await get(`/v2/chain/BTC/transaction/${claim.txid}`);
  assert.deepEqual(confirmed, { status: 200, json: { hex: claim.hex, confirmations: 1 } });

  // a second claim paying a different fee double-spends a confirmed output
  const late = await post('/broadcasttransaction', { currency: 'BTC', transactionHex: buildClaim(htlc, funding, { fee: 2_000n }).hex });
  assert.equal(late.status, 400);
  assert.match(late.json.error, /missingorspent|bad-txns-inputs/);
});

test("Ferry's chain watcher follows the node and checkpoints the tip in storage", async () => {
  await mine(2);
  await ferry.chains.get('BTC')!.watcher.sync();
  const tip = await rpc.getBestBlockHash();
  assert.deepEqual(await ferry.storage.checkpoints.get('BTC'), { height: await rpc.getBlockCount(), hash: tip });
});

test('bad input answers 4xx with a clear error and changes nothing', async () => {
  const mempool = await rpc.getRawMempool();
  const unknown = 'ab'.repeat(32);
  const cases: [string, { status: number; json: any }, number, RegExp][] = [
    ['v2 unknown tx', await get(`/v2/chain/BTC/transaction/${unknown}`), 404, /could not find transaction/],
    ['v2 malformed txid', await get('/v2/chain/BTC/transaction/xyz'), 400, /invalid parameter: id/],
    ['v2 unknown currency', await get('/v2/chain/DOGE/height'), 400, /could not find currency: DOGE/],
    ['v2 broadcast no hex', await post('/v2/chain/BTC/transaction', {}), 400, /undefined parameter: hex/],
    ['v2 broadcast bad hex', await post('/v2/chain/BTC/transaction', { hex: 'zz' }), 400, /could not parse hex string/],
    ['v2 broadcast garbage', await post('/v2/chain/BTC/transaction', { hex: 'deadbeef' }), 400, /decode failed/i],
    ['v2 broadcast array', await post('/v2/chain/BTC/transaction', [1, 2]), 400, /JSON object/],
    ['v1 unknown tx', await post('/gettransaction', { currency: 'BTC', transactionId: unknown }), 400, /could not find transaction/],
    ['v1 missing currency', await post('/gettransaction', { transactionId: unknown }), 400, /undefined parameter: currency/],
    ['v1 bad currency type', await post('/broadcasttransaction', { currency: 5, transactionHex: 'aa' }), 400, /invalid parameter: currency/],
    ['v1 broadcast missing hex', await post('/broadcasttransaction', { currency: 'BTC' }), 400, /undefined parameter: transactionHex/],
  ];
  for (const [name, response, status, error] of cases) {
    assert.equal(response.status, status, name);
    assert.match(response.json.error, error, name);
  }
  assert.deepEqual(await rpc.getRawMempool(), mempool);
});

test('Liquid transactions are served and broadcast through /v2/chain/L-BTC, refusals with the node\'s reason', async () => {
  const liquidUser = elements.wallet(ferry.devnet!.info.elements.wallets.user);
  const txid = await liquidUser.sendToAddress(await liquidUser.getNewAddress(), 0.001);
  const served = await get(`/v2/chain/L-BTC/transaction/${txid}`);
  assert.equal(served.status, 200);
  assert.equal(served.json.hex, await elements.getRawTransactionHex(txid));
  const again = await post('/v2/chain/L-BTC/transaction', { hex: served.json.hex });
  assert.equal(again.status, 201, JSON.stringify(again.json));
  assert.equal(again.json.id, txid, 'a transaction already in the mempool counts as broadcast');
  const unknown = await get(`/v2/chain/L-BTC/transaction/${'00'.repeat(32)}`);
  assert.equal(unknown.status, 404);
  const garbage = await post('/v2/chain/L-BTC/transaction', { hex: '0200' });
  assert.equal(garbage.status, 400);
  assert.match(garbage.json.error, /decode/i);
  // A Bitcoin transaction is no Liquid transaction.
  const bitcoinTx = await rpc.getRawTransactionHex(await user.sendToAddress(await user.getNewAddress(), 0.001));
  const wrongChain = await post('/v2/chain/L-BTC/transaction', { hex: bitcoinTx });
  assert.equal(wrongChain.status, 400, JSON.stringify(wrongChain.json));
});
