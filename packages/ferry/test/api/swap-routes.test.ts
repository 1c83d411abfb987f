// v2 swap REST routes and v1 /swapstatus over real HTTP: shape validation, what reaches the engine, and how
// engine errors are answered. The swap service here only stores statuses and records calls: this is the
// transport-level test; swap semantics are tested against the engine itself.
import { httpStatusOf } from '../../src/api/http/errors.ts';
import { test, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { SwapError } from '@ferry/sdk/protocol/index.js';
import { MemorySwaps, call, startApi, swapId } from './swap-api-harness.ts';

const swaps = new MemorySwaps();
const api = await startApi(swaps);
after(() => api.close());

const key = '0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798'; // the generator, upper case
const lowerKey = key.toLowerCase();
const hash = 'AB'.repeat(32);
const nonce = '02' + '11'.repeat(65);
const signature = '22'.repeat(32);
const id = swapId(1);
swaps.setStatus(id, { status: 'transaction.claim.pending' });

beforeEach(() => {
  swaps.calls.length = 0;
  swaps.failure = undefined;
});

const lastCall = () => swaps.calls.at(-1);

test('pair listings come from the engine, and are not shadowed by GET /v2/swap/{id}', async () => {
  const submarine = await call(api, 'GET', '/v2/swap/submarine');
  assert.equal(submarine.status, 200);
  assert.equal(submarine.json.BTC.BTC.fees.minerFees, 1);
  const reverse = await call(api, 'GET', '/v2/swap/reverse');
  assert.deepEqual(reverse.json.BTC.BTC.fees.minerFees, { lockup: 1, claim: 1 });
  assert.deepEqual(swaps.calls.map((c) => c.method), ['submarinePairs', 'reversePairs']);
});

test('GET /v2/swap/chain: the chain pairs, none yet: 200 {} (not read as the status of a swap called "chain")', async () => {
  const chain = await call(api, 'GET', '/v2/swap/chain');
  assert.equal(chain.status, 200);
  assert.deepEqual(chain.json, {});
  assert.deepEqual(swaps.calls.map((c) => c.method), ['chainPairs']);
});

test('the three pair lists fetched together, as boltz-client and the web app do, all answer 200', async () => {
  const answers = await Promise.all(['submarine', 'reverse', 'chain'].map((type) => call(api, 'GET', `/v2/swap/${type}`)));
  assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
  assert.equal(answers[0].json.BTC.BTC.hash, 'ab');
  assert.equal(answers[1].json.BTC.BTC.hash, 'cd');
  assert.deepEqual(answers[2].json, {});
  assert.deepEqual(swaps.calls.map((c) => c.method).sort(), ['chainPairs', 'reversePairs', 'submarinePairs']);
});

test('POST /v2/swap/submarine: 201; hex is lower-cased and absent options stay absent', async () => {
  const created = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice: 'lnbcrt1x', refundPublicKey: key, extra: 1 });
  assert.equal(created.status, 201);
  assert.equal(typeof created.json.id, 'string');
  assert.deepEqual(lastCall(), { method: 'createSubmarine', args: [{ from: 'BTC', to: 'BTC', invoice: 'lnbcrt1x', refundPublicKey: lowerKey }] });

  await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', preimageHash: hash, refundPublicKey: key, pairHash: 'ph', referralId: 'ref' });
  assert.deepEqual(lastCall()?.args, [
    { from: 'BTC', to: 'BTC', preimageHash: hash.toLowerCase(), refundPublicKey: lowerKey, pairHash: 'ph', referralId: 'ref' },
  ]);
});

test('POST /v2/swap/reverse: 201 with either amount; description passes through', async () => {
  const created = await call(api, 'POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    preimageHash: hash,
    claimPublicKey: key,
    invoiceAmount: 100_000,
    description: 'coffee',
  });
  assert.equal(created.status, 201);
  assert.deepEqual(lastCall()?.args, [
    { from: 'BTC', to: 'BTC', preimageHash: hash.toLowerCase(), claimPublicKey: lowerKey, invoiceAmount: 100_000, description: 'coffee' },
  ]);
  await call(api, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', preimageHash: hash, claimPublicKey: key, onchainAmount: 5 });
  assert.deepEqual(lastCall()?.args, [{ from: 'BTC', to: 'BTC', preimageHash: hash.toLowerCase(), claimPublicKey: lowerKey, onchainAmount: 5 }]);
});

