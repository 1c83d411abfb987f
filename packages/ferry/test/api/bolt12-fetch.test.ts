// POST /v2/lightning/{currency}/bolt12/fetch over HTTP: an offer whose wallet is subscribed over the WebSocket is
// answered by that wallet (its invoice, for Ferry's own signed request, is what the caller gets; its refusal or
// silence a 4xx/504), any other offer through Ferry's CLN node — whose fetched invoice Ferry's node then pays to
// the offer's issuer, a devnet CLN node — and bad offers and amounts are 422 with a reason.
import { MemoryOfferRecords, OfferRegistry } from '../../src/lightning/bolt12/registry.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import type { LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { OWNER_MESSAGES, createInvoice, decodeInvoice, encodeInvoice, encodeOffer, invoiceRequestFromBytes, signOwnerMessage } from '@ferry/sdk/lightning/bolt12/index.js';
import { ClnBackend } from '../../src/lightning/index.ts';

import { WebhookSender } from '../../src/webhooks/sender.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvoiceRequestHub, defaultInvoiceRequestOptions } from '../../src/api/ws/invoice-requests.ts';
import { clnRest, startClnPair } from '../lightning/helpers.ts';
import { MemorySwaps, TestSocket, call, startApi, type TestApi } from './swap-api-harness.ts';

const walletSecret = new Uint8Array(32).fill(0x71);
const offerOf = (description: string, amount?: bigint) =>
  encodeOffer({ description, ...(amount !== undefined && { amount }), issuerId: secp256k1.getPublicKey(walletSecret, true) });
const key = (fill: number) => secp256k1.getPublicKey(new Uint8Array(32).fill(fill), true);
const payInfo = { feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta: 80, htlcMinimumMsat: 1n, htlcMaximumMsat: 10n ** 9n, features: new Uint8Array() };

/** The wallet's invoice for the request it was sent (its node id: the offer's key). */
function walletInvoice(requestHex: string): string {
  const request = invoiceRequestFromBytes(hex.decode(requestHex));
  const fields = {
    paths: [{ firstNode: { nodeId: key(0x72) }, pathKey: key(0x73), hops: [{ blindedNodeId: key(0x74), encryptedRecipientData: new Uint8Array(8) }] }],
    blindedPay: [payInfo],
    createdAt: BigInt(Math.floor(Date.now() / 1000)),
    paymentHash: createHash('sha256').update(requestHex).digest(),
    amountMsat: request.invreq.amountMsat!,
  };
  return encodeInvoice(createInvoice(request, fields, walletSecret));
}

describe('bolt12/fetch from a subscribed wallet', () => {
  const hub = new InvoiceRequestHub({ ...defaultInvoiceRequestOptions, timeoutMs: 300 });
  let api: TestApi;
  before(async () => {
    api = await startApi(new MemorySwaps(), { invoiceRequests: hub, lightning: { BTC: {} as never } });
  });
  after(() => api.close());

  async function subscribed(offer: string): Promise<TestSocket> {
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'invoice.request', args: [{ offer, signature: hex.encode(signOwnerMessage(OWNER_MESSAGES.subscribe, walletSecret)) }] });
    return socket;
  }

  test("the wallet's invoice, answering Ferry's signed request with the amount and note asked for, is the answer", async () => {
    const offer = offerOf('tips');
    const socket = await subscribed(offer);
    const answered = call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 2_500, note: 'thanks' });
    const [{ id, invoiceRequest }] = (await socket.next()).args;
    const request = invoiceRequestFromBytes(hex.decode(invoiceRequest));
    assert.equal(request.invreq.amountMsat, 2_500_000n);
    assert.equal(request.invreq.payerNote, 'thanks');
    const invoice = walletInvoice(invoiceRequest);
    socket.send({ op: 'invoice', id, invoice });
    assert.deepEqual(await answered, { status: 201, json: { invoice } });
    assert.equal(decodeInvoice(invoice).invoice.amountMsat, 2_500_000n);
    socket.close();
  });

  test("an offer's own amount is used when none is given; the wallet's refusal is 422, its silence 504", async () => {
    const offer = offerOf('coffee', 7_000_000n);
    const socket = await subscribed(offer);
    const refused = call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer });
    const [{ id, invoiceRequest }] = (await socket.next()).args;
    assert.equal(invoiceRequestFromBytes(hex.decode(invoiceRequest)).invreq.amountMsat, 7_000_000n);
    socket.send({ op: 'invoice.error', id, error: 'sold out' });
    const answer = await refused;
    assert.equal(answer.status, 422);
    assert.match(answer.json.error, /sold out/);
    const silent = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer });
    assert.equal(silent.status, 504);
    assert.match(silent.json.error, /no invoice within/);
    socket.close();
  });

  test('bad offers and amounts are 422; an offer nobody answers for, without a BOLT12 node, 404', async () => {
    const cases: [unknown, number, RegExp][] = [
      [{ offer: 'lno1qqqq' }, 422, /^invalid offer/],
      [{ offer: 'lnbcrt1abc', amount: 5 }, 422, /^invalid offer/],
      [{ offer: offerOf('no amount') }, 422, /amount/],
      [{ offer: offerOf('x'), amount: -1 }, 422, /amount/],
      [{ offer: offerOf('x'), amount: 5, note: 7 }, 422, /note/],
      [{ offer: offerOf('nobody listens'), amount: 5 }, 404, /^no BOLT12 support/],
    ];
    for (const [body, status, error] of cases) {
      const answer = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', body);
      assert.equal(answer.status, status, JSON.stringify(body));
      assert.match(answer.json.error, error);
    }
    assert.deepEqual(api.errors, []);
  });
});

