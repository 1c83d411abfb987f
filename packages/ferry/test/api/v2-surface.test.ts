// The rest of v2 with the real engine and the devnet's Lightning nodes (LND REST): infos and warnings, swap metadata
// (kept, and handed back by restore), the reverse invoice expiry, BIP-21, pair stats, the Lightning graph calls, the
// v2 referral calls behind HMAC, and the clear 4xx of what Ferry does not have (Ark, tokens; BOLT12 calls for an unknown pair).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { requestHmac } from '../../src/api/auth/hmac.ts';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { rest } from '../lightning/helpers.ts';
import { newKeyPair } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { call, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;
const credential = { apiKey: 'partner-key', apiSecret: 'partner-secret', referralId: 'partner' };

before(async () => {
  world = await startWorld();
  api = await startApi(world.engine, {
    lightning: { BTC: world.ferryNode },
    referralCredentials: [credential],
    notices: { infos: ['maintenance on Sunday'], warnings: [] },
  });
});
after(async () => {
  await api?.close();
  await world?.close();
});

async function signed(path: string, secret = credential.apiSecret) {
  const ts = String(Math.floor(Date.now() / 1000));
  const response = await fetch(api.url + path, {
    headers: { TS: ts, 'API-KEY': credential.apiKey, 'API-HMAC': requestHmac(secret, ts, 'GET', path) },
  });
  return { status: response.status, json: await response.json() };
}

describe('v2 surface', () => {
  test('infos, warnings and the reverse invoice expiry', async () => {
    assert.deepEqual((await call(api, 'GET', '/v2/infos')).json, ['maintenance on Sunday']);
    assert.deepEqual((await call(api, 'GET', '/v2/warnings')).json, []);
    assert.deepEqual((await call(api, 'GET', '/v2/swap/reverse/expiry')).json, { BTC: { BTC: { min: 3600, max: 3600 } } });
  });

  test('metadata is kept with the swap and restore answers it; bad bodies and ids are refused', async () => {
    const key = newKeyPair();
    const { body } = await rest<{ payment_request: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 30_000, memo: 'meta' });
    const created = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice: body.payment_request, refundPublicKey: hex.encode(key.publicKey) });
    assert.equal(created.status, 201);
    const id = created.json.id;
    assert.deepEqual(await call(api, 'PATCH', `/v2/swap/${id}/metadata`, { metadata: 'C0FFEE' }), { status: 200, json: {} });
    const restored = await call(api, 'POST', '/v2/swap/restore', { publicKey: hex.encode(key.publicKey) });
    assert.equal(restored.json[0].metadata, 'c0ffee');
    assert.equal((await call(api, 'GET', `/v2/swap/${id}`)).json.status, 'invoice.set', 'the status is untouched');
    for (const [body, error] of [
      [{ metadata: 'xyz' }, 'invalid parameter: metadata'],
      [{ metadata: 'ab'.repeat(1025) }, 'invalid parameter: metadata'],
      [{}, 'undefined parameter: metadata'],
      [{ metadata: 'ab', extra: 1 }, 'invalid parameter: extra'],
    ] as const) {
      assert.deepEqual(await call(api, 'PATCH', `/v2/swap/${id}/metadata`, body), { status: 400, json: { error } });
    }
    assert.equal((await call(api, 'PATCH', '/v2/swap/NoSuchSwap12/metadata', { metadata: 'ab' })).status, 404);
  });

  test('BIP-21 of a reverse invoice, pair stats, and the EVM refund signature of a UTXO or other-type swap', async () => {
    const created = await call(api, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', invoiceAmount: 20_000, preimageHash: '11'.repeat(32), claimPublicKey: hex.encode(newKeyPair().publicKey) });
    assert.equal(created.status, 201);
    const bip21 = await call(api, 'GET', `/v2/swap/reverse/${created.json.invoice}/bip21`);
    assert.equal(bip21.status, 404);
    assert.equal(bip21.json.error, 'no BIP-21 for swap', 'a swap created without a signed address has none');
    assert.equal((await call(api, 'GET', '/v2/swap/reverse/%20drop%20table/bip21')).status, 400);

    const stats = async (path: string, referral?: string) => {
      const response = await fetch(api.url + path, { headers: referral ? { referral } : {} });
      return { status: response.status, json: await response.json() };
    };
    assert.equal((await stats('/v2/swap/reverse/stats/BTC/BTC')).status, 400);
    assert.equal((await stats('/v2/swap/sideways/stats/BTC/BTC', 'pro')).status, 400);
    assert.equal((await stats('/v2/swap/reverse/stats/BTC/DOGE', 'pro')).status, 404);
    // The engine sampled every listed pair when it started: the series ends with the fee wallets are quoted now.
    const listed = await call(api, 'GET', '/v2/swap/reverse');
    const kept = await stats('/v2/swap/reverse/stats/BTC/BTC', 'pro');
    assert.equal(kept.status, 200, JSON.stringify(kept.json));
    const [at, fee] = kept.json.fee.at(-1);
    assert.equal(fee, listed.json.BTC.BTC.fees.percentage);
    assert.ok(Math.abs(Date.now() / 1000 - at) <= 600 + 60, 'sampled in the current ten-minute bucket');
    assert.equal(at % 600, 0);
    assert.equal(kept.json.maximalRoutingFee, undefined, 'a routing fee limit only on submarine pairs');
    const submarineStats = await stats('/v2/swap/submarine/stats/BTC/BTC', 'pro');
    assert.equal(submarineStats.status, 200);
    assert.deepEqual(submarineStats.json.maximalRoutingFee.map(([time]: number[]) => time), submarineStats.json.fee.map(([time]: number[]) => time));
    assert.equal((await stats('/v2/swap/submarine/stats/BTC/DOGE', 'pro')).json.error, 'invalid pair');

    // The EIP-712 refund of a swap of another type is not found; of a UTXO submarine swap, refused with the reason.
    assert.equal((await call(api, 'GET', `/v2/swap/chain/${created.json.id}/refund`)).status, 404);
    const submarine = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', preimageHash: '22'.repeat(32), refundPublicKey: hex.encode(newKeyPair().publicKey) });
    assert.equal(submarine.status, 201);
    const refund = await call(api, 'GET', `/v2/swap/submarine/${submarine.json.id}/refund`);
    assert.equal(refund.status, 400);
    assert.match(refund.json.error, /not an EVM swap/);
    assert.equal((await call(api, 'GET', '/v2/swap/submarine/NoSuchSwap12/refund')).status, 404);
    // As the reference, the swap's preimage hash names it too (a lockup found in the contract's logs knows no id).
    const byHash = await call(api, 'GET', `/v2/swap/submarine/${'22'.repeat(32)}/refund`);
    assert.equal(byHash.status, 400);
    assert.match(byHash.json.error, /not an EVM swap/);
    assert.equal((await call(api, 'GET', `/v2/swap/submarine/${'33'.repeat(32)}/refund`)).status, 404);
    // The chain refund signature takes a preimage hash as well (the reference's signer does): a hash of no chain swap,
    // or of a swap of another type, is not found.
    for (const hash of ['33'.repeat(32), '22'.repeat(32)]) assert.equal((await call(api, 'GET', `/v2/swap/chain/${hash}/refund`)).status, 404);
  });

  test('the Lightning graph: node, its channels, a channel by either id form, search by alias', async () => {
    const ferry = await world.ferryNode.getInfo();
    const node = await call(api, 'GET', `/v2/lightning/BTC/node/${ferry.publicKey}`);
    assert.deepEqual([node.status, node.json.id, node.json.alias], [200, ferry.publicKey, ferry.alias]);
    const channels = await call(api, 'GET', `/v2/lightning/BTC/channels/${ferry.publicKey}`);
    assert.equal(channels.status, 200);
    assert.ok(channels.json.length > 0);
    const [first] = channels.json;
    assert.match(first.shortChannelId, /^\d+x\d+x\d+$/);
    assert.equal(first.source.id, ferry.publicKey);
    assert.equal(typeof first.info.feePpm, 'number');
    const [block, tx, out] = first.shortChannelId.split('x').map(BigInt);
    const lndId = ((block << 40n) | (tx << 16n) | out).toString();
    for (const id of [first.shortChannelId, lndId]) {
      const channel = await call(api, 'GET', `/v2/lightning/BTC/channel/${id}`);
      assert.equal(channel.status, 200);
      assert.equal(channel.json.shortChannelId, first.shortChannelId);
      assert.equal(channel.json.policies.length, 2);
      assert.ok(channel.json.policies.some((p: { node: { id: string } }) => p.node.id === ferry.publicKey));
    }
    const found = await call(api, 'GET', '/v2/lightning/BTC/search?alias=ALI');
    assert.deepEqual(found.json.map((n: { alias: string }) => n.alias), ['alice']);
    assert.equal((await call(api, 'GET', `/v2/lightning/BTC/node/02${'ab'.repeat(32)}`)).status, 404);
    assert.equal((await call(api, 'GET', '/v2/lightning/BTC/node/nonsense')).status, 400);
    assert.equal((await call(api, 'GET', `/v2/lightning/DOGE/node/${ferry.publicKey}`)).status, 404);
    assert.equal((await call(api, 'GET', '/v2/lightning/BTC/channel/99999999x1x1')).status, 404);
    assert.equal((await call(api, 'GET', '/v2/lightning/BTC/channel/not-an-id')).status, 404);
    assert.equal((await call(api, 'GET', '/v2/lightning/BTC/search')).status, 400);
  });

  test('v2 referral calls answer the authenticated partner only', async () => {
    assert.deepEqual(await signed('/v2/referral'), { status: 200, json: { id: 'partner' } });
    assert.deepEqual(await signed('/v2/referral/fees'), { status: 200, json: {} });
    assert.deepEqual(await signed('/v2/referral/stats'), { status: 200, json: {} });
    // A referred submarine swap that fails (underpaid), and another partner's: the stats count the partner's only.
    const failed: string[] = [];
    for (const referralId of ['partner', 'someone-else']) {
      const { body } = await rest<{ payment_request: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 20_000, memo: 'referred' });
      const created = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice: body.payment_request, refundPublicKey: hex.encode(newKeyPair().publicKey), referralId });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await world.user.sendToAddress(created.json.address, satToBtc(created.json.expectedAmount - 500));
      failed.push(created.json.id);
    }
    await world.mine();
    for (const id of failed) await world.waitForStatus(id, 'transaction.lockupFailed');
    // And a referred reverse swap that succeeds: paid, locked, settled with the preimage.
    const preimage = hex.encode(newKeyPair().privateKey);
    const preimageHash = hex.encode(sha256(hex.decode(preimage)));
    const reverse = await call(api, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', invoiceAmount: 25_000, preimageHash, claimPublicKey: hex.encode(newKeyPair().publicKey), referralId: 'partner' });
    assert.equal(reverse.status, 201);
    const payment = world.alice.payInvoice({ paymentRequest: reverse.json.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await world.waitForStatus(reverse.json.id, 'transaction.mempool');
    assert.equal((await call(api, 'POST', `/v2/swap/reverse/${reverse.json.id}/claim`, { preimage })).status, 200);
    await payment;
    await world.waitForStatus(reverse.json.id, 'invoice.settled');
    const now = new Date();
    assert.deepEqual((await signed('/v2/referral/stats')).json, {
      [now.getUTCFullYear()]: {
        [now.getUTCMonth() + 1]: {
          volume: { total: '0.00025000', 'BTC/BTC': '0.00025000' },
          trades: { total: 1, 'BTC/BTC': 1 },
          failureRates: { submarine: 1, reverse: 0 },
        },
      },
    });
    const fees = (await signed('/v2/referral/fees')).json;
    assert.deepEqual(Object.keys(fees[now.getUTCFullYear()][now.getUTCMonth() + 1]), ['BTC']);
    assert.ok(fees[now.getUTCFullYear()][now.getUTCMonth() + 1].BTC > 0, 'the settled swap earned its percentage fee');
    assert.deepEqual(await signed('/v2/referral/stats/extra'), { status: 200, json: {} });
    for (const path of ['/v2/referral', '/v2/referral/fees', '/v2/referral/stats', '/v2/referral/stats/extra']) {
      assert.deepEqual(await signed(path, 'wrong-secret'), { status: 401, json: { error: 'unauthorized' } });
      assert.deepEqual(await call(api, 'GET', path), { status: 401, json: { error: 'TS header not set' } });
    }
  });

  test('what Ferry does not have is a clear 4xx naming it', async () => {
    const ark = await call(api, 'POST', '/v2/swap/submarine/AnySwapId123/refund/ark', {});
    assert.equal(ark.status, 400);
    assert.match(ark.json.error, /no ARK chain/);
    const quote = await call(api, 'GET', '/v2/quote/RBTC/in?tokenIn=a&tokenOut=b&amountIn=1');
    assert.equal(quote.status, 400);
    assert.match(quote.json.error, /RBTC has no tokens/);
    assert.equal((await call(api, 'GET', '/v2/lightning/BTC/bolt12/lno1xyz')).status, 404);
    assert.deepEqual(api.errors, []);
  });
});
