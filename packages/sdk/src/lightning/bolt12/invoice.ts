// BOLT12 invoices (lni): the invoice request's fields mirrored, the invoice's own (160-176) and a BIP340 signature
// by invoice_node_id. Decoding applies the reader's rules that need no clock; `checkInvoiceAnswers` applies the
// payer's rules for an invoice answering a given request (mirrored fields, node id, amount), and
// `invoiceExpiresAt` gives the time after which it must not be paid.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { readSections, SIGNATURE_TYPE, writeSection, type InvoiceOwnFields, type InvoiceRequestOwnFields, type OfferFields } from './fields.ts';
import type { InvoiceRequest } from './invoice-request.ts';
import { isSignatureType, signBolt12, verifyBolt12Signature } from './signature.ts';
import { decodeBolt12String, encodeBolt12String, HRP } from './string.ts';
import { Bolt12Error, encodeTlvStream, parseTlvStream, type TlvRecord } from './tlv.ts';

export interface Invoice {
  bytes: Uint8Array;
  records: TlvRecord[];
  offer: OfferFields;
  invreq: InvoiceRequestOwnFields;
  invoice: InvoiceOwnFields;
  signature: Uint8Array;
}

const messageName = 'invoice';
/** Seconds an invoice without invoice_relative_expiry stays payable. */
export const DEFAULT_RELATIVE_EXPIRY = 7200n;
const isMirroredType = (type: bigint) => (type >= 0n && type <= 159n) || (type >= 1_000_000_000n && type <= 2_999_999_999n);

export function decodeInvoice(text: string): Invoice {
  const { hrp, bytes } = decodeBolt12String(text);
  if (hrp !== HRP.invoice) throw new Bolt12Error(`not an invoice: prefix ${hrp.slice(0, 8)}`);
  return invoiceFromBytes(bytes);
}

export function invoiceFromBytes(bytes: Uint8Array): Invoice {
  const records = parseTlvStream(bytes);
  const { offer, invreq, invoice } = readSections(records, ['offer', 'invreq', 'invoice'], () => true);
  for (const [value, name] of [
    [invoice.amountMsat, 'invoice_amount'],
    [invoice.createdAt, 'invoice_created_at'],
    [invoice.paymentHash, 'invoice_payment_hash'],
    [invoice.nodeId, 'invoice_node_id'],
    [invoice.paths, 'invoice_paths'],
    [invoice.blindedPay, 'invoice_blindedpay'],
  ] as const) {
    if (value === undefined) throw new Bolt12Error(`invoice without ${name}`);
  }
  if (invoice.blindedPay!.length !== invoice.paths!.length) throw new Bolt12Error('invoice_blindedpay must hold one payinfo per invoice path');
  if (invreq.amountMsat !== undefined && invreq.amountMsat !== invoice.amountMsat) throw new Bolt12Error('invoice_amount differs from invreq_amount');
  const signature = records.find((record) => record.type === SIGNATURE_TYPE)?.value;
  if (signature?.length !== 64) throw new Bolt12Error('invoice without a 64-byte signature');
  if (!verifyBolt12Signature(messageName, records, signature, invoice.nodeId!)) throw new Bolt12Error('invalid invoice signature');
  return { bytes, records, offer, invreq, invoice, signature };
}

export function invoiceExpiresAt(invoice: Invoice): bigint {
  return invoice.invoice.createdAt! + (invoice.invoice.relativeExpiry ?? DEFAULT_RELATIVE_EXPIRY);
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** Throws unless the invoice is a valid answer to the request, as its payer must check. */
export function checkInvoiceAnswers(invoice: Invoice, request: InvoiceRequest): void {
  const mirrored = (records: TlvRecord[]) => records.filter((record) => isMirroredType(record.type) && !isSignatureType(record.type));
  const [ours, theirs] = [mirrored(invoice.records), mirrored(request.records)];
  if (ours.length !== theirs.length || ours.some((record, i) => !equal(record.raw, theirs[i].raw))) {
    throw new Bolt12Error('the invoice does not mirror the invoice request');
  }
  const nodeId = invoice.invoice.nodeId!;
  if (request.offer.issuerId !== undefined) {
    if (!equal(nodeId, request.offer.issuerId)) throw new Bolt12Error('invoice_node_id is not the offer_issuer_id');
  } else if (request.offer.paths !== undefined) {
    // which path the request took is the Lightning node's to know; any final hop of the offer's paths may sign
    const finals = request.offer.paths.map((path) => path.hops[path.hops.length - 1].blindedNodeId);
    if (!finals.some((key) => equal(key, nodeId))) throw new Bolt12Error('invoice_node_id is no final hop of the offer paths');
  }
}

/** Builds and signs an invoice answering a request; the node id is the key of `nodeSecret`. */
export function createInvoice(request: InvoiceRequest, fields: Omit<InvoiceOwnFields, 'nodeId'>, nodeSecret: Uint8Array): Invoice {
  const own = { ...fields, nodeId: secp256k1.getPublicKey(nodeSecret, true) };
  const copied = request.records.filter((record) => !isSignatureType(record.type));
  const unsigned = parseTlvStream(encodeTlvStream([...copied, ...writeSection('invoice', own)]));
  const signature = signBolt12(messageName, unsigned, nodeSecret);
  return invoiceFromBytes(encodeTlvStream([...unsigned, { type: SIGNATURE_TYPE, value: signature }]));
}

export function encodeInvoice(invoice: Invoice): string {
  return encodeBolt12String(HRP.invoice, invoice.bytes);
}
