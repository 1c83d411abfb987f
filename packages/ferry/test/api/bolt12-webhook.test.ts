// The webhook alternative to the `invoice.request` WebSocket channel: an offer registered through
// POST /v2/lightning/{currency}/bolt12 with a `url`, and no wallet subscribed, is asked for invoices at that URL by a
// real signed HTTP call (WebhookSender); the wallet's invoice is checked like a WebSocket answer, and its errors,
// failures, silence and a forbidden address reach the requester as clear errors.
import { MemoryOfferRecords, OfferRegistry } from '../../src/lightning/bolt12/registry.ts';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { createInvoice, createInvoiceRequest, decodeOffer, encodeInvoice, encodeOffer, invoiceRequestFromBytes, type InvoiceRequest } from '@ferry/sdk/lightning/bolt12/index.js';
import { InvoiceRequestError, InvoiceRequestHub, defaultInvoiceRequestOptions } from '../../src/api/ws/invoice-requests.ts';
import { WebhookSender, signature } from '../../src/webhooks/sender.ts';
import { MemorySwaps, call, startApi, type TestApi } from './swap-api-harness.ts';

const SECRET = 'bolt12-webhook-test-secret';
const issuerSecret = new Uint8Array(32).fill(0x71);
const payerSecret = new Uint8Array(32).fill(0x72);
const offers = new OfferRegistry(new MemoryOfferRecords());
const sender = new WebhookSender({ secret: SECRET, allowPrivate: true, timeoutMs: 1_000 });
const hub = new InvoiceRequestHub(defaultInvoiceRequestOptions, { find: (bytes) => offers.find(bytes), ask: (url, payload) => sender.ask(url, payload) });

let api: TestApi;
let receiverUrl = '';
let answer: (body: { event: string; data: { offer: string; invoiceRequest: string } }, response: ServerResponse) => void = () => {};
const received: { headers: IncomingMessage['headers']; raw: string }[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    received.push({ headers: request.headers, raw });
    answer(JSON.parse(raw), response);
  });
});

