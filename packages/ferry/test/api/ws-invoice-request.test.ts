// The v2 WebSocket's `invoice.request` channel over real sockets: a wallet subscribes to its BOLT12 offers with
// its signature, the Lightning side's entry point (InvoiceRequestHub.requestInvoice) hands it invoice requests,
// and its invoice, error or silence decides what the requester gets.
import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import {
  OWNER_MESSAGES, createInvoice, createInvoiceRequest, decodeOffer, encodeInvoice, encodeOffer, invoiceRequestFromBytes,
  signOwnerMessage, type InvoiceRequest,
} from '@ferry/sdk/lightning/bolt12/index.js';
import { InvoiceRequestError, InvoiceRequestHub, defaultInvoiceRequestOptions } from '../../src/api/ws/invoice-requests.ts';
import { MemorySwaps, TestSocket, startApi } from './swap-api-harness.ts';

const hub = new InvoiceRequestHub({ ...defaultInvoiceRequestOptions, timeoutMs: 300, maxPendingPerConnection: 3, maxOffersPerConnection: 3 });
const api = await startApi(new MemorySwaps(), { invoiceRequests: hub });
after(() => api.close());

const issuerSecret = new Uint8Array(32).fill(0x51);
const payerSecret = new Uint8Array(32).fill(0x52);
const offerText = (description: string, secret: Uint8Array = issuerSecret) => encodeOffer({ description, issuerId: secp256k1.getPublicKey(secret, true) });
const subscription = (offer: string, secret: Uint8Array = issuerSecret, message: string = OWNER_MESSAGES.subscribe) => ({
  offer,
  signature: hex.encode(signOwnerMessage(message, secret)),
});
const requestFor = (offer: string, amountMsat = 5_000n): InvoiceRequest =>
  createInvoiceRequest(decodeOffer(offer), { metadata: sha256(new TextEncoder().encode(`${offer}${amountMsat}`)), amountMsat }, payerSecret);
const path = {
  firstNode: { nodeId: secp256k1.getPublicKey(new Uint8Array(32).fill(0x53), true) },
  pathKey: secp256k1.getPublicKey(new Uint8Array(32).fill(0x54), true),
  hops: [{ blindedNodeId: secp256k1.getPublicKey(new Uint8Array(32).fill(0x55), true), encryptedRecipientData: new Uint8Array(8) }],
};
const payInfo = { feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta: 80, htlcMinimumMsat: 1n, htlcMaximumMsat: 10n ** 9n, features: new Uint8Array() };
/** What the wallet answers: an invoice for the request hex it was sent. */
const invoiceFor = (requestHex: string, secret: Uint8Array = issuerSecret) => {
  const request = invoiceRequestFromBytes(hex.decode(requestHex));
  const createdAt = BigInt(Math.floor(Date.now() / 1000));
  const fields = { paths: [path], blindedPay: [payInfo], createdAt, paymentHash: sha256(Uint8Array.of(1)), amountMsat: request.invreq.amountMsat! };
  return encodeInvoice(createInvoice(request, fields, secret));
};
const failure = async (promise: Promise<unknown>): Promise<InvoiceRequestError> => {
  const error = await promise.then(() => assert.fail('resolved'), (e: unknown) => e);
  assert.ok(error instanceof InvoiceRequestError, String(error));
  return error;
};

