// The BOLT12 TLV fields Ferry reads and writes, by type: which part of the message each belongs to (the offer's
// fields, the invoice request's own, the invoice's own), its name in our types and its value codec. One table
// serves decoding and encoding, so the two cannot drift apart.
import { Bolt12Error, readTruncated, writeTruncated, type TlvRecord } from './tlv.ts';
import {
  checkFeatures, readBip353Name, readBlindedPaths, readChains, readFallbacks, readFixed, readPayInfos, readPoint,
  readUtf8, writeBip353Name, writeBlindedPaths, writeFallbacks, writePayInfos,
  type BlindedPath, type BlindedPayInfo, type FallbackAddress,
} from './values.ts';

export interface OfferFields {
  chains?: Uint8Array[];
  metadata?: Uint8Array;
  currency?: string;
  /** Per item, in msat of the chain, or in the currency's minor unit when `currency` is set. */
  amount?: bigint;
  description?: string;
  features?: Uint8Array;
  absoluteExpiry?: bigint;
  paths?: BlindedPath[];
  issuer?: string;
  quantityMax?: bigint;
  issuerId?: Uint8Array;
}

export interface InvoiceRequestOwnFields {
  metadata?: Uint8Array;
  chain?: Uint8Array;
  amountMsat?: bigint;
  features?: Uint8Array;
  quantity?: bigint;
  payerId?: Uint8Array;
  payerNote?: string;
  paths?: BlindedPath[];
  bip353Name?: { name: string; domain: string };
}

export interface InvoiceOwnFields {
  paths?: BlindedPath[];
  blindedPay?: BlindedPayInfo[];
  createdAt?: bigint;
  relativeExpiry?: bigint;
  paymentHash?: Uint8Array;
  amountMsat?: bigint;
  fallbacks?: FallbackAddress[];
  features?: Uint8Array;
  nodeId?: Uint8Array;
}

export interface Sections {
  offer: OfferFields;
  invreq: InvoiceRequestOwnFields;
  invoice: InvoiceOwnFields;
}

type Section = keyof Sections;

interface Field {
  section: Section;
  key: string;
  name: string;
  read: (value: Uint8Array, name: string) => unknown;
  write: (value: never) => Uint8Array;
}

const text = new TextEncoder();
const bytes = { read: (v: Uint8Array) => v, write: (v: Uint8Array) => v };
const utf8 = { read: readUtf8, write: (v: string) => text.encode(v) };
const tu64 = { read: (v: Uint8Array, n: string) => readTruncated(v, 8, n), write: (v: bigint) => writeTruncated(v, 8) };
const tu32 = { read: (v: Uint8Array, n: string) => readTruncated(v, 4, n), write: (v: bigint) => writeTruncated(v, 4) };
const point = { read: readPoint, write: (v: Uint8Array) => v };
const hash = { read: (v: Uint8Array, n: string) => readFixed(v, 32, n), write: (v: Uint8Array) => v };
const paths = { read: readBlindedPaths, write: writeBlindedPaths };
const concatChains = (chains: Uint8Array[]) => Uint8Array.from(chains.flatMap((c) => [...c]));
/** Known even feature bits: none for offers and invoice requests, basic MPP (16) for invoices. */
const features = (known: number[]) => ({ read: (v: Uint8Array, n: string) => checkFeatures(v, known, n), write: (v: Uint8Array) => v });

const field = (section: Section, key: string, name: string, codec: { read: Field['read']; write: (v: never) => Uint8Array }): Field => ({ section, key, name, ...codec });

export const FIELDS = new Map<bigint, Field>([
  [0n, field('invreq', 'metadata', 'invreq_metadata', bytes)],
  [2n, field('offer', 'chains', 'offer_chains', { read: readChains, write: concatChains })],
  [4n, field('offer', 'metadata', 'offer_metadata', bytes)],
  [6n, field('offer', 'currency', 'offer_currency', utf8)],
  [8n, field('offer', 'amount', 'offer_amount', tu64)],
  [10n, field('offer', 'description', 'offer_description', utf8)],
  [12n, field('offer', 'features', 'offer_features', features([]))],
  [14n, field('offer', 'absoluteExpiry', 'offer_absolute_expiry', tu64)],
  [16n, field('offer', 'paths', 'offer_paths', paths)],
  [18n, field('offer', 'issuer', 'offer_issuer', utf8)],
  [20n, field('offer', 'quantityMax', 'offer_quantity_max', tu64)],
  [22n, field('offer', 'issuerId', 'offer_issuer_id', point)],
  [80n, field('invreq', 'chain', 'invreq_chain', hash)],
  [82n, field('invreq', 'amountMsat', 'invreq_amount', tu64)],
  [84n, field('invreq', 'features', 'invreq_features', features([]))],
  [86n, field('invreq', 'quantity', 'invreq_quantity', tu64)],
  [88n, field('invreq', 'payerId', 'invreq_payer_id', point)],
  [89n, field('invreq', 'payerNote', 'invreq_payer_note', utf8)],
  [90n, field('invreq', 'paths', 'invreq_paths', paths)],
  [91n, field('invreq', 'bip353Name', 'invreq_bip_353_name', { read: readBip353Name, write: writeBip353Name })],
  [160n, field('invoice', 'paths', 'invoice_paths', paths)],
  [162n, field('invoice', 'blindedPay', 'invoice_blindedpay', { read: readPayInfos, write: writePayInfos })],
  [164n, field('invoice', 'createdAt', 'invoice_created_at', tu64)],
  [166n, field('invoice', 'relativeExpiry', 'invoice_relative_expiry', tu32)],
  [168n, field('invoice', 'paymentHash', 'invoice_payment_hash', hash)],
  [170n, field('invoice', 'amountMsat', 'invoice_amount', tu64)],
  [172n, field('invoice', 'fallbacks', 'invoice_fallbacks', { read: readFallbacks, write: writeFallbacks })],
  [174n, field('invoice', 'features', 'invoice_features', features([16]))],
  [176n, field('invoice', 'nodeId', 'invoice_node_id', point)],
]);

export const SIGNATURE_TYPE = 240n;

/**
 * Reads the known fields of the given sections; `allowed` says which types may appear at all. An unknown odd type
 * is kept (only in the records), an unknown even one makes the message invalid, as BOLT #1 says.
 */
export function readSections(records: TlvRecord[], sections: Section[], allowed: (type: bigint) => boolean): Sections {
  const out: Sections = { offer: {}, invreq: {}, invoice: {} };
  for (const record of records) {
    if (!allowed(record.type)) throw new Bolt12Error(`TLV type ${record.type} is not allowed here`);
    const known = FIELDS.get(record.type);
    if (known && sections.includes(known.section)) {
      (out[known.section] as Record<string, unknown>)[known.key] = known.read(record.value, known.name);
    } else if (record.type % 2n === 0n && record.type !== SIGNATURE_TYPE) {
      throw new Bolt12Error(`unknown even TLV type ${record.type}`);
    }
  }
  return out;
}

/** The records of the given section's set fields. */
export function writeSection(section: Section, values: object): { type: bigint; value: Uint8Array }[] {
  const out: { type: bigint; value: Uint8Array }[] = [];
  for (const [type, known] of FIELDS) {
    if (known.section !== section) continue;
    const value = (values as Record<string, unknown>)[known.key];
    if (value !== undefined) out.push({ type, value: known.write(value as never) });
  }
  return out;
}
