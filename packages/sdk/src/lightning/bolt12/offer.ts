// BOLT12 offers (lno): decoding with the reader's rules of BOLT #12 (fields only in 1-79 and the experimental
// range, an amount needs a description and must be positive, a currency needs an amount, an offer needs an issuer
// id or paths) and encoding. Expiry is left to the caller, which knows the time.
import { readSections, writeSection, type OfferFields } from './fields.ts';
import { decodeBolt12String, encodeBolt12String, HRP } from './string.ts';
import { Bolt12Error, encodeTlvStream, parseTlvStream, type TlvRecord } from './tlv.ts';

export interface Offer {
  bytes: Uint8Array;
  records: TlvRecord[];
  fields: OfferFields;
}

export const isOfferType = (type: bigint): boolean => (type >= 1n && type <= 79n) || (type >= 1_000_000_000n && type <= 1_999_999_999n);

export function decodeOffer(text: string): Offer {
  const { hrp, bytes } = decodeBolt12String(text);
  if (hrp !== HRP.offer) throw new Bolt12Error(`not an offer: prefix ${hrp.slice(0, 8)}`);
  return offerFromBytes(bytes);
}

export function offerFromBytes(bytes: Uint8Array): Offer {
  const records = parseTlvStream(bytes);
  const { offer: fields } = readSections(records, ['offer'], isOfferType);
  checkOfferFields(fields);
  return { bytes, records, fields };
}

/** The offer's own rules, which an invoice request or invoice mirroring an offer must meet as well. */
export function checkOfferFields(fields: OfferFields): void {
  if (fields.amount !== undefined && fields.description === undefined) throw new Bolt12Error('offer_amount without offer_description');
  if (fields.amount === 0n) throw new Bolt12Error('offer_amount must be greater than zero');
  if (fields.currency !== undefined && fields.amount === undefined) throw new Bolt12Error('offer_currency without offer_amount');
  if (fields.issuerId === undefined && fields.paths === undefined) throw new Bolt12Error('offer has neither offer_issuer_id nor offer_paths');
}

export function encodeOffer(fields: OfferFields): string {
  checkOfferFields(fields);
  return encodeBolt12String(HRP.offer, encodeTlvStream(writeSection('offer', fields)));
}

export function offerString(offer: Offer): string {
  return encodeBolt12String(HRP.offer, offer.bytes);
}

/** The key an offer's owner proves itself with: offer_issuer_id (offers with only paths have none). */
export function offerSigningKey(offer: Offer): Uint8Array | undefined {
  return offer.fields.issuerId;
}

export function offerExpired(offer: Offer, nowSeconds: number): boolean {
  const expiry = offer.fields.absoluteExpiry;
  return expiry !== undefined && BigInt(Math.floor(nowSeconds)) > expiry;
}
