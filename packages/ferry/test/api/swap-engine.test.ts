// Whole swaps through the API with the real SwapEngine on the devnet: created over REST, watched over the
// WebSocket and the SSE stream at once, signed over REST, and checked on chain and on Lightning. Every status
// the engine publishes must reach both streams, in order; engine refusals must come back verbatim over HTTP.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { httpStatusOf } from '../../src/api/http/errors.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { SwapError } from '../../src/engine/index.ts';
import { rest } from '../lightning/helpers.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { TestSocket, call, openStream, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;

before(async () => {
  world = await startWorld();
  api = await startApi(world.engine);
});
after(async () => {
  await api?.close();
  await world?.close();
});

/** Collects the WebSocket updates of one swap until it reaches `final`; mines when asked to move on. */
async function updatesUntil(socket: TestSocket, id: string, final: string, seen: Record<string, unknown>[] = []) {
  while (seen.at(-1)?.status !== final) {
    const message = await socket.next(15_000);
    assert.equal(message.event, 'update', JSON.stringify(message));
    assert.equal(typeof message.timestamp, 'string');
    for (const arg of message.args) if (arg.id === id) seen.push(arg);
  }
  return seen;
}

async function aliceInvoice(sat: number): Promise<{ invoice: string; hash: string }> {
  const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', {
    value: sat,
    memo: 'api test',
  });
  return { invoice: body.payment_request, hash: Buffer.from(body.r_hash, 'base64').toString('hex') };
}

/** Subscribes over the WebSocket and opens the SSE stream; both must start with `first`. */
async function watch(id: string, first: string) {
  const socket = await TestSocket.open(api.wsUrl);
  const ack = await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [id] });
  assert.deepEqual([ack.event, ack.args], ['subscribe', [id]]);
  const seen = await updatesUntil(socket, id, first);
  assert.equal(seen.length, 1, 'the snapshot is the current status');
  const stream = await openStream(`${api.url}/streamswapstatus?id=${id}`);
  await stream.until(/^data: /);
  assert.deepEqual(stream.events(), [{ status: first }]);
  return { socket, seen, stream };
}

