// Reads a BOLT11 invoice with the bolt11 package (bech32 checksum, amount, signature recovery, field parsing)
// and adds the BOLT #11 reader rules bolt11 leaves out, so Ferry's answers match what LND will pay:
// - a field that runs past the signature makes the invoice invalid (bolt11 reads what is there);
// - p, s and h fields of other than 52 words and n fields of other than 53 are skipped, and of each kind
//   of field only the first counts (bolt11 keeps every field, and its summary object the last);
// - an invoice needs a payment hash and may not require features we do not know;
// - the description must be UTF-8 (bolt11 replaces bad bytes).
// Reading the field boundaries needs the data words, so the words are walked once more here.
import { bech32 } from '@scure/base';
import { decode, type TagData } from 'bolt11';
import { featureBitsFromPackage, type PackageFeatureBits } from './features.ts';
import { NETWORKS, networkOfInvoice } from './networks.ts';
import type { Bolt11Invoice, RouteHintHop } from './types.ts';

export const DEFAULT_EXPIRY = 3600;
export const DEFAULT_MIN_FINAL_CLTV_EXPIRY = 18;
const TIMESTAMP_WORDS = 7; // 35 bits
const SIGNATURE_WORDS = 104; // 65 bytes: r, s and the recovery id
// Feature bits below 50 are assigned or reserved by BOLT 9; an even bit beyond them is one we cannot honour.
const HIGHEST_KNOWN_FEATURE = 49;

// Tagged-field types (the bech32 character in BOLT11's field list, as its 5-bit value).
const TAG = {
  paymentHash: 1, // p
  routeHint: 3, // r
  features: 5, // 9
  expiry: 6, // x
  fallback: 9, // f
  description: 13, // d
  paymentSecret: 16, // s
  payeeNodeKey: 19, // n
  descriptionHash: 23, // h
  minFinalCltvExpiry: 24, // c
} as const;

type PackageRouteHint = Extract<TagData, unknown[]>;
type PackageFallback = Extract<TagData, { addressHash: string }>;

interface Field {
  tag: number;
  words: number[];
}

function fieldsOf(text: string): Field[] {
  const { words } = bech32.decode(text as `${string}1${string}`, false);
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) throw new Error('invalid invoice: too short');
  const data = words.slice(TIMESTAMP_WORDS, words.length - SIGNATURE_WORDS);
  const fields: Field[] = [];
  for (let pos = 0; pos < data.length; ) {
    const length = data[pos + 1] * 32 + data[pos + 2];
    if (pos + 3 > data.length || pos + 3 + length > data.length) throw new Error('invalid invoice: truncated field');
    fields.push({ tag: data[pos], words: data.slice(pos + 3, pos + 3 + length) });
    pos += 3 + length;
  }
  return fields;
}

// Whole bytes only: BOLT11 pads each field's last byte out to a 5-bit word with zeros.
function fieldBytes(words: number[]): Uint8Array {
  const out = new Uint8Array(Math.floor((words.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let i = 0;
  for (const word of words) {
    acc = ((acc << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8 && i < out.length) {
      bits -= 8;
      out[i++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeBolt11(paymentRequest: string): Bolt11Invoice {
  const text = paymentRequest.trim().replace(/^lightning:/i, '');
  const network = networkOfInvoice(text);
  const decoded = decode(text, NETWORKS[network]);
  const fields = fieldsOf(text);
  if (fields.length !== decoded.tags.length) throw new Error('invalid invoice: unreadable fields');

  const invoice: Bolt11Invoice = {
    paymentRequest: text.toLowerCase(),
    network,
    amountMsat: decoded.millisatoshis == null ? undefined : BigInt(decoded.millisatoshis),
    timestamp: decoded.timestamp as number,
    paymentHash: '',
    paymentSecret: undefined,
    description: undefined,
    descriptionHash: undefined,
    expiry: DEFAULT_EXPIRY,
    minFinalCltvExpiry: DEFAULT_MIN_FINAL_CLTV_EXPIRY,
    payeeNodeKey: decoded.payeeNodeKey as string,
    featureBits: [],
    routeHints: [],
    fallbackAddresses: [],
    signature: decoded.signature as string,
    recoveryId: decoded.recoveryFlag as number,
  };
  let nodeKey: string | undefined;
  const seen = new Set<number>();
  fields.forEach(({ tag, words }, i) => {
    const data = decoded.tags[i].data;
    const first = !seen.has(tag);
    switch (tag) {
      case TAG.paymentHash:
        if (words.length !== 52 || !first) return;
        invoice.paymentHash = data as string;
        break;
      case TAG.paymentSecret:
        if (words.length !== 52 || !first) return;
        invoice.paymentSecret = data as string;
        break;
      case TAG.descriptionHash:
        if (words.length !== 52 || !first) return;
        invoice.descriptionHash = data as string;
        break;
      case TAG.payeeNodeKey:
        if (words.length !== 53 || !first) return;
        nodeKey = data as string;
        break;
      case TAG.description:
        if (!first) return;
        try {
          invoice.description = utf8.decode(fieldBytes(words));
        } catch {
          throw new Error('invalid invoice: description is not UTF-8');
        }
        break;
      case TAG.expiry:
        if (first) invoice.expiry = data as number;
        break;
      case TAG.minFinalCltvExpiry:
        if (first) invoice.minFinalCltvExpiry = data as number;
        break;
      case TAG.features:
        if (!first) return;
        invoice.featureBits = featureBitsFromPackage(data as PackageFeatureBits);
        break;
      case TAG.routeHint: {
        // bolt11 turns trailing bytes that are not a whole 51-byte hop into one more, broken hop.
        const hops = (data as PackageRouteHint).slice(0, Math.floor(Math.floor((words.length * 5) / 8) / 51));
        invoice.routeHints.push(hops.map(routeHintHop));
        break;
      }
      case TAG.fallback: {
        const { code, addressHash } = data as PackageFallback;
        if (words.length < 1 || code > 18) return; // unknown versions are skipped
        invoice.fallbackAddresses.push({ version: code, program: addressHash });
        break;
      }
      default:
        return;
    }
    seen.add(tag);
  });
  if (invoice.paymentHash === '') throw new Error('invalid invoice: no payment hash');
  const unknownEven = invoice.featureBits.find((b) => b % 2 === 0 && b > HIGHEST_KNOWN_FEATURE);
  if (unknownEven !== undefined) throw new Error(`invalid invoice: unknown required feature bit ${unknownEven}`);
  // bolt11 recovers the key from the signature and compares it with the first n field; the first n field of the
  // right length is the one that counts.
  if (nodeKey !== undefined && nodeKey !== invoice.payeeNodeKey) throw new Error('invalid invoice signature');
  return invoice;
}

function routeHintHop(hop: PackageRouteHint[number]): RouteHintHop {
  return {
    pubkey: hop.pubkey,
    shortChannelId: hop.short_channel_id,
    feeBaseMsat: hop.fee_base_msat,
    feeProportionalMillionths: hop.fee_proportional_millionths,
    cltvExpiryDelta: hop.cltv_expiry_delta,
  };
}

export function invoiceExpiresAt(invoice: Pick<Bolt11Invoice, 'timestamp' | 'expiry'>): number {
  return invoice.timestamp + invoice.expiry;
}
