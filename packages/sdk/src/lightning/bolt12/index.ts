// BOLT #12 offers, invoice requests and invoices: encoding, decoding, signing and verifying.
export { Bolt12Error, parseTlvStream, encodeTlvStream, readBigSize, writeBigSize, type TlvRecord } from './tlv.ts';
export { decodeBolt12String, encodeBolt12String, HRP } from './string.ts';
export { merkleRoot, signatureDigest, taggedHash, verifyBolt12Signature, signBolt12 } from './signature.ts';
export type { OfferFields, InvoiceRequestOwnFields, InvoiceOwnFields } from './fields.ts';
export type { BlindedPath, BlindedPayInfo, FallbackAddress } from './values.ts';
export { decodeOffer, encodeOffer, offerFromBytes, offerString, offerSigningKey, offerExpired, type Offer } from './offer.ts';
export {
  decodeInvoiceRequest, invoiceRequestFromBytes, createInvoiceRequest, encodeInvoiceRequest, offerBytesOf, type InvoiceRequest,
} from './invoice-request.ts';
export { decodeInvoice, invoiceFromBytes, createInvoice, encodeInvoice, checkInvoiceAnswers, invoiceExpiresAt, type Invoice } from './invoice.ts';
export { OWNER_MESSAGES, checkOwnerSignature, parseSignatureHex, signOwnerMessage } from './ownership.ts';
export { bolt12AsInvoice, isBolt12Invoice } from './payable.ts';
export { decodeInvoiceError, encodeInvoiceError, type InvoiceError } from './invoice-error.ts';
