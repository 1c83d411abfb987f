// A devnet CLN node answering an invoice request for an offer it issued: a new invoice of its own, signed with its
// key per BOLT12, recorded as its invoice (label `bolt12-…`) so `pay` settles it. Used when the request arrives as
// an onion message and when fetchinvoice hands it over in-process.
import { randomBytes, createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import {
  createInvoice, encodeInvoice, invoiceRequestFromBytes, merkleRoot, offerBytesOf, offerFromBytes, type Invoice, type Offer,
} from '@ferry/sdk/lightning/bolt12/index.js';
import type { LightningNetwork } from '../network.ts';
import type { OfferRecord } from '../types.ts';

const INVOICE_EXPIRY = 7200;
const FINAL_CLTV_DELTA = 80;

export const offerIdOf = (offer: Offer): string => hex.encode(merkleRoot(offer.records));

/** The node's active offer of this id, if it issued one. */
const issuedOffer = (network: LightningNetwork, node: string, offerId: string): OfferRecord | undefined =>
  network.offersOf(node).find((o) => o.offerId === offerId && o.active);

/**
 * The node's invoice for a request (its TLV bytes, read and checked anew as off the wire: signature included);
 * undefined when the node did not issue the offer. Throws Bolt12Error for a request that does not read.
 */
export function answerInvoiceRequest(network: LightningNetwork, issuer: string, requestBytes: Uint8Array): Invoice | undefined {
  const request = invoiceRequestFromBytes(requestBytes);
  const record = issuedOffer(network, issuer, offerIdOf(offerFromBytes(offerBytesOf(request))));
  if (record === undefined) return undefined;
  const amountMsat = request.invreq.amountMsat ?? BigInt(record.amountMsat ?? 0) * (request.invreq.quantity ?? 1n);
  const preimage = randomBytes(32).toString('hex');
  const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest();
  const node = network.node(issuer);
  // One blinded path whose introduction node is the issuer itself: the devnet routes to the node id directly.
  const pathSecret = secp256k1.utils.randomSecretKey();
  const invoice = createInvoice(
    request,
    {
      amountMsat,
      createdAt: BigInt(Math.floor(Date.now() / 1000)),
      relativeExpiry: BigInt(INVOICE_EXPIRY),
      paymentHash,
      paths: [{ firstNode: { nodeId: hex.decode(node.pubkey) }, pathKey: secp256k1.getPublicKey(pathSecret, true), hops: [{ blindedNodeId: secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), encryptedRecipientData: randomBytes(16) }] }],
      blindedPay: [{ feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta: FINAL_CLTV_DELTA, htlcMinimumMsat: 1n, htlcMaximumMsat: amountMsat, features: new Uint8Array() }],
    },
    hex.decode(node.secretKey),
  );
  network.addInvoice(issuer, {
    valueMsat: Number(amountMsat),
    memo: record.description,
    preimage,
    expiry: INVOICE_EXPIRY,
    cltvExpiry: FINAL_CLTV_DELTA,
    label: `bolt12-${record.offerId.slice(0, 16)}-${hex.encode(paymentHash).slice(0, 16)}`,
    bolt12: encodeInvoice(invoice),
  });
  network.markOfferUsed(record);
  return invoice;
}