test('every per-swap route reaches its engine call with the checked arguments', async () => {
  const routes: [string, string, unknown, string, unknown[]][] = [
    ['GET', `/v2/swap/submarine/${id}/transaction`, undefined, 'submarineTransaction', [id]],
    ['POST', `/v2/swap/submarine/${id}/invoice`, { invoice: 'lnbcrt1y', pairHash: 'ph' }, 'setSubmarineInvoice', [id, 'lnbcrt1y', 'ph']],
    ['GET', `/v2/swap/submarine/${id}/invoice/amount`, undefined, 'submarineInvoiceAmount', [id]],
    ['GET', `/v2/swap/submarine/${id}/preimage`, undefined, 'submarinePreimage', [id]],
    ['GET', `/v2/swap/submarine/${id}/claim`, undefined, 'submarineClaimDetails', [id]],
    ['POST', `/v2/swap/submarine/${id}/claim`, { pubNonce: nonce.toUpperCase(), partialSignature: signature }, 'submarineClaimSignature', [id, { pubNonce: nonce, partialSignature: signature }]],
    ['POST', `/v2/swap/submarine/${id}/refund`, { pubNonce: nonce, transaction: '0200AB', index: 0 }, 'submarineRefund', [id, { pubNonce: nonce, transaction: '0200ab', index: 0 }]],
    ['GET', `/v2/swap/reverse/${id}/transaction`, undefined, 'reverseTransaction', [id]],
    ['POST', `/v2/swap/reverse/${id}/claim`, { preimage: '33'.repeat(32) }, 'reverseClaim', [id, { preimage: '33'.repeat(32) }]],
    ['POST', `/v2/swap/reverse/${id}/claim`, { preimage: '33'.repeat(32), pubNonce: nonce, transaction: '02', index: 1 }, 'reverseClaim', [id, { preimage: '33'.repeat(32), pubNonce: nonce, transaction: '02', index: 1 }]],
  ];
  for (const [method, path, body, engineMethod, args] of routes) {
    const answer = await call(api, method, path, body);
    assert.equal(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.json)}`);
    assert.deepEqual(lastCall(), { method: engineMethod, args }, `${method} ${path}`);
  }
});

test('engine refusals are answered verbatim, with their extra fields', async () => {
  const refusals = [
    new SwapError('invalid', 'lightning payment in progress already', { invoice: 'lnbcrt1z' }),
    new SwapError('notFound', `could not find swap with id: ${id}`),
    new SwapError('conflict', 'a swap with this invoice exists already'),
    new SwapError('unsupported', 'integration disabled'),
  ];
  for (const refusal of refusals) {
    swaps.failure = refusal;
    const answer = await call(api, 'POST', `/v2/swap/submarine/${id}/invoice`, { invoice: 'lnbcrt1y' });
    assert.deepEqual(answer, { status: httpStatusOf(refusal), json: { error: refusal.message, ...refusal.extra } });
  }
  // a bug in the engine is a 500 that shows no internals and is logged
  swaps.failure = new Error('database exploded at /secret/path');
  const crash = await call(api, 'GET', `/v2/swap/${id}`);
  assert.deepEqual(crash, { status: 500, json: { error: 'internal error' } });
  assert.match(api.errors.join('\n'), /database exploded/);
  api.errors.length = 0;
});

test('GET /v2/swap/{id} and v1 POST /swapstatus: status or 404', async () => {
  assert.deepEqual(await call(api, 'GET', `/v2/swap/${id}`), { status: 200, json: { status: 'transaction.claim.pending' } });
  assert.deepEqual(await call(api, 'POST', '/swapstatus', { id }), { status: 200, json: { status: 'transaction.claim.pending' } });
  const unknown = swapId(404);
  const missing = { status: 404, json: { error: `could not find swap with id: ${unknown}` } };
  assert.deepEqual(await call(api, 'GET', `/v2/swap/${unknown}`), missing);
  assert.deepEqual(await call(api, 'POST', '/swapstatus', { id: unknown }), missing);
  assert.deepEqual(await call(api, 'POST', '/swapstatus', {}), { status: 400, json: { error: 'undefined parameter: id' } });
  assert.deepEqual(await call(api, 'POST', '/swapstatus', { id: 12 }), { status: 400, json: { error: 'invalid parameter: id' } });
});

test('GET /v2/swap/status: up to 64 ids to their statuses; one unknown id is a 404', async () => {
  const other = swapId(2);
  swaps.setStatus(other, { status: 'swap.created' });
  assert.deepEqual(await call(api, 'GET', `/v2/swap/status?ids=${id}&ids=${other}&ids=${id}`), {
    status: 200,
    json: { [id]: { status: 'transaction.claim.pending' }, [other]: { status: 'swap.created' } },
  });
  const unknown = swapId(405);
  assert.deepEqual(await call(api, 'GET', `/v2/swap/status?ids=${id}&ids=${unknown}`), {
    status: 404,
    json: { error: `could not find swap with id: ${unknown}` },
  });
  assert.deepEqual(await call(api, 'GET', '/v2/swap/status'), { status: 400, json: { error: 'undefined parameter: ids' } });
  const many = Array.from({ length: 65 }, (_, i) => `ids=${swapId(i + 1)}`).join('&');
  assert.deepEqual(await call(api, 'GET', `/v2/swap/status?${many}`), { status: 400, json: { error: 'too many ids: 65 (at most 64)' } });
  swaps.calls.length = 0;
  const sixtyFour = Array.from({ length: 64 }, () => `ids=${id}`).join('&');
  assert.equal((await call(api, 'GET', `/v2/swap/status?${sixtyFour}`)).status, 200);
  assert.equal(swaps.calls.length, 1); // duplicates are read once
});
