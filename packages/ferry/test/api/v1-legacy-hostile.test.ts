// API v1 calls under hostile input, and the v1 rules that need a legacy swap in a given state, against Ferry on its
// devnet: every malformed, mistyped or unknown argument of every v1 call is a 400/401/404 with `error` (never a
// 5xx); /setinvoice answers by status and refuses a changed invoice once paying; the cooperative v2 calls refuse
// legacy swaps with a 4xx; and Ferry takes back a legacy reverse lockup nobody claimed once it times out.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { newKeyPair } from '../helpers/swap-wallet.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

const refundPublicKey = hex.encode(newKeyPair().publicKey);
const claimPublicKey = hex.encode(newKeyPair().publicKey);
const newHash = () => hex.encode(sha256(randomBytes(32)));

const hostileValues: unknown[] = [null, 5, -1, 1.5, 1e300, true, [], ['x'], {}, { $gt: '' }, '', ' ', 'zz', '0x00', 'é', 'a'.repeat(5000), '../../etc/passwd', '\u0000'];

/** Every field of a body replaced by every hostile value, plus bodies that are not objects. */
function hostileBodies(valid: Record<string, unknown>): unknown[] {
  const bodies: unknown[] = [undefined, 'null', '[]', '"text"', '5', '{', '{"id":', JSON.stringify({ __proto__: { id: 'x' } })];
  for (const field of Object.keys(valid)) {
    for (const value of hostileValues) bodies.push({ ...valid, [field]: value });
    const { [field]: _, ...without } = valid;
    bodies.push(without);
  }
  return bodies;
}

async function expectRefusal(method: string, path: string, body: unknown) {
  const answer = await world.call(method, path, body);
  assert.ok([400, 401, 404].includes(answer.status), `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)} → ${answer.status} ${JSON.stringify(answer.json)}`);
  assert.equal(typeof answer.json.error, 'string', `${path}: ${JSON.stringify(answer.json)}`);
}

