// Reads a BOLT11 invoice on @scure/base's bech32 and @noble/curves' secp256k1, the libraries the SDK already builds
// on. Our own reader because the field's package (bolt11) pulls the native secp256k1 module and create-hash, which
// needs Node's `stream` shimmed in a browser bundle: the client SDK installs nothing native and bundles as it is.
// The BOLT #11 reader rules, so Ferry's answers match what LND will pay:
// - the bech32 checksum must hold (no length limit, no mixed case), the prefix name a network we know and a valid
//   amount (networks.ts), and the signature (the last 104 words: r, s and a recovery id of 0 to 3) must recover
//   the payee's key from the sha256 of the prefix and the data words (words.ts);
// - a field that runs past the signature makes the invoice invalid;
// - p, s and h fields of other than 52 words and n fields of other than 53 are skipped, and of each kind of field
//   only the first counts (every r and f field counts); an n field must name the key the signature recovers;
// - an invoice needs a payment hash and may not require features we do not know;
// - the description must be UTF-8;
// - f fields of unknown versions (above 18) are skipped; a P2PKH or P2SH one (17, 18) must carry a 20-byte hash
//   and a segwit one of version 0 or 1 must fit a segwit address (90 characters at most).
import { bech32, hex } from '@scure/base';
import { recoverPublicKey } from '../../keys/ecdsa-recovery.ts';
import { featureBitsOfWords } from './features.ts';
import { readPrefix } from './networks.ts';
import type { Bolt11Invoice, Bolt11Network, RouteHintHop } from './types.ts';
import { bytesOfWords, intOfWords, signedDigest } from './words.ts';

export const DEFAULT_EXPIRY = 3600;
export const DEFAULT_MIN_FINAL_CLTV_EXPIRY = 18;
export const TIMESTAMP_WORDS = 7; // 35 bits
const SIGNATURE_WORDS = 104; // 65 bytes: r, s and the recovery id
// Feature bits below 50 are assigned or reserved by BOLT 9; an even bit beyond them is one we cannot honour.
const HIGHEST_KNOWN_FEATURE = 49;
const HOP_BYTES = 51; // pubkey 33, short channel id 8, fee base 4, fee rate 4, CLTV delta 2
const SEGWIT_ADDRESS_MAX = 90;