describe('through the API with the engine', () => {
  test('the three pair lists fetched together answer 200; no chain pairs yet', async () => {
    const answers = await Promise.all(['submarine', 'reverse', 'chain'].map((type) => call(api, 'GET', `/v2/swap/${type}`)));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
    assert.equal(typeof answers[0].json.BTC.BTC.hash, 'string');
    assert.equal(typeof answers[1].json.BTC.BTC.hash, 'string');
    assert.deepEqual(answers[2].json, {});
  });

  test('submarine: create, lock, cooperative claim; both streams see every status', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(50_000);
    const pairs = await call(api, 'GET', '/v2/swap/submarine');
    assert.equal(pairs.status, 200);
    const created = await call(api, 'POST', '/v2/swap/submarine', {
      from: 'BTC',
      to: 'BTC',
      invoice,
      refundPublicKey: hex.encode(client.publicKey).toUpperCase(), // the API lower-cases hex
      pairHash: pairs.json.BTC.BTC.hash,
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const swap = created.json;
    assert.equal(lockupOf(swap.swapTree, swap.claimPublicKey, client).address, swap.address, 'the wallet recomputes the address');
    assert.deepEqual(await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) }), {
      status: 409,
      json: { error: 'a swap with this invoice exists already' },
    });

    const { socket, seen, stream } = await watch(swap.id, 'invoice.set');
    const lockupTxid = await world.user.sendToAddress(swap.address, satToBtc(swap.expectedAmount));
    await updatesUntil(socket, swap.id, 'transaction.mempool', seen);
    assert.equal((seen.at(-1)!.transaction as { id: string }).id, lockupTxid);
    assert.deepEqual(await call(api, 'GET', `/v2/swap/submarine/${swap.id}/claim`), {
      status: 400,
      json: { error: 'swap not eligible for a cooperative claim' },
    });
    await world.mine();
    await updatesUntil(socket, swap.id, 'transaction.claim.pending', seen);

    const details = (await call(api, 'GET', `/v2/swap/submarine/${swap.id}/claim`)).json;
    assert.equal(hex.encode(sha256(hex.decode(details.preimage))), hash, 'the preimage pays the invoice');
    assert.deepEqual(await call(api, 'GET', `/v2/swap/submarine/${swap.id}/preimage`), { status: 200, json: { preimage: details.preimage } });
    const transaction = await call(api, 'GET', `/v2/swap/submarine/${swap.id}/transaction`);
    assert.equal(transaction.json.id, lockupTxid);
    const lockup = lockupOf(swap.swapTree, swap.claimPublicKey, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    const claimed = await call(api, 'POST', `/v2/swap/submarine/${swap.id}/claim`, {
      pubNonce: session.pubNonce,
      partialSignature: session.sign(details.pubNonce),
    });
    assert.deepEqual(claimed, { status: 200, json: {} });
    await updatesUntil(socket, swap.id, 'transaction.claimed', seen);
    const { vout } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null, 'Ferry spent the lockup with the key-path claim');

    const published = world.published.get(swap.id)!;
    assert.deepEqual(seen.map((s) => s.status), published, 'the WebSocket saw every published status in order');
    await stream.until(/transaction\.claimed/, 5_000);
    assert.deepEqual(stream.events().map((s) => s.status), published, 'so did the SSE stream');
    assert.deepEqual((await call(api, 'GET', `/v2/swap/${swap.id}`)).json.status, 'transaction.claimed');
    assert.deepEqual((await call(api, 'POST', '/swapstatus', { id: swap.id })).json.status, 'transaction.claimed');
    assert.deepEqual((await call(api, 'GET', `/v2/swap/status?ids=${swap.id}`)).json, { [swap.id]: await world.engine.status(swap.id) });
    socket.close();
    stream.close();
  });

  test('reverse: create, pay, claim cooperatively over REST; the mempool update carries the lockup hex', async () => {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await call(api, 'POST', '/v2/swap/reverse', {
      from: 'BTC',
      to: 'BTC',
      preimageHash,
      claimPublicKey: hex.encode(client.publicKey),
      invoiceAmount: 100_000,
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const swap = created.json;
    const lockup = lockupOf(swap.swapTree, swap.refundPublicKey, client);
    assert.equal(lockup.address, swap.lockupAddress);

    const { socket, seen, stream } = await watch(swap.id, 'swap.created');
    const payment = world.alice.payInvoice({ paymentRequest: swap.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await updatesUntil(socket, swap.id, 'transaction.mempool', seen);
    const mempool = seen.at(-1)!.transaction as { id: string; hex: string };
    const output = { txid: mempool.id, ...findOutput(mempool.hex, lockup.script), script: lockup.script };
    assert.equal(output.value, BigInt(swap.onchainAmount));
    assert.equal((await call(api, 'GET', `/v2/swap/reverse/${swap.id}/transaction`)).json.hex, mempool.hex);
    await world.mine();
    await updatesUntil(socket, swap.id, 'transaction.confirmed', seen);

    const claim = keyPathSpend('claim', output, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, claim.sighash);
    assert.deepEqual(await call(api, 'POST', `/v2/swap/reverse/${swap.id}/claim`, { preimage: '00'.repeat(32) }), {
      status: 400,
      json: { error: 'incorrect preimage' },
    });
    const signed = await call(api, 'POST', `/v2/swap/reverse/${swap.id}/claim`, {
      preimage: hex.encode(preimage),
      pubNonce: session.pubNonce,
      transaction: claim.unsignedHex,
      index: 0,
    });
    assert.equal(signed.status, 200, JSON.stringify(signed.json));
    await world.node.sendRawTransaction(claim.finish(session.aggregate(signed.json.pubNonce, signed.json.partialSignature)));
    await updatesUntil(socket, swap.id, 'invoice.settled', seen);
    assert.equal((await payment).status, 'SUCCEEDED');

    const published = world.published.get(swap.id)!;
    assert.deepEqual(seen.map((s) => s.status), published);
    await stream.until(/invoice\.settled/, 5_000);
    assert.deepEqual(stream.events().map((s) => s.status), published);
    socket.close();
    stream.close();
  });

  test('engine refusals come back over HTTP verbatim', async () => {
    const claimPublicKey = hex.encode(newKeyPair().publicKey);
    const { invoice } = await aliceInvoice(30_000);
    const submarine = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: claimPublicKey });
    const reverseBase = { from: 'BTC', to: 'BTC', preimageHash: newPreimage().preimageHash, claimPublicKey };
    const cases: [string, string, Record<string, unknown> | undefined, () => Promise<unknown>][] = [
      ['POST', '/v2/swap/reverse', { ...reverseBase, invoiceAmount: 10_000_001 }, () => world.engine.createReverse({ ...reverseBase, invoiceAmount: 10_000_001 })],
      ['POST', '/v2/swap/reverse', { ...reverseBase, invoiceAmount: 50_000, pairHash: 'ab' }, () => world.engine.createReverse({ ...reverseBase, invoiceAmount: 50_000, pairHash: 'ab' })],
      ['POST', '/v2/swap/reverse', { ...reverseBase, from: 'L-BTC', invoiceAmount: 50_000 }, () => world.engine.createReverse({ ...reverseBase, from: 'L-BTC', invoiceAmount: 50_000 })],
      ['GET', `/v2/swap/submarine/${submarine.id}/invoice/amount`, undefined, () => world.engine.submarineInvoiceAmount(submarine.id)],
      ['POST', `/v2/swap/submarine/${submarine.id}/invoice`, { invoice }, () => world.engine.setSubmarineInvoice(submarine.id, invoice)],
      ['GET', `/v2/swap/submarine/${submarine.id}/preimage`, undefined, () => world.engine.submarinePreimage(submarine.id)],
    ];
    for (const [method, path, body, direct] of cases) {
      const refusal = await direct().then(
        () => assert.fail(`${method} ${path} was expected to be refused`),
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof SwapError, String(refusal));
      assert.deepEqual(await call(api, method, path, body), {
        status: httpStatusOf(refusal),
        json: { error: refusal.message, ...refusal.extra },
      }, `${method} ${path}`);
    }
    assert.deepEqual(api.errors, []);
  });
});