describe('subscribing', () => {
  test("the reference's own regtest offer and key: the ack names the offer", async () => {
    const vector = JSON.parse(readFileSync(new URL('../fixtures/bolt12/boltz-subscribe-offer.json', import.meta.url), 'utf8'));
    const socket = await TestSocket.open(api.wsUrl);
    const ack = await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(vector.offer, hex.decode(vector.secretKey))] });
    assert.deepEqual({ ...ack, timestamp: undefined }, { event: 'subscribe', channel: 'invoice.request', args: [vector.offer], timestamp: undefined });
    socket.close();
  });

  test('a forged signature, one over another text, bad hex and an offer without a key are refused, and nothing is subscribed', async () => {
    const offer = offerText('forged');
    const socket = await TestSocket.open(api.wsUrl);
    const pathsOnly = encodeOffer({ description: 'paths only', paths: [path] });
    const cases: [unknown, RegExp][] = [
      [subscription(offer, new Uint8Array(32).fill(0x66)), /invalid signature$/],
      [subscription(offer, issuerSecret, OWNER_MESSAGES.delete), /invalid signature$/],
      [{ offer, signature: 'zz'.repeat(64) }, /64 bytes of hex/],
      [{ offer, signature: 'ab' }, /64 bytes of hex/],
      [subscription(pathsOnly), /no signing key/],
      [subscription('lno1qqqq'), /invalid offer subscription 0/],
      [{ offer: 5, signature: 'ab' }, /invalid parameter: offer/],
    ];
    for (const [arg, expected] of cases) {
      const answer = await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [arg] });
      assert.equal(answer.event, 'error', JSON.stringify(arg));
      assert.match(answer.error, expected);
    }
    // one good and one forged in one message: neither is added
    const answer = await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer), subscription(offerText('other'), new Uint8Array(32).fill(0x67))] });
    assert.match(answer.error, /invalid offer subscription 1/);
    assert.equal((await failure(hub.requestInvoice(requestFor(offer).bytes))).reason, 'noSubscriber');
    socket.close();
  });

  test('unsubscribe answers the offers still subscribed; requests for the others find no wallet', async () => {
    const [one, two] = [offerText('one'), offerText('two')];
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(one), subscription(two)] });
    const reply = await socket.ask({ op: 'unsubscribe', channel: 'invoice.request', args: [one, 'lno1notanoffer'] });
    assert.deepEqual({ ...reply, timestamp: undefined }, { event: 'unsubscribe', op: 'unsubscribe', channel: 'invoice.request', args: [two], timestamp: undefined });
    assert.equal((await failure(hub.requestInvoice(requestFor(one).bytes))).reason, 'noSubscriber');
    socket.close();
  });

  test('at most maxOffersPerConnection offers per connection', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    const answer = await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: ['a', 'b', 'c', 'd'].map((d) => subscription(offerText(d))) });
    assert.match(answer.error, /too many offers: at most 3 per connection/);
    socket.close();
  });
});