// The webhook itself (signing, guards, answers) is the hub's, tested in bolt12-webhook.test.ts; here: fetch uses it.
describe('bolt12/fetch through a registered offer\'s webhook', () => {
  const offers = new OfferRegistry(new MemoryOfferRecords());
  const calls: any[] = [];
  const answers: unknown[] = [];
  let answer: (requestHex: string) => unknown = (requestHex) => ({ invoice: walletInvoice(requestHex) });
  let api: TestApi;
  let hook: Server;
  let hookUrl = '';
  before(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const call = JSON.parse(body);
        calls.push(call);
        const answered = answer(call.data.invoiceRequest);
        answers.push(answered);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answered));
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/invoice`;
    const sender = new WebhookSender({ secret: 'hook secret', allowPrivate: true, timeoutMs: 2_000 });
    api = await startApi(new MemorySwaps(), { offers, lightning: { BTC: {} as never }, askWebhook: (url, payload) => sender.ask(url, payload) });
  });
  after(async () => {
    await api.close();
    hook.close();
  });

  test("the webhook's invoice, for Ferry's request, is the answer; its error or a foreign invoice is a 422", async () => {
    const offer = offerOf('webhook tips');
    assert.equal((await call(api, 'POST', '/v2/lightning/BTC/bolt12', { offer, url: hookUrl })).status, 201);
    const fetched = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 4_000 });
    assert.equal(fetched.status, 201);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].event, 'invoice.request');
    assert.equal(calls[0].data.offer, offer);
    assert.equal(invoiceRequestFromBytes(hex.decode(calls[0].data.invoiceRequest)).invreq.amountMsat, 4_000_000n);
    assert.deepEqual(answers[0], fetched.json, "the webhook's invoice");
    assert.equal(decodeInvoice(fetched.json.invoice).invoice.amountMsat, 4_000_000n);

    answer = () => ({ error: 'closed for today' });
    const refused = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 4_000 });
    assert.equal(refused.status, 422);
    assert.match(refused.json.error, /closed for today/);

    const other = calls[0].data.invoiceRequest;
    answer = () => ({ invoice: walletInvoice(other) });
    const foreign = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: 4_000 });
    assert.equal(foreign.status, 422);
    assert.match(foreign.json.error, /does not mirror the invoice request/);
    assert.deepEqual(api.errors, []);
  });
});

describe('bolt12/fetch through Ferry\'s CLN node', () => {
  let devnet: LightningDevnet;
  let api: TestApi;
  let ferryNode: ClnBackend;
  before(async () => {
    devnet = await startClnPair();
    ferryNode = new ClnBackend({ url: devnet.cln.cln.restUrl, rune: devnet.cln.cln.rune, pollMs: 50 });
    api = await startApi(new MemorySwaps(), { lightning: { BTC: ferryNode } });
  });
  after(async () => {
    await api?.close();
    await devnet?.close();
  });

  const carolCall = async (method: string, params: unknown) => (await clnRest(devnet.cln.carol, method, params)).body;

  test("carol's offer: the fetched invoice is carol's, and paying it moves the amount to carol", async () => {
    const { bolt12 } = await carolCall('offer', { amount: 'any', description: 'carol sells' });
    const fetched = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer: bolt12, amount: 42_000 });
    assert.equal(fetched.status, 201);
    const invoice = decodeInvoice(fetched.json.invoice);
    assert.equal(hex.encode(invoice.invoice.nodeId!), devnet.cln.carol.pubkey);
    assert.equal(invoice.invoice.amountMsat, 42_000_000n);

    const carolBefore = (await carolCall('listpeerchannels', {})).channels[0].to_us_msat;
    const paid = await ferryNode.payInvoice({ paymentRequest: fetched.json.invoice, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    assert.equal(paid.status, 'SUCCEEDED');
    assert.equal(createHash('sha256').update(Buffer.from(paid.preimage!, 'hex')).digest('hex'), hex.encode(invoice.invoice.paymentHash!));
    assert.equal((await carolCall('listpeerchannels', {})).channels[0].to_us_msat, carolBefore + 42_000_000);
    const { invoices } = await carolCall('listinvoices', { payment_hash: hex.encode(invoice.invoice.paymentHash!) });
    assert.equal(invoices[0].status, 'paid');
  });

  test('an offer no node answers for is a 422 with the node\'s reason, not a 5xx', async () => {
    const stranger = encodeOffer({ description: 'gone', issuerId: key(0x75) });
    const answer = await call(api, 'POST', '/v2/lightning/BTC/bolt12/fetch', { offer: stranger, amount: 10 });
    assert.equal(answer.status, 422);
    assert.match(answer.json.error, /could not fetch an invoice for the offer: Timeout waiting for response/);
    assert.deepEqual(api.errors, []);
  });
});
