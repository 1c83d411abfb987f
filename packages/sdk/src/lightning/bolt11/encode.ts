// Writes and signs a BOLT11 invoice with a node's secret key, on @scure/base's bech32 and @noble/curves' secp256k1
// (deterministic RFC 6979 signatures with low s), like the reader beside it and for the same reason: the bolt11
// package pulls a native secp256k1. The devnet's Lightning nodes and the tests write their invoices with it. Ours
// are the checks on the input and the field choices: p, s, d or h, x unless it is the default, c, r per route
// hint, 9, and n when asked, in that order. A caller with faster signing at hand (the devnet's nodes, on Node's
// OpenSSL) passes a Bolt11Signer instead of the key.
import { bech32, hex } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { DEFAULT_EXPIRY, DEFAULT_MIN_FINAL_CLTV_EXPIRY, TAG, TIMESTAMP_WORDS } from './decode.ts';
import { wordsOfFeatureBits } from './features.ts';
import { writePrefix } from './networks.ts';
import type { Bolt11InvoiceFields, RouteHintHop } from './types.ts';
import { signedDigest, wordsOfInt } from './words.ts';

// What LND puts in its invoices: var_onion_optin and payment_secret required, basic_mpp optional.
export const DEFAULT_FEATURE_BITS = [8, 14, 17];

const HASH = /^[0-9a-f]{64}$/;
const MAX_FIELD_WORDS = 1023; // the field length is two words

function field(tag: number, words: number[]): number[] {
  if (words.length > MAX_FIELD_WORDS) throw new Error(`an invoice field holds at most ${MAX_FIELD_WORDS} words (${words.length} given)`);
  return [tag, ...wordsOfInt(words.length, 2), ...words];
}

const bytesField = (tag: number, bytes: Uint8Array) => field(tag, bech32.toWords(bytes));

function uint(value: number, bytes: number, name: string): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** (8 * bytes)) throw new Error(`route hint ${name} does not fit in ${bytes} bytes`);
  return hex.decode(value.toString(16).padStart(2 * bytes, '0'));
}

function hopBytes(hop: RouteHintHop): Uint8Array {
  if (!/^[0-9a-f]{66}$/.test(hop.pubkey)) throw new Error('route hint pubkey must be a compressed key in hex');
  secp256k1.Point.fromHex(hop.pubkey); // throws unless the key is on the curve
  if (!/^[0-9a-f]{16}$/.test(hop.shortChannelId)) throw new Error('route hint short channel id must be 8 bytes of hex');
  return Uint8Array.from([
    ...hex.decode(hop.pubkey),
    ...hex.decode(hop.shortChannelId),
    ...uint(hop.feeBaseMsat, 4, 'fee base'),
    ...uint(hop.feeProportionalMillionths, 4, 'fee rate'),
    ...uint(hop.cltvExpiryDelta, 2, 'CLTV delta'),
  ]);
}

function intField(tag: number, value: number, name: string): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return field(tag, wordsOfInt(value));
}

/** Signs an invoice's digest for its node: 64 bytes of r and s (s low), then the recovery id, as BOLT11 writes them. */
export interface Bolt11Signer {
  publicKey: Uint8Array; // the node's key, compressed
  sign(digest: Uint8Array): Uint8Array;
}

/** noble's RFC 6979 signature with the secret key. */
function nobleSigner(secretKey: Uint8Array): Bolt11Signer {
  return {
    get publicKey() {
      return secp256k1.getPublicKey(secretKey, true);
    },
    sign(digest) {
      const recovered = secp256k1.sign(digest, secretKey, { prehash: false, format: 'recovered' });
      // noble writes the recovery id first; BOLT11 puts it after r and s.
      return Uint8Array.from([...recovered.subarray(1), recovered[0]]);
    },
  };
}

export function encodeBolt11(fields: Bolt11InvoiceFields, key: Uint8Array | Bolt11Signer): string {
  const signer = key instanceof Uint8Array ? nobleSigner(key) : key;
  if (!HASH.test(fields.paymentHash)) throw new Error('payment hash must be 32 bytes of hex');
  if (fields.paymentSecret !== undefined && !HASH.test(fields.paymentSecret)) {
    throw new Error('payment secret must be 32 bytes of hex');
  }
  if (fields.descriptionHash !== undefined && !HASH.test(fields.descriptionHash)) {
    throw new Error('description hash must be 32 bytes of hex');
  }
  if ((fields.description === undefined) === (fields.descriptionHash === undefined)) {
    throw new Error('an invoice needs exactly one of description and description hash');
  }
  if (fields.amountMsat !== undefined && fields.amountMsat <= 0n) throw new Error('invoice amount must be positive');
  if (!Number.isSafeInteger(fields.timestamp) || fields.timestamp < 0 || fields.timestamp >= 2 ** 35) {
    throw new Error('timestamp does not fit in 35 bits');
  }
  const features = fields.featureBits ?? (fields.paymentSecret === undefined ? [] : DEFAULT_FEATURE_BITS);
  if (fields.paymentSecret !== undefined && !features.includes(14) && !features.includes(15)) {
    throw new Error('an invoice with a payment secret must set feature bit 14 or 15 (payment_secret)');
  }

  const tagged: number[][] = [bytesField(TAG.paymentHash, hex.decode(fields.paymentHash))];
  if (fields.paymentSecret !== undefined) tagged.push(bytesField(TAG.paymentSecret, hex.decode(fields.paymentSecret)));
  if (fields.description !== undefined) tagged.push(bytesField(TAG.description, utf8ToBytes(fields.description)));
  if (fields.descriptionHash !== undefined) tagged.push(bytesField(TAG.descriptionHash, hex.decode(fields.descriptionHash)));
  if (fields.expiry !== undefined && fields.expiry !== DEFAULT_EXPIRY) tagged.push(intField(TAG.expiry, fields.expiry, 'expiry'));
  tagged.push(intField(TAG.minFinalCltvExpiry, fields.minFinalCltvExpiry ?? DEFAULT_MIN_FINAL_CLTV_EXPIRY, 'min final CLTV expiry'));
  for (const hint of fields.routeHints ?? []) {
    tagged.push(bytesField(TAG.routeHint, Uint8Array.from(hint.flatMap((hop) => [...hopBytes(hop)]))));
  }
  if (features.length > 0) tagged.push(field(TAG.features, wordsOfFeatureBits(features)));
  if (fields.includeNodeKey === true) tagged.push(bytesField(TAG.payeeNodeKey, signer.publicKey));

  const prefix = writePrefix(fields.network, fields.amountMsat);
  const dataWords = [...wordsOfInt(fields.timestamp, TIMESTAMP_WORDS), ...tagged.flat()];
  const signature = signer.sign(signedDigest(prefix, dataWords));
  return bech32.encode(prefix, [...dataWords, ...bech32.toWords(signature)], false);
}