// Tagged-field types (the bech32 character in BOLT11's field list, as its 5-bit value).
export const TAG = {
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

interface Field {
  tag: number;
  words: number[];
}

function fieldsOf(data: number[]): Field[] {
  const fields: Field[] = [];
  for (let pos = 0; pos < data.length; ) {
    if (pos + 3 > data.length) throw new Error('invalid invoice: truncated field');
    const length = data[pos + 1] * 32 + data[pos + 2];
    if (pos + 3 + length > data.length) throw new Error('invalid invoice: truncated field');
    fields.push({ tag: data[pos], words: data.slice(pos + 3, pos + 3 + length) });
    pos += 3 + length;
  }
  return fields;
}

/** The payee's compressed key, recovered from the 65-byte signature (r, s, recovery id) over the invoice. */
function recoverPayee(prefix: string, dataWords: number[], signature: Uint8Array): string {
  const recoveryId = signature[64];
  if (recoveryId > 3) throw new Error('invalid invoice signature: recovery id');
  try {
    const digest = signedDigest(prefix, dataWords);
    return hex.encode(recoverPublicKey(digest, signature.subarray(0, 64), recoveryId as 0 | 1 | 2 | 3));
  } catch (error) {
    throw new Error(`invalid invoice signature: ${(error as Error).message}`);
  }
}

function routeHintOf(words: number[]): RouteHintHop[] {
  // Trailing bytes that are not a whole hop are dropped.
  const bytes = bytesOfWords(words);
  const hops: RouteHintHop[] = [];
  for (let at = 0; at + HOP_BYTES <= bytes.length; at += HOP_BYTES) {
    const hop = bytes.subarray(at, at + HOP_BYTES);
    const view = new DataView(hop.buffer, hop.byteOffset, hop.byteLength);
    hops.push({
      pubkey: hex.encode(hop.subarray(0, 33)),
      shortChannelId: hex.encode(hop.subarray(33, 41)),
      feeBaseMsat: view.getUint32(41),
      feeProportionalMillionths: view.getUint32(45),
      cltvExpiryDelta: view.getUint16(49),
    });
  }
  return hops;
}

/** A fallback address's version and program, or undefined for a version we skip. */
function fallbackOf(words: number[], network: Bolt11Network): { version: number; program: Uint8Array } | undefined {
  if (words.length < 1 || words[0] > 18) return undefined;
  const version = words[0];
  const program = bytesOfWords(words.slice(1));
  if ((version === 17 || version === 18) && program.length !== 20) throw new Error('invalid invoice: fallback hash is not 20 bytes');
  // prefix, separator, version, program words, checksum
  const addressLength = network.length + 1 + 1 + Math.ceil((program.length * 8) / 5) + 6;
  if ((version === 0 || version === 1) && addressLength > SEGWIT_ADDRESS_MAX) throw new Error('invalid invoice: fallback program too long');
  return { version, program };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeBolt11(paymentRequest: string): Bolt11Invoice {
  return readBolt11(paymentRequest, recoverPayee);
}

/**
 * An invoice the reader's own node just made and returned over its authenticated API: read like decodeBolt11 but
 * without recovering the payee from the signature, the most expensive step (~0.2–1 ms), which would tell the
 * service nothing it does not know. Never for an invoice from anyone else.
 */
export function decodeOwnBolt11(paymentRequest: string): Omit<Bolt11Invoice, 'payeeNodeKey'> {
  const { payeeNodeKey: _unread, ...invoice } = readBolt11(paymentRequest, () => '');
  return invoice;
}

function readBolt11(paymentRequest: string, payee: typeof recoverPayee): Bolt11Invoice {
  const text = paymentRequest.trim().replace(/^lightning:/i, '');
  if (!text.toLowerCase().startsWith('ln')) throw new Error('invalid invoice prefix: must start with ln');
  const { prefix, words } = bech32.decode(text as `${string}1${string}`, false);
  const { network, amountMsat } = readPrefix(prefix);
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) throw new Error('invalid invoice: too short');
  const dataWords = words.slice(0, words.length - SIGNATURE_WORDS);
  const signature = bytesOfWords(words.slice(words.length - SIGNATURE_WORDS));
  const fields = fieldsOf(dataWords.slice(TIMESTAMP_WORDS));
  const payeeNodeKey = payee(prefix, dataWords, signature);

  const invoice: Bolt11Invoice = {
    paymentRequest: text.toLowerCase(),
    network,
    amountMsat,
    timestamp: intOfWords(dataWords.slice(0, TIMESTAMP_WORDS)),
    paymentHash: '',
    paymentSecret: undefined,
    description: undefined,
    descriptionHash: undefined,
    expiry: DEFAULT_EXPIRY,
    minFinalCltvExpiry: DEFAULT_MIN_FINAL_CLTV_EXPIRY,
    payeeNodeKey,
    featureBits: [],
    routeHints: [],
    fallbackAddresses: [],
    signature: hex.encode(signature.subarray(0, 64)),
    recoveryId: signature[64],
  };
  const seen = new Set<number>();
  for (const { tag, words } of fields) {
    const first = !seen.has(tag);
    switch (tag) {
      case TAG.paymentHash:
        if (words.length !== 52 || !first) continue;
        invoice.paymentHash = hex.encode(bytesOfWords(words));
        break;
      case TAG.paymentSecret:
        if (words.length !== 52 || !first) continue;
        invoice.paymentSecret = hex.encode(bytesOfWords(words));
        break;
      case TAG.descriptionHash:
        if (words.length !== 52 || !first) continue;
        invoice.descriptionHash = hex.encode(bytesOfWords(words));
        break;
      case TAG.payeeNodeKey:
        if (words.length !== 53 || !first) continue;
        if (hex.encode(bytesOfWords(words)) !== payeeNodeKey) throw new Error('invalid invoice signature: not signed by the n field key');
        break;
      case TAG.description:
        if (!first) continue;
        try {
          invoice.description = utf8.decode(bytesOfWords(words));
        } catch {
          throw new Error('invalid invoice: description is not UTF-8');
        }
        break;
      case TAG.expiry:
        if (first) invoice.expiry = intOfWords(words);
        break;
      case TAG.minFinalCltvExpiry:
        if (first) invoice.minFinalCltvExpiry = intOfWords(words);
        break;
      case TAG.features:
        if (first) invoice.featureBits = featureBitsOfWords(words);
        break;
      case TAG.routeHint:
        invoice.routeHints.push(routeHintOf(words));
        break;
      case TAG.fallback: {
        const fallback = fallbackOf(words, network);
        if (fallback === undefined) continue;
        invoice.fallbackAddresses.push({ version: fallback.version, program: hex.encode(fallback.program) });
        break;
      }
      default:
        continue;
    }
    seen.add(tag);
  }
  if (invoice.paymentHash === '') throw new Error('invalid invoice: no payment hash');
  const unknownEven = invoice.featureBits.find((b) => b % 2 === 0 && b > HIGHEST_KNOWN_FEATURE);
  if (unknownEven !== undefined) throw new Error(`invalid invoice: unknown required feature bit ${unknownEven}`);
  return invoice;
}

export function invoiceExpiresAt(invoice: Pick<Bolt11Invoice, 'timestamp' | 'expiry'>): number {
  return invoice.timestamp + invoice.expiry;
}