test('every v1 call: hostile bodies and queries are 400/401/404 with an error, and nothing is created', async () => {
  const created = await world.call('POST', '/createswap', { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', preimageHash: newHash(), refundPublicKey });
  assert.equal(created.status, 201);
  const count = await world.ferry.storage.swaps.count();
  const bob = await world.invoice('bob', 30_000);
  const calls: [string, string, Record<string, unknown>][] = [
    ['POST', '/createswap', { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', invoice: bob.invoice, refundPublicKey, pairHash: 'ab'.repeat(32), referralId: 'p' }],
    ['POST', '/createswap', { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: newHash(), claimPublicKey, invoiceAmount: 50_000 }],
    ['POST', '/createswap', { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: newHash(), claimPublicKey, onchainAmount: 50_000 }],
    ['POST', '/swaprates', { id: created.json.id }],
    ['POST', '/setinvoice', { id: created.json.id, invoice: 'lnbcrt1', pairHash: 'ab'.repeat(32) }],
    ['POST', '/swapstatus', { id: created.json.id }],
    ['POST', '/getswaptransaction', { id: created.json.id }],
    ['POST', '/broadcasttransaction', { currency: 'BTC', transactionHex: '0200' }],
    ['POST', '/gettransaction', { currency: 'BTC', transactionId: 'ab'.repeat(32) }],
    ['POST', '/routinghints', { symbol: 'BTC', routingNode: world.ferry.devnet!.info.lightning.bob.pubkey }],
    // The EVM chain's v1 fields on the RBTC pair.
    ['POST', '/createswap', { type: 'reversesubmarine', pairId: 'RBTC/BTC', orderSide: 'buy', preimageHash: newHash(), claimAddress: '0x' + '11'.repeat(20), invoiceAmount: 50_000, prepayMinerFee: true }],
  ];
  for (const [method, path, valid] of calls) {
    for (const body of hostileBodies(valid)) {
      const answer = await world.call(method, path, body);
      // A few substitutions leave a valid request (e.g. an optional field dropped, /swapstatus of a known id).
      if (answer.status === 200 || answer.status === 201) continue;
      await expectRefusal(method, path, body);
    }
  }
  for (const query of ['', '?id=', '?id=unknown12345', '?id=' + 'x'.repeat(5000), '?id=%00', '?id[]=a', '?other=1']) {
    const response = await fetch(`${world.ferry.apiUrl}/streamswapstatus${query}`);
    assert.ok([400, 404].includes(response.status), `${query} → ${response.status}`);
    assert.equal(typeof ((await response.json()) as { error: unknown }).error, 'string');
  }
  await expectRefusal('GET', '/referrals/query', undefined);
  // Only the valid creations among the substitutions made swaps; none is half made.
  assert.ok((await world.ferry.storage.swaps.count()) >= count);
  assert.deepEqual(failedRequests(world.log), []);
});

test('/setinvoice on a legacy swap by status: the amounts in swap.created, {} once locked, and no other invoice once paying', async () => {
  const first = await world.invoice('bob', 30_000);
  const created = await world.call('POST', '/createswap', { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', preimageHash: first.paymentHash, refundPublicKey });
  const set = await world.call('POST', '/setinvoice', { id: created.json.id, invoice: first.invoice });
  assert.equal(set.status, 200);
  assert.deepEqual(Object.keys(set.json).sort(), ['acceptZeroConf', 'bip21', 'expectedAmount']);
  assert.match(set.json.bip21, new RegExp(`^bitcoin:${created.json.address}\\?amount=`));

  const second = await world.invoice('bob', 30_000);
  const late = await world.call('POST', '/createswap', { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', preimageHash: second.paymentHash, refundPublicKey });
  assert.deepEqual(await world.call('POST', '/swaprates', { id: late.json.id }), { status: 400, json: { error: 'no coins were locked up yet' } });
  await world.fund(late.json.address, set.json.expectedAmount);
  await world.waitForStatus(late.json.id, ['transaction.mempool', 'transaction.confirmed']);
  assert.equal((await world.call('POST', '/swaprates', { id: late.json.id })).json.invoiceAmount, 30_000);
  assert.deepEqual(await world.call('POST', '/setinvoice', { id: late.json.id, invoice: second.invoice }), { status: 200, json: {} });
  await world.waitForStatus(late.json.id, ['invoice.pending', 'invoice.paid', 'transaction.claim.pending', 'transaction.claimed'], { mine: true });
  const other = await world.invoice('bob', 30_000);
  assert.deepEqual(await world.call('POST', '/setinvoice', { id: late.json.id, invoice: other.invoice }), {
    status: 400,
    json: { error: 'lightning payment in progress already', invoice: second.invoice },
  });
  await world.waitForStatus(late.json.id, ['transaction.claimed'], { mine: true, timeoutMs: 30_000 });
  assert.deepEqual(failedRequests(world.log), []);
});

test('the cooperative v2 calls refuse legacy swaps with a 400; a reverse swap id is no swap for /getswaptransaction', async () => {
  const reverse = await world.call('POST', '/createswap', { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: newHash(), claimPublicKey, invoiceAmount: 40_000 });
  assert.equal(reverse.status, 201);
  const nonce = '02' + '11'.repeat(65);
  const claim = await world.call('POST', `/v2/swap/reverse/${reverse.json.id}/claim`, { preimage: '00'.repeat(32), pubNonce: nonce, transaction: '00', index: 0 });
  assert.equal(claim.status, 400);
  const transaction = await world.call('POST', '/getswaptransaction', { id: reverse.json.id });
  assert.equal(transaction.status, 400);
  assert.match(transaction.json.error, new RegExp(`could not find swap with id: ${reverse.json.id}`));
  assert.deepEqual(failedRequests(world.log), []);
});

test('Ferry takes back a legacy reverse lockup nobody claimed: the refund spends it after the timeout, the payment fails', async () => {
  const preimageHash = newHash();
  const created = await world.call('POST', '/createswap', { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash, claimPublicKey, invoiceAmount: 45_000 });
  assert.equal(created.status, 201);
  const payment = world.pay('alice', created.json.invoice);
  const locked = await world.waitForStatus(created.json.id, ['transaction.mempool'], { timeoutMs: 30_000 });
  await world.mine(created.json.timeoutBlockHeight - (await world.rpc.getBlockCount()));
  const refunded = await world.waitForStatus(created.json.id, ['transaction.refunded'], { mine: true, timeoutMs: 30_000 });
  assert.equal(refunded.status, 'transaction.refunded');
  // Once the refund is in a block the hold invoice is cancelled and the payer gets its HTLC back.
  await world.mine();
  // a hang guard, cleared with the answer: left armed, it kept the test process alive after its last test
  let guard: NodeJS.Timeout | undefined;
  const failed = await Promise.race([payment, new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error('the payment never failed')), 20_000)))]).finally(() => clearTimeout(guard));
  assert.equal(failed.status, 'FAILED');
  // The lockup output is spent by a transaction without the preimage: the redeem script's timeout branch.
  const lockup = (await world.rpc.decodeRawTransaction(locked.transaction.hex)) as any;
  const vout = lockup.vout.findIndex((out: any) => out.scriptPubKey.address === created.json.lockupAddress);
  assert.equal(await world.rpc.getTxOut(locked.transaction.id, vout), null);
  // Waiting for the status mined blocks too: the refund is in one of the last few.
  let refund: any;
  for (let height = await world.rpc.getBlockCount(); refund === undefined && height > created.json.timeoutBlockHeight - 1; height--) {
    const block = await world.rpc.getBlockVerbose(await world.rpc.getBlockHash(height));
    refund = (block.tx as any[]).find((tx) => tx.vin.some((input: any) => input.txid === locked.transaction.id && input.vout === vout));
  }
  assert.ok(refund, 'the refund is in a block after the timeout');
  assert.deepEqual(refund.vin[0].txinwitness.slice(1), ['', Buffer.from(hex.decode(created.json.redeemScript)).toString('hex')]);
  assert.ok(refund.locktime >= created.json.timeoutBlockHeight);
  assert.deepEqual(failedRequests(world.log), []);
});