describe('requests and answers', () => {
  test("a request reaches the offer's wallet, and its invoice is what the requester gets", async () => {
    const offer = offerText('coffee');
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const request = requestFor(offer);
    const answered = hub.requestInvoice(request.bytes);
    const event = await socket.next();
    assert.equal(event.event, 'request');
    assert.equal(event.channel, 'invoice.request');
    assert.equal(event.args.length, 1);
    const [{ id, offer: sent, invoiceRequest }] = event.args;
    assert.equal(sent, offer);
    assert.equal(invoiceRequest, hex.encode(request.bytes));
    assert.match(id, /^[0-9a-f-]{36}$/);
    const invoice = invoiceFor(invoiceRequest);
    socket.send({ op: 'invoice', id, invoice });
    const result = await answered;
    assert.equal(result.invoice, invoice);
    assert.equal(result.decoded.invoice.amountMsat, 5_000n);
    // answered once: the id is gone
    assert.match((await socket.ask({ op: 'invoice', id, invoice })).error, /unknown invoice request id/);
    socket.close();
  });

  test('an invoice that does not answer the request is refused to the wallet, which may still answer well', async () => {
    const offer = offerText('tea');
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const answered = hub.requestInvoice(requestFor(offer).bytes);
    const [{ id, invoiceRequest }] = (await socket.next()).args;
    const foreign = invoiceFor(hex.encode(requestFor(offer, 6_000n).bytes));
    assert.match((await socket.ask({ op: 'invoice', id, invoice: foreign })).error, /does not mirror the invoice request/);
    assert.match((await socket.ask({ op: 'invoice', id, invoice: invoiceFor(invoiceRequest, new Uint8Array(32).fill(0x68)) })).error, /not the offer_issuer_id/);
    assert.match((await socket.ask({ op: 'invoice', id, invoice: 'lni1qqqq' })).error, /invalid invoice for request/);
    socket.send({ op: 'invoice', id, invoice: invoiceFor(invoiceRequest) });
    assert.ok((await answered).invoice.startsWith('lni1'));
    socket.close();
  });

  test("the wallet's invoice.error is passed to the requester", async () => {
    const offer = offerText('sold out');
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const answered = hub.requestInvoice(requestFor(offer).bytes);
    const [{ id }] = (await socket.next()).args;
    socket.send({ op: 'invoice.error', id, error: 'out of stock' });
    const error = await failure(answered);
    assert.deepEqual([error.reason, error.message], ['rejected', 'out of stock']);
    socket.close();
  });

  test('a request nobody answers times out cleanly; a late answer is an unknown id', async () => {
    const offer = offerText('silence');
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const started = Date.now();
    const answered = hub.requestInvoice(requestFor(offer).bytes);
    const [{ id, invoiceRequest }] = (await socket.next()).args;
    const error = await failure(answered);
    assert.equal(error.reason, 'timeout');
    assert.ok(Date.now() - started >= 290);
    assert.equal(hub.pendingRequests, 0);
    assert.match((await socket.ask({ op: 'invoice', id, invoice: invoiceFor(invoiceRequest) })).error, /unknown invoice request id/);
    socket.close();
  });

  test('floods: requests beyond the per-connection cap are refused at once; bad requests and unknown ids get clear errors', async () => {
    const offer = offerText('flood');
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const waiting = [1n, 2n, 3n].map((i) => hub.requestInvoice(requestFor(offer, 5_000n + i).bytes));
    for (let i = 0; i < 3; i++) assert.equal((await socket.next()).event, 'request');
    const busy = await failure(hub.requestInvoice(requestFor(offer, 9_000n).bytes));
    assert.equal(busy.reason, 'busy');
    assert.match(busy.message, /too many invoice requests waiting/);
    const invalid = await failure(hub.requestInvoice(Uint8Array.of(1, 2, 3)));
    assert.equal(invalid.reason, 'invalid');
    const tampered = requestFor(offer).bytes.slice();
    tampered[20] ^= 1;
    assert.equal((await failure(hub.requestInvoice(tampered))).reason, 'invalid');
    assert.match((await socket.ask({ op: 'invoice', id: 'nope', invoice: 'lni1' })).error, /^unknown invoice request id: nope$/);
    assert.match((await socket.ask({ op: 'invoice.error', id: 'x'.repeat(65), error: 'e' })).error, /invalid parameter: id/);
    assert.match((await socket.ask({ op: 'invoice', id: 'x' })).error, /undefined parameter: invoice/);
    for (const result of await Promise.allSettled(waiting)) assert.equal(result.status, 'rejected');
    socket.close();
  });

  test("another connection cannot answer a wallet's request; a closed connection fails its requests at once", async () => {
    const offer = offerText('closing');
    const [wallet, other] = [await TestSocket.open(api.wsUrl), await TestSocket.open(api.wsUrl)];
    await wallet.ask({ op: 'subscribe', channel: 'invoice.request', args: [subscription(offer)] });
    const answered = hub.requestInvoice(requestFor(offer).bytes);
    const [{ id, invoiceRequest }] = (await wallet.next()).args;
    assert.match((await other.ask({ op: 'invoice', id, invoice: invoiceFor(invoiceRequest) })).error, /unknown invoice request id/);
    wallet.close();
    assert.equal((await failure(answered)).reason, 'disconnected');
    assert.equal((await failure(hub.requestInvoice(requestFor(offer).bytes))).reason, 'noSubscriber');
    other.close();
  });
});
