// BOLT12 between two devnet CLN nodes over clnrest: carol issues offers, cln fetches invoices for them (the
// invoice request signed by a payer key, the invoice by carol's node key, both checked by Ferry's codec) and pays
// them; carol's node records the invoice as paid and the channel balance moves by its amount.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import type { ClnNodeInfo, LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { decodeInvoice, decodeOffer, encodeOffer } from '@ferry/sdk/lightning/bolt12/index.js';
import { clnRest, startClnPair } from '../lightning/helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

const clnCall = (node: ClnNodeInfo, method: string, params: unknown = {}) => clnRest(node, method, params);

describe('BOLT12 offers between devnet CLN nodes', () => {
  let devnet: LightningDevnet;
  let cln: ClnNodeInfo;
  let carol: ClnNodeInfo;

  before(async () => {
    devnet = await startClnPair();
    ({ cln, carol } = devnet.cln);
  });
  after(async () => {
    await devnet?.close();
  });

  const clnToUs = async (): Promise<number> => (await clnCall(cln, 'listpeerchannels', { id: carol.pubkey })).body.channels[0].to_us_msat;

  test('an offer with an amount: fetched, checked, paid once; carol holds the invoice as paid', async () => {
    const offered = await clnCall(carol, 'offer', { amount: 50_000_000, description: 'coffee beans' });
    assert.equal(offered.status, 201);
    assert.match(offered.body.bolt12, /^lno1/);
    const offer = decodeOffer(offered.body.bolt12);
    assert.equal(hex.encode(offer.fields.issuerId!), carol.pubkey);
    assert.equal(offer.fields.amount, 50_000_000n);
    const decodedOffer = await clnCall(cln, 'decode', { string: offered.body.bolt12 });
    assert.equal(decodedOffer.body.type, 'bolt12 offer');
    assert.equal(decodedOffer.body.offer_id, offered.body.offer_id);
    assert.equal((await clnCall(carol, 'offer', { amount: 50_000_000, description: 'coffee beans' })).body.created, false);

    const fetched = await clnCall(cln, 'fetchinvoice', { offer: offered.body.bolt12, payer_note: 'for the office' });
    assert.equal(fetched.status, 201);
    const invoice = decodeInvoice(fetched.body.invoice); // signature checked by Ferry's codec
    assert.equal(hex.encode(invoice.invoice.nodeId!), carol.pubkey);
    assert.equal(invoice.invoice.amountMsat, 50_000_000n);
    assert.equal(invoice.invreq.payerNote, 'for the office');
    const paymentHash = hex.encode(invoice.invoice.paymentHash!);

    const before = await clnToUs();
    const paid = await clnCall(cln, 'pay', { bolt11: fetched.body.invoice });
    assert.equal(paid.status, 201);
    assert.equal(paid.body.status, 'complete');
    assert.equal(sha256(paid.body.payment_preimage), paymentHash);
    assert.equal(paid.body.destination, carol.pubkey);
    assert.equal(await clnToUs(), before - 50_000_000);
    assert.equal((await clnCall(cln, 'pay', { bolt11: fetched.body.invoice })).body.status, 'complete');
    assert.equal(await clnToUs(), before - 50_000_000, 'paid once');

    const { body } = await clnCall(carol, 'listinvoices', { payment_hash: paymentHash });
    assert.equal(body.invoices[0].status, 'paid');
    assert.equal(body.invoices[0].bolt12, fetched.body.invoice);
    assert.equal(body.invoices[0].amount_received_msat, 50_000_000);
    const { body: sent } = await clnCall(cln, 'listsendpays', { payment_hash: paymentHash });
    assert.equal(sent.payments[0].bolt12, fetched.body.invoice);
    assert.equal((await clnCall(carol, 'listoffers', { offer_id: offered.body.offer_id })).body.offers[0].used, true);
  });

  test('an offer without an amount needs the payer\'s; unknown issuers and bad offers are refused', async () => {
    const { body: offered } = await clnCall(carol, 'offer', { amount: 'any', description: 'tips' });
    const missing = await clnCall(cln, 'fetchinvoice', { offer: offered.bolt12 });
    assert.equal(missing.status, 500);
    assert.equal(missing.body.code, -32602);
    const fetched = await clnCall(cln, 'fetchinvoice', { offer: offered.bolt12, amount_msat: 1_234_000 });
    const decoded = await clnCall(cln, 'decode', { string: fetched.body.invoice });
    assert.equal(decoded.body.type, 'bolt12 invoice');
    assert.equal(decoded.body.invoice_amount_msat, 1_234_000);
    const before = await clnToUs();
    assert.equal((await clnCall(cln, 'pay', { bolt11: fetched.body.invoice })).body.status, 'complete');
    assert.equal(await clnToUs(), before - 1_234_000);

    const stranger = encodeOffer({ description: 'nobody', issuerId: secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true) });
    const unanswered = await clnCall(cln, 'fetchinvoice', { offer: stranger, amount_msat: 1000 });
    assert.equal(unanswered.body.code, 1005);
    const garbage = await clnCall(cln, 'fetchinvoice', { offer: 'lno1' + randomBytes(8).toString('hex') });
    assert.equal(garbage.status, 500);
    assert.equal(garbage.body.code, -32602);
  });
});
