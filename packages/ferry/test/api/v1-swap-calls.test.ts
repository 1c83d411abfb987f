// v1 /swaprates, /setinvoice and /getswaptransaction on Taproot swaps created over v2, against Ferry on its
// devnet: real lockups from the user wallet, real Lightning payments to bob.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

const PAYING = ['invoice.pending', 'invoice.paid', 'transaction.claim.pending', 'transaction.claimed'];

/** A submarine swap over v2 whose invoice (of bob) comes later, through v1. */
async function submarineFor(sat: number) {
  const bob = await world.invoice('bob', sat);
  const created = await world.call('POST', '/v2/swap/submarine', {
    from: 'BTC',
    to: 'BTC',
    preimageHash: bob.paymentHash,
    refundPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return { ...bob, ...created.json };
}

/** What the user must lock for an invoice: the amount, the 0.1 % fee rounded up, and the (Taproot) claim miner fee. */
async function expectedAmount(sat: number): Promise<number> {
  const pair = (await world.call('GET', '/v2/swap/submarine')).json.BTC.BTC;
  return sat + Math.ceil(sat / 1000) + pair.fees.minerFees;
}

test('/setinvoice in swap.created answers the amount to lock, its bip21 and the 0-conf decision', async () => {
  const swap = await submarineFor(30_000);
  const expected = await expectedAmount(30_000);
  const answer = await world.call('POST', '/setinvoice', { id: swap.id, invoice: swap.invoice });
  assert.equal(answer.status, 200);
  assert.deepEqual(Object.keys(answer.json).sort(), ['acceptZeroConf', 'bip21', 'expectedAmount']);
  assert.equal(answer.json.expectedAmount, expected);
  assert.equal(answer.json.acceptZeroConf, true); // under the pair's maximalZeroConf
  assert.equal(answer.json.bip21, `bitcoin:${swap.address}?amount=${expected / 1e8}&label=Send%20to%20BTC%20lightning`);
  assert.equal((await world.call('POST', '/swapstatus', { id: swap.id })).json.status, 'invoice.set');
  // A second invoice for the same swap is a failed operation, which v1 answers with 400.
  const again = await world.call('POST', '/setinvoice', { id: swap.id, invoice: swap.invoice });
  assert.deepEqual(again, { status: 400, json: { error: `swap ${swap.id} has an invoice already` } });
});

test('a swap funded before its invoice: /swaprates, /getswaptransaction, /setinvoice {} and then payment in progress', async () => {
  const swap = await submarineFor(50_000);
  const noCoins = { status: 400, json: { error: 'no coins were locked up yet' } };
  assert.deepEqual(await world.call('POST', '/swaprates', { id: swap.id }), noCoins);
  assert.deepEqual(await world.call('POST', '/getswaptransaction', { id: swap.id }), noCoins);

  const txid = await world.fund(swap.address, await expectedAmount(50_000));
  await world.waitForStatus(swap.id, ['transaction.mempool']);
  assert.deepEqual(await world.call('POST', '/swaprates', { id: swap.id }), { status: 200, json: { invoiceAmount: 50_000 } });

  const transaction = await world.call('POST', '/getswaptransaction', { id: swap.id });
  assert.equal(transaction.status, 200);
  assert.deepEqual(Object.keys(transaction.json).sort(), ['timeoutBlockHeight', 'timeoutEta', 'transactionHex']);
  assert.equal(transaction.json.transactionHex, await world.rpc.getRawTransactionHex(txid));
  assert.equal(transaction.json.timeoutBlockHeight, swap.timeoutBlockHeight);
  const now = Math.floor(Date.now() / 1000);
  const blocksLeft = swap.timeoutBlockHeight - (await world.rpc.getBlockCount());
  assert.ok(Math.abs(transaction.json.timeoutEta - (now + blocksLeft * 600)) <= 5, `timeoutEta ${transaction.json.timeoutEta}`);

  // The coins are seen: the amount is settled, so v1 answers the invoice with an empty object.
  assert.deepEqual(await world.call('POST', '/setinvoice', { id: swap.id, invoice: swap.invoice }), { status: 200, json: {} });
  await world.waitForStatus(swap.id, PAYING, { mine: true });
  const another = await world.invoice('bob', 50_000);
  assert.deepEqual(await world.call('POST', '/setinvoice', { id: swap.id, invoice: another.invoice }), {
    status: 400,
    json: { error: 'lightning payment in progress already', invoice: swap.invoice },
  });
});

test('a reverse swap id, an unknown id and missing arguments are 400s with the reason', async () => {
  const { preimageHash } = newPreimage();
  const reverse = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 50_000,
    preimageHash: hex.encode(preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(reverse.status, 201);
  const id = reverse.json.id;
  const bob = await world.invoice('bob', 20_000);
  for (const [path, body] of [
    ['/getswaptransaction', { id }],
    ['/swaprates', { id }],
    ['/setinvoice', { id, invoice: bob.invoice }],
    ['/getswaptransaction', { id: 'Nope12345678' }],
    ['/swaprates', { id: 'x' }],
  ] as const) {
    assert.deepEqual(await world.call('POST', path, body), { status: 400, json: { error: `could not find swap with id: ${body.id}` } }, path);
  }
  const bad: [string, unknown, string][] = [
    ['/swaprates', undefined, 'request body is missing'],
    ['/swaprates', {}, 'undefined parameter: id'],
    ['/getswaptransaction', { id: 5 }, 'invalid parameter: id'],
    ['/getswaptransaction', { id: 'a'.repeat(65) }, 'invalid parameter: id'],
    ['/setinvoice', { id }, 'undefined parameter: invoice'],
    ['/setinvoice', { id, invoice: 'lnbcrt1x', pairHash: 7 }, 'invalid parameter: pairHash'],
  ];
  for (const [path, body, error] of bad) {
    assert.deepEqual(await world.call('POST', path, body), { status: 400, json: { error } }, `${path} ${JSON.stringify(body)}`);
  }
  assert.deepEqual(failedRequests(world.log), []);
});
