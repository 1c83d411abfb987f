// The reference's /v2/lightning/{currency}/bolt12 calls over HTTP: registering an offer, changing its webhook and
// deleting it with the offer key's signature, the refusals (bad offers, forged or non-hex signatures, unknown
// offers and currencies) and fetch's 404 while no Lightning backend speaks BOLT12.
import { OfferRegistry } from '../../src/lightning/bolt12/registry.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { OWNER_MESSAGES, decodeOffer, encodeOffer, signOwnerMessage } from '@ferry/sdk/lightning/bolt12/index.js';
import { MemorySwaps, call, startApi } from './swap-api-harness.ts';

const offers = new OfferRegistry();
// The routes read only which currencies have a Lightning node (their names); no node is called.
const api = await startApi(new MemorySwaps(), { offers, lightning: { BTC: {} as never } });
after(() => api.close());

const secret = new Uint8Array(32).fill(0x61);
const offer = encodeOffer({ description: 'reverse swaps', issuerId: secp256k1.getPublicKey(secret, true) });
const sign = (message: string, key = secret) => hex.encode(signOwnerMessage(message, key));
const registered = () => offers.get('BTC', decodeOffer(offer));

test('register, set and remove the webhook, delete: each change only with the offer key', async () => {
  assert.deepEqual(await call(api, 'POST', '/v2/lightning/BTC/bolt12', { offer }), { status: 201, json: {} });
  assert.deepEqual(await registered(), { offer });
  assert.equal((await call(api, 'POST', '/v2/lightning/BTC/bolt12', { offer })).status, 409);

  const url = 'https://wallet.example/invoice';
  assert.equal((await call(api, 'PATCH', '/v2/lightning/BTC/bolt12', { offer, url, signature: sign(OWNER_MESSAGES.update) })).status, 401);
  assert.deepEqual(await call(api, 'PATCH', '/v2/lightning/BTC/bolt12', { offer, url, signature: sign(url) }), { status: 200, json: {} });
  assert.deepEqual(await registered(), { offer, url });
  assert.equal((await call(api, 'PATCH', '/v2/lightning/BTC/bolt12', { offer, signature: sign(OWNER_MESSAGES.update) })).status, 200);
  assert.deepEqual(await registered(), { offer });

  const forged = await call(api, 'DELETE', '/v2/lightning/BTC/bolt12', { offer, signature: sign(OWNER_MESSAGES.delete, new Uint8Array(32).fill(0x62)) });
  assert.deepEqual(forged, { status: 401, json: { error: 'invalid signature' } });
  const notHex = await call(api, 'DELETE', '/v2/lightning/BTC/bolt12', { offer, signature: 'xyz' });
  assert.equal(notHex.status, 422);
  assert.ok(await registered());
  assert.deepEqual(await call(api, 'POST', '/v2/lightning/BTC/bolt12/delete', { offer, signature: sign(OWNER_MESSAGES.delete) }), { status: 200, json: {} });
  assert.equal(await registered(), undefined);
  const gone = await call(api, 'DELETE', '/v2/lightning/BTC/bolt12', { offer, signature: sign(OWNER_MESSAGES.delete) });
  assert.deepEqual(gone, { status: 404, json: { error: 'offer is not registered' } });
});

test('bad offers, URLs and currencies are 4xx with a reason', async () => {
  const pathsOnly = encodeOffer({ description: 'x', paths: [{ firstNode: { shortChannelId: 1n, direction: 0 }, pathKey: secp256k1.getPublicKey(secret, true), hops: [{ blindedNodeId: secp256k1.getPublicKey(secret, true), encryptedRecipientData: new Uint8Array() }] }] });
  const cases: [string, string, unknown, number, RegExp][] = [
    ['POST', '/v2/lightning/BTC/bolt12', { offer: 'lno1qqqq' }, 400, /^invalid offer/],
    ['POST', '/v2/lightning/BTC/bolt12', { offer: 'lnbcrt1abc' }, 400, /^invalid offer/],
    ['POST', '/v2/lightning/BTC/bolt12', { offer: pathsOnly }, 400, /no signing key/],
    ['POST', '/v2/lightning/BTC/bolt12', { offer, url: 'ftp://x' }, 400, /url/],
    ['POST', '/v2/lightning/BTC/bolt12', { offer: 5 }, 400, /offer/],
    ['POST', '/v2/lightning/BTC/bolt12', {}, 400, /offer/],
    ['POST', '/v2/lightning/L-BTC/bolt12', { offer }, 404, /no BOLT12 support for currency: L-BTC/],
    ['PATCH', '/v2/lightning/BTC/bolt12', { offer, signature: sign(OWNER_MESSAGES.update) }, 404, /not registered/],
    ['PATCH', '/v2/lightning/BTC/bolt12', { offer }, 400, /signature/],
    ['DELETE', '/v2/lightning/BTC/bolt12', { offer, signature: '00'.repeat(64) }, 401, /invalid signature/],
    ['POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 0 }, 422, /amount/],
    ['POST', '/v2/lightning/BTC/bolt12/fetch', {}, 422, /offer/],
    ['POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 1000 }, 404, /^no BOLT12 support: fetching invoices/],
    ['GET', '/v2/lightning/BTC/bolt12/L-BTC', undefined, 404, /no reverse swaps from BTC to L-BTC/],
    ['GET', '/v2/lightning/DOGE/bolt12/BTC', undefined, 404, /no BOLT12 support/],
  ];
  for (const [method, path, body, status, error] of cases) {
    const answer = await call(api, method, path, body);
    assert.equal(answer.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`);
    assert.match(answer.json.error, error, `${method} ${path}`);
  }
});

test('the calls are in the served API document', async () => {
  const document = (await call(api, 'GET', '/v2/swagger.json')).json;
  const item = document.paths['/v2/lightning/{currency}/bolt12'];
  assert.ok(item.post && item.patch && item.delete);
  assert.ok(document.paths['/v2/lightning/{currency}/bolt12/fetch'].post);
  assert.ok(document.paths['/v2/lightning/{currency}/bolt12/{receiving}'].get);
  assert.doesNotMatch(JSON.stringify(item), /Not supported/);
});
