// The BOLT12 codec writing: an offer, a request for it and the invoice answering it, built and signed here, read
// back by our decoder and by boltz-bolt12 (LDK), and the payer's checks of an invoice against its request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import {
  checkInvoiceAnswers, createInvoice, createInvoiceRequest, decodeInvoice, decodeInvoiceRequest, decodeOffer, encodeInvoice,
  encodeInvoiceRequest, encodeOffer, invoiceExpiresAt, offerBytesOf, type BlindedPath,
} from '@ferry/sdk/lightning/bolt12/index.js';
import { boltzBolt12 } from '../helpers/boltz-bolt12.ts';

const issuerSecret = new Uint8Array(32).fill(0x41);
const payerSecret = new Uint8Array(32).fill(0x42);
const issuerId = secp256k1.getPublicKey(issuerSecret, true);
const regtest = hex.decode('06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f');
const key = (byte: number) => secp256k1.getPublicKey(new Uint8Array(32).fill(byte), true);
const path: BlindedPath = {
  firstNode: { nodeId: key(0x43) },
  pathKey: key(0x44),
  hops: [
    { blindedNodeId: key(0x45), encryptedRecipientData: new Uint8Array(16) },
    { blindedNodeId: key(0x46), encryptedRecipientData: new Uint8Array(8).fill(0x11) },
  ],
};
const payInfo = { feeBaseMsat: 1000, feeProportionalMillionths: 100, cltvExpiryDelta: 144, htlcMinimumMsat: 1000n, htlcMaximumMsat: 1_000_000_000n, features: new Uint8Array() };

function makeOffer() {
  return decodeOffer(
    encodeOffer({
      chains: [regtest],
      description: 'coffee',
      amount: 21_000n,
      issuer: 'ferry.test',
      quantityMax: 3n,
      absoluteExpiry: 4_000_000_000n,
      paths: [path],
      issuerId,
      features: Uint8Array.of(0x02), // bit 1: optional, unknown, allowed
    }),
  );
}

test('an offer round-trips with every field Ferry reads', () => {
  const offer = makeOffer();
  assert.equal(offer.fields.description, 'coffee');
  assert.equal(offer.fields.amount, 21_000n);
  assert.equal(offer.fields.quantityMax, 3n);
  assert.deepEqual(offer.fields.chains, [regtest]);
  assert.deepEqual(offer.fields.paths, [path]);
  assert.deepEqual(offer.fields.issuerId, issuerId);
  assert.throws(() => encodeOffer({ description: 'no key, no path' }), /neither offer_issuer_id nor offer_paths/);
  assert.throws(() => encodeOffer({ amount: 0n, description: 'x', issuerId }), /greater than zero/);
});

test('request and invoice: built, signed, mirrored, read back and checked as the payer does', async () => {
  const offer = makeOffer();
  const request = createInvoiceRequest(offer, { metadata: new Uint8Array(8).fill(7), chain: regtest, quantity: 2n, amountMsat: 42_000n, payerNote: 'two please' }, payerSecret);
  const requestText = encodeInvoiceRequest(request);
  assert.match(requestText, /^lnr1/);
  const read = decodeInvoiceRequest(requestText);
  assert.deepEqual(read.invreq.payerId, secp256k1.getPublicKey(payerSecret, true));
  assert.equal(read.invreq.payerNote, 'two please');
  assert.deepEqual(offerBytesOf(read), offer.bytes, 'the offer is recovered from its request');
  assert.throws(() => createInvoiceRequest(offer, { metadata: new Uint8Array(8), quantity: 2n, amountMsat: 41_999n }, payerSecret), /below the offer amount/);
  assert.throws(() => createInvoiceRequest(offer, { metadata: new Uint8Array(8), quantity: 4n }, payerSecret), /above offer_quantity_max/);

  const preimage = new Uint8Array(32).fill(9);
  const invoice = createInvoice(read, { paths: [path], blindedPay: [payInfo], createdAt: 1_700_000_000n, relativeExpiry: 600n, paymentHash: sha256(preimage), amountMsat: 42_000n, features: Uint8Array.of(0x02, 0x00) }, issuerSecret);
  const invoiceText = encodeInvoice(invoice);
  const back = decodeInvoice(invoiceText);
  assert.deepEqual(back.invoice.paymentHash, sha256(preimage));
  assert.deepEqual(back.invoice.blindedPay, [payInfo]);
  assert.equal(invoiceExpiresAt(back), 1_700_000_600n);
  checkInvoiceAnswers(back, read);

  // LDK reads the invoice (checking its signature) and the offer alike
  const ldk = await boltzBolt12();
  const theirs = new ldk.Invoice(invoiceText);
  assert.equal(theirs.amount_msat, 42_000n);
  assert.deepEqual(theirs.payment_hash, sha256(preimage));
  assert.deepEqual(theirs.signing_pubkey, issuerId);
  assert.equal(theirs.payment_paths.length, 1);
  const theirOffer = new ldk.Offer(encodeOffer(offer.fields));
  assert.deepEqual(theirOffer.signing_pubkey, issuerId);
  assert.equal(theirOffer.amount, 21_000n);

  // an invoice signed by another key, for another request, or for another amount is refused
  const stranger = createInvoice(read, { paths: [path], blindedPay: [payInfo], createdAt: 1_700_000_000n, paymentHash: sha256(preimage), amountMsat: 42_000n }, new Uint8Array(32).fill(0x47));
  assert.throws(() => checkInvoiceAnswers(stranger, read), /not the offer_issuer_id/);
  const other = createInvoiceRequest(offer, { metadata: new Uint8Array(8).fill(8), quantity: 1n }, payerSecret);
  assert.throws(() => checkInvoiceAnswers(back, other), /does not mirror/);
  assert.throws(() => createInvoice(read, { paths: [path], blindedPay: [payInfo], createdAt: 1n, paymentHash: sha256(preimage), amountMsat: 1n }, issuerSecret), /differs from invreq_amount/);
  // a flipped byte in the signed part breaks the signature for both decoders
  const tampered = invoiceText.slice(0, -10) + (invoiceText.at(-10) === 'q' ? 'p' : 'q') + invoiceText.slice(-9);
  assert.throws(() => decodeInvoice(tampered));
  assert.throws(() => new ldk.Invoice(tampered));
  assert.throws(() => decodeInvoice(invoiceText.replace(/^lni/, 'lnr')), /not an invoice/);
});

test('an invoice with unknown required features, no paths or mismatched payinfo is refused', () => {
  const offer = makeOffer();
  const request = createInvoiceRequest(offer, { metadata: new Uint8Array(8), quantity: 1n }, payerSecret);
  const base = { paths: [path], blindedPay: [payInfo], createdAt: 1n, paymentHash: new Uint8Array(32), amountMsat: 21_000n };
  assert.equal(createInvoice(request, { ...base, features: Uint8Array.of(0x01, 0x00, 0x00) }, issuerSecret).invoice.features?.length, 3); // MPP compulsory (16) is known
  assert.throws(() => createInvoice(request, { ...base, features: Uint8Array.of(0x04, 0x00, 0x00) }, issuerSecret), /unknown required feature bit 18/);
  assert.throws(() => createInvoice(request, { ...base, blindedPay: [] }, issuerSecret), /one payinfo per invoice path/);
  assert.throws(() => createInvoice(request, { ...base, paths: undefined }, issuerSecret), /without invoice_paths/);
});
