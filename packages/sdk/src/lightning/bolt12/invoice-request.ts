// BOLT12 invoice requests (lnr): the offer's fields mirrored, the request's own (80-159) and a BIP340 signature by
// invreq_payer_id. Decoding applies the reader's rules that need no knowledge of the issuer's node: required
// metadata and payer id, allowed ranges, feature bits, quantity and amount against the offer, the signature.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { readSections, SIGNATURE_TYPE, writeSection, type InvoiceRequestOwnFields, type OfferFields } from './fields.ts';
import { checkOfferFields, isOfferType, type Offer } from './offer.ts';
import { isSignatureType, signBolt12, verifyBolt12Signature } from './signature.ts';
import { decodeBolt12String, encodeBolt12String, HRP } from './string.ts';
import { Bolt12Error, encodeTlvStream, parseTlvStream, type TlvRecord } from './tlv.ts';

export interface InvoiceRequest {
  bytes: Uint8Array;
  records: TlvRecord[];
  offer: OfferFields;
  invreq: InvoiceRequestOwnFields;
  signature: Uint8Array;
}

const messageName = 'invoice_request';
const isRequestType = (type: bigint) => (type >= 0n && type <= 159n) || (type >= 1_000_000_000n && type <= 2_999_999_999n) || isSignatureType(type);

export function decodeInvoiceRequest(text: string): InvoiceRequest {
  const { hrp, bytes } = decodeBolt12String(text);
  if (hrp !== HRP.invoiceRequest) throw new Bolt12Error(`not an invoice request: prefix ${hrp.slice(0, 8)}`);
  return invoiceRequestFromBytes(bytes);
}

export function invoiceRequestFromBytes(bytes: Uint8Array): InvoiceRequest {
  const records = parseTlvStream(bytes);
  const { offer, invreq } = readSections(records, ['offer', 'invreq'], isRequestType);
  if (invreq.metadata === undefined) throw new Bolt12Error('invoice request without invreq_metadata');
  if (invreq.payerId === undefined) throw new Bolt12Error('invoice request without invreq_payer_id');
  const signature = records.find((record) => record.type === SIGNATURE_TYPE)?.value;
  if (signature?.length !== 64) throw new Bolt12Error('invoice request without a 64-byte signature');
  if (!verifyBolt12Signature(messageName, records, signature, invreq.payerId)) throw new Bolt12Error('invalid invoice request signature');
  checkAgainstOffer(offer, invreq);
  return { bytes, records, offer, invreq, signature };
}

function checkAgainstOffer(offer: OfferFields, invreq: InvoiceRequestOwnFields): void {
  const forOffer = offer.issuerId !== undefined || offer.paths !== undefined;
  if (!forOffer) {
    if (offer.chains || offer.features || offer.quantityMax !== undefined) throw new Bolt12Error('offer fields in an invoice request without an offer');
    if (invreq.amountMsat === undefined) throw new Bolt12Error('invoice request without invreq_amount');
    return;
  }
  checkOfferFields(offer);
  if (offer.quantityMax === undefined) {
    if (invreq.quantity !== undefined) throw new Bolt12Error('invreq_quantity for an offer without offer_quantity_max');
  } else {
    if (invreq.quantity === undefined || invreq.quantity === 0n) throw new Bolt12Error('invreq_quantity missing or zero');
    if (offer.quantityMax !== 0n && invreq.quantity > offer.quantityMax) throw new Bolt12Error('invreq_quantity above offer_quantity_max');
  }
  if (offer.amount === undefined) {
    if (invreq.amountMsat === undefined) throw new Bolt12Error('invoice request without invreq_amount for an offer without amount');
  } else if (offer.currency === undefined && invreq.amountMsat !== undefined) {
    // in another currency the expected amount needs an exchange rate: left to the issuer
    if (invreq.amountMsat < offer.amount * (invreq.quantity ?? 1n)) throw new Bolt12Error('invreq_amount below the offer amount');
  }
}

/** The offer an invoice request answers, as it mirrors it: its records of the offer's ranges, in order. */
export function offerBytesOf(request: InvoiceRequest): Uint8Array {
  return encodeTlvStream(request.records.filter((record) => isOfferType(record.type)));
}

/** Builds and signs a request for an offer; the payer id is the key of `payerSecret`. */
export function createInvoiceRequest(offer: Offer, fields: Omit<InvoiceRequestOwnFields, 'payerId'>, payerSecret: Uint8Array): InvoiceRequest {
  const own = { ...fields, payerId: secp256k1.getPublicKey(payerSecret, true) };
  // all of the offer's records are copied, unknown ones included
  const unsigned = parseTlvStream(encodeTlvStream([...offer.records, ...writeSection('invreq', own)]));
  const signature = signBolt12(messageName, unsigned, payerSecret);
  return invoiceRequestFromBytes(encodeTlvStream([...unsigned, { type: SIGNATURE_TYPE, value: signature }]));
}

export function encodeInvoiceRequest(request: InvoiceRequest): string {
  return encodeBolt12String(HRP.invoiceRequest, request.bytes);
}
