// Hostile clients over HTTP against the real engine on the devnet: parallel creations racing for one invoice or
// preimage hash, parallel GET/POST of one cooperative claim, invoices Ferry must not accept (another network, no
// amount, expired or about to, a final CLTV delta the swap cannot cover), and refund transactions that cannot be
// signed. Every refusal is a 4xx with a clear text; nothing ends in a 500, a second winner or a second broadcast.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { encodeBolt11, type Bolt11InvoiceFields } from '@ferry/sdk/lightning/bolt11/index.js';
import { aliceInvoice } from '../engine/adversarial-support.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { call, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;

before(async () => {
  world = await startWorld();
  api = await startApi(world.engine);
});
after(async () => {
  await api?.close();
  await world?.close();
  assert.deepEqual(api?.errors ?? [], [], 'no request failed with an internal error');
});

const statuses = (answers: { status: number }[]) => answers.map((answer) => answer.status).sort();

/** An invoice signed by a stranger's node key, with whatever fields a test wants. */
function forgedInvoice(fields: Partial<Bolt11InvoiceFields>): string {
  return encodeBolt11(
    {
      network: 'bcrt',
      amountMsat: 20_000_000n,
      timestamp: Math.floor(Date.now() / 1000),
      paymentHash: hex.encode(randomBytes(32)),
      paymentSecret: hex.encode(randomBytes(32)),
      description: 'adversarial',
      expiry: 3600,
      ...fields,
    },
    randomBytes(32),
  );
}