before(async () => {
  api = await startApi(new MemorySwaps(), { offers, lightning: { BTC: {} as never } });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/bolt12`;
});
after(async () => {
  await api.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};
const offerText = (description: string) => encodeOffer({ description, issuerId: secp256k1.getPublicKey(issuerSecret, true) });
const requestFor = (offer: string, amountMsat = 7_000n): InvoiceRequest =>
  createInvoiceRequest(decodeOffer(offer), { metadata: sha256(new TextEncoder().encode(`${offer}${amountMsat}${Math.random()}`)), amountMsat }, payerSecret);
const path = {
  firstNode: { nodeId: secp256k1.getPublicKey(new Uint8Array(32).fill(0x73), true) },
  pathKey: secp256k1.getPublicKey(new Uint8Array(32).fill(0x74), true),
  hops: [{ blindedNodeId: secp256k1.getPublicKey(new Uint8Array(32).fill(0x75), true), encryptedRecipientData: new Uint8Array(8) }],
};
const payInfo = { feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta: 80, htlcMinimumMsat: 1n, htlcMaximumMsat: 10n ** 9n, features: new Uint8Array() };
/** What a wallet's webhook answers: an invoice for the request it was sent, signed by `secret`. */
const invoiceFor = (requestHex: string, secret = issuerSecret) => {
  const request = invoiceRequestFromBytes(hex.decode(requestHex));
  const fields = { paths: [path], blindedPay: [payInfo], createdAt: BigInt(Math.floor(Date.now() / 1000)), paymentHash: sha256(Uint8Array.of(2)), amountMsat: request.invreq.amountMsat! };
  return encodeInvoice(createInvoice(request, fields, secret));
};
const failure = async (promise: Promise<unknown>): Promise<InvoiceRequestError> => {
  const error = await promise.then(() => assert.fail('resolved'), (e: unknown) => e);
  assert.ok(error instanceof InvoiceRequestError, String(error));
  return error;
};

async function registered(description: string, url?: string): Promise<string> {
  const offer = offerText(description);
  const answered = await call(api, 'POST', '/v2/lightning/BTC/bolt12', { offer, ...(url !== undefined && { url }) });
  assert.equal(answered.status, 201, JSON.stringify(answered.json));
  return offer;
}

test("a request for an offer registered with a webhook: a signed POST, the wallet's invoice returned", async () => {
  const offer = await registered('webhook answers', receiverUrl);
  let sent = '';
  answer = (body, response) => json(response, 200, { invoice: (sent = invoiceFor(body.data.invoiceRequest)) });
  const request = requestFor(offer);
  received.length = 0;
  const result = await hub.requestInvoice(request.bytes);
  assert.equal(result.invoice, sent, "the wallet's invoice, unchanged");
  assert.equal(received.length, 1);
  const call0 = received[0];
  const body = JSON.parse(call0.raw);
  assert.deepEqual(body, { event: 'invoice.request', data: { offer, invoiceRequest: hex.encode(request.bytes) } });
  assert.equal(call0.headers['x-ferry-signature'], signature(SECRET, String(call0.headers['x-ferry-timestamp']), call0.raw), 'signed with the webhook secret');
  assert.equal(result.decoded.invoice.amountMsat, 7_000n);
});

test("the wallet's error, a failed or empty answer and a forged invoice are the requester's errors", async () => {
  const offer = await registered('webhook refuses', receiverUrl);
  const cases: [typeof answer, RegExp][] = [
    [(_body, response) => json(response, 200, { error: 'amount too large for this wallet' }), /^amount too large for this wallet$/],
    [(_body, response) => json(response, 500, { message: 'oops' }), /answered 500 without an invoice/],
    [(_body, response) => json(response, 200, {}), /answered 200 without an invoice/],
    [(_body, response) => { response.writeHead(200); response.end('not json'); }, /answered 200 without an invoice/],
    [(body, response) => json(response, 200, { invoice: invoiceFor(body.data.invoiceRequest, new Uint8Array(32).fill(0x76)) }), /invalid invoice from the offer's webhook/],
    [(_body, response) => json(response, 200, { invoice: invoiceFor(hex.encode(requestFor(offer, 9_000n).bytes)) }), /invalid invoice from the offer's webhook/],
  ];
  for (const [behaviour, expected] of cases) {
    answer = behaviour;
    const error = await failure(hub.requestInvoice(requestFor(offer).bytes));
    assert.equal(error.reason, 'rejected', error.message);
    assert.match(error.message, expected);
  }
});

test('a webhook that never answers times out; an offer without a webhook, or unknown, has no subscriber', async () => {
  const offer = await registered('webhook silent', receiverUrl);
  answer = () => {}; // holds the request open
  const started = Date.now();
  const error = await failure(hub.requestInvoice(requestFor(offer).bytes));
  assert.equal(error.reason, 'timeout');
  assert.ok(Date.now() - started < 5_000);
  assert.equal((await failure(hub.requestInvoice(requestFor(await registered('no webhook')).bytes))).reason, 'noSubscriber');
  assert.equal((await failure(hub.requestInvoice(requestFor(offerText('never registered')).bytes))).reason, 'noSubscriber');
  assert.equal(hub.pendingRequests, 0, 'nothing left waiting');
});

test('a webhook on a private address is not called unless the operator allows it', async () => {
  const guarded = new WebhookSender({ secret: SECRET, allowPrivate: false, timeoutMs: 1_000 });
  const strictHub = new InvoiceRequestHub(defaultInvoiceRequestOptions, { find: (bytes) => offers.find(bytes), ask: (url, payload) => guarded.ask(url, payload) });
  const offer = await registered('private webhook', receiverUrl);
  received.length = 0;
  const error = await failure(strictHub.requestInvoice(requestFor(offer).bytes));
  assert.match(error.message, /not a public address/);
  assert.equal(received.length, 0, 'no request reached the private address');
});