describe('adversarial over HTTP', () => {
  test('parallel creations with one invoice or one preimage hash: exactly one 201, the rest 409', async () => {
    const refundPublicKey = hex.encode(newKeyPair().publicKey);
    const { invoice } = await aliceInvoice(world, 21_000);
    const sameInvoice = await Promise.all(
      Array.from({ length: 10 }, () => call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey })),
    );
    assert.deepEqual(statuses(sameInvoice), [201, ...Array(9).fill(409)]);
    for (const answer of sameInvoice.filter((a) => a.status === 409)) {
      assert.match(answer.json.error, /^a swap with this (invoice|preimage hash) exists already$/);
    }

    const { preimageHash } = newPreimage();
    const sameHash = await Promise.all(
      Array.from({ length: 10 }, () => call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', preimageHash, refundPublicKey })),
    );
    assert.deepEqual(statuses(sameHash), [201, ...Array(9).fill(409)]);

    // Reverse swaps racing for one hash, with a submarine swap in the race too: one winner, whose hold invoice
    // the losers must not have cancelled.
    const reverseHash = newPreimage();
    const claimPublicKey = hex.encode(newKeyPair().publicKey);
    const race = await Promise.all([
      ...Array.from({ length: 8 }, () =>
        call(api, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', preimageHash: reverseHash.preimageHash, claimPublicKey, invoiceAmount: 30_000 }),
      ),
      call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', preimageHash: reverseHash.preimageHash, refundPublicKey }),
    ]);
    assert.deepEqual(statuses(race), [201, ...Array(8).fill(409)]);
    for (const answer of race.filter((a) => a.status === 409)) assert.equal(answer.json.error, 'a swap with this preimage hash exists already');
    const winner = race.find((a) => a.status === 201)!;
    if (winner.json.invoice !== undefined) {
      const paid = world.alice.payInvoice({ paymentRequest: winner.json.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
      await world.waitForStatus(winner.json.id, 'transaction.mempool');
      assert.equal((await world.ferryNode.lookupInvoice(reverseHash.preimageHash))?.state, 'ACCEPTED');
      await world.ferryNode.cancelHoldInvoice(reverseHash.preimageHash);
      await paid;
    }
  });

  test('parallel GET and POST of one cooperative claim: one nonce, one signature accepted, one broadcast', async () => {
    const owner = newKeyPair();
    const { invoice } = await aliceInvoice(world, 24_000);
    const created = (await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) })).json;
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount));
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.claim.pending');

    const path = `/v2/swap/submarine/${created.id}/claim`;
    const details = await Promise.all(Array.from({ length: 6 }, () => call(api, 'GET', path)));
    assert.deepEqual(statuses(details), Array(6).fill(200));
    assert.equal(new Set(details.map((d) => d.json.pubNonce)).size, 1, 'one Ferry nonce until it is used');
    assert.equal(new Set(details.map((d) => d.json.transactionHash)).size, 1);

    const { pubNonce, transactionHash } = details[0].json;
    const session = clientSession(owner, lockup.keys, lockup.swapTree, hex.decode(transactionHash));
    const body = { pubNonce: session.pubNonce, partialSignature: session.sign(pubNonce) };
    const posts = await Promise.all([
      ...Array.from({ length: 6 }, () => call(api, 'POST', path, body)),
      ...Array.from({ length: 3 }, () => call(api, 'GET', path)),
    ]);
    const postStatuses = statuses(posts.slice(0, 6));
    assert.deepEqual(postStatuses, [200, 400, 400, 400, 400, 400]);
    for (const answer of posts.filter((a) => a.status === 400)) {
      assert.match(answer.json.error, /^(swap not eligible for a cooperative claim|no claim details were requested for this swap)$/);
    }
    for (const get of posts.slice(6)) {
      if (get.status === 200) assert.equal(get.json.pubNonce, pubNonce, 'a nonce handed out is never replaced by another for the same use');
    }
    assert.equal((await call(api, 'GET', `/v2/swap/${created.id}`)).json.status, 'transaction.claimed');
    const { vout } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null, 'claimed by the one accepted signature');
    await world.mine();
  });

  test('invoices Ferry must not accept are refused with 400, at creation and when set later', async () => {
    const refundPublicKey = hex.encode(newKeyPair().publicKey);
    const create = (invoice: string) => call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey });
    const now = Math.floor(Date.now() / 1000);
    const refused: [string, string | RegExp][] = [
      [forgedInvoice({ network: 'bc' }), 'invalid invoice: not an invoice of network lnbcrt'],
      [forgedInvoice({ network: 'tb' }), 'invalid invoice: not an invoice of network lnbcrt'],
      [forgedInvoice({ amountMsat: undefined }), 'invoice has no amount'],
      [(await aliceInvoice(world, 0)).invoice, 'invoice has no amount'],
      [forgedInvoice({ timestamp: now - 7_200, expiry: 3_600 }), 'invoice expired already'],
      [forgedInvoice({ expiry: 60 }), /^invoice expires too soon/],
      [forgedInvoice({ minFinalCltvExpiry: 300 }), 'invoice min final CLTV expiry is too long for the swap timeout'],
      [forgedInvoice({ amountMsat: 9_999_000n }), '9999 is less than minimal of 10000'],
      [forgedInvoice({ amountMsat: 10_000_000_001n }), '10000001 is exceeds maximal of 10000000'],
      ['lnbcrt1notaninvoice', /^invalid invoice: /],
    ];
    // 9 999 999 msat rounds up to 10 000 sat: accepted, not refused.
    const roundedUp = await create(forgedInvoice({ amountMsat: 9_999_999n }));
    assert.equal(roundedUp.status, 201, JSON.stringify(roundedUp.json));
    const exact = await create(forgedInvoice({ amountMsat: 10_000_000n }));
    assert.equal(roundedUp.json.expectedAmount, exact.json.expectedAmount, 'a sub-satoshi remainder is charged as a whole satoshi');
    assert.equal((await create(forgedInvoice({ amountMsat: 10_000_000_000n }))).status, 201, 'the maximal amount is accepted');

    for (const [invoice, error] of refused) {
      const answer = await create(invoice);
      assert.equal(answer.status, 400, `${invoice}: ${JSON.stringify(answer.json)}`);
      if (typeof error === 'string') assert.equal(answer.json.error, error);
      else assert.match(answer.json.error, error);
    }

    // The same checks when the invoice comes after creation.
    const later = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', preimageHash: hex.encode(randomBytes(32)), refundPublicKey });
    assert.equal(later.status, 201);
    const setInvoice = (invoice: string) => call(api, 'POST', `/v2/swap/submarine/${later.json.id}/invoice`, { invoice });
    assert.equal((await setInvoice(forgedInvoice({ network: 'bc' }))).json.error, 'invalid invoice: not an invoice of network lnbcrt');
    assert.equal((await setInvoice(forgedInvoice({ amountMsat: undefined }))).json.error, 'invoice has no amount');
    assert.equal((await setInvoice(forgedInvoice({ expiry: 30 }))).status, 400);
    assert.equal((await call(api, 'GET', `/v2/swap/${later.json.id}`)).json.status, 'swap.created');
  });

  test('refund transactions that cannot be signed: 400 over HTTP, never a 500', async () => {
    const owner = newKeyPair();
    const { invoice } = await aliceInvoice(world, 23_000);
    const created = (await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) })).json;
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount - 1));
    await world.waitForStatus(created.id, 'transaction.lockupFailed');
    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, owner);
    const session = clientSession(owner, lockup.keys, lockup.swapTree, refund.sighash);
    const path = `/v2/swap/submarine/${created.id}/refund`;
    const ask = (transaction: string, index: number, pubNonce = session.pubNonce) => call(api, 'POST', path, { pubNonce, transaction, index });

    const cases: [Promise<{ status: number; json: any }>, string | RegExp][] = [
      [ask('02000000000000000000', 0), /^invalid parameter: (transaction|index)$/],
      [ask(refund.unsignedHex.slice(0, 60), 0), 'invalid parameter: transaction'],
      [ask(refund.unsignedHex, 1), 'invalid parameter: index'],
      [ask(refund.unsignedHex, 0xffffffff), 'invalid parameter: index'],
      [ask(refund.unsignedHex, 0x100000000), 'invalid parameter: index'],
      [ask(refund.unsignedHex.replace(hex.encode(hex.decode(lockupTxid).reverse()), '11'.repeat(32)), 0), 'could not find the outputs the transaction spends'],
      [ask(refund.unsignedHex, 0, '02' + 'ff'.repeat(65)), /^invalid parameter: pubNonce$/],
    ];
    for (const [answer, error] of cases) {
      const { status, json } = await answer;
      assert.equal(status, 400, JSON.stringify(json));
      if (typeof error === 'string') assert.equal(json.error, error);
      else assert.match(json.error, error);
    }
    const status = (await call(api, 'GET', `/v2/swap/${created.id}`)).json.status;
    assert.equal(status, 'transaction.lockupFailed');
    const signed = await ask(refund.unsignedHex, 0);
    assert.equal(signed.status, 200);
    const refundTxid = await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.json.pubNonce, signed.json.partialSignature)));
    await world.mine();
    assert.ok(await world.node.getTxOut(refundTxid, 0, false));
  });
});
