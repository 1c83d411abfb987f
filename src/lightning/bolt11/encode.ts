// Writes and signs a BOLT11 invoice with a node's secret key.
import { bech32 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { encodeAmount } from './amount.ts';
import { DEFAULT_EXPIRY, DEFAULT_MIN_FINAL_CLTV_EXPIRY, TAG, TIMESTAMP_WORDS } from './tags.ts';
import type { Bolt11InvoiceFields, RouteHintHop } from './types.ts';
import { bytesToWords, intToWords, wordsToPaddedBytes } from './words.ts';

// What LND puts in its invoices: var_onion_optin and payment_secret required, basic_mpp optional.
export const DEFAULT_FEATURE_BITS = [8, 14, 17];

function field(tag: number, data: number[]): number[] {
  if (data.length >= 1024) throw new Error('invoice field too long');
  return [tag, data.length >> 5, data.length & 31, ...data];
}

function featureWords(bits: number[]): number[] {
  const highest = Math.max(...bits);
  const words = new Array<number>(Math.floor(highest / 5) + 1).fill(0);
  for (const bit of bits) words[words.length - 1 - Math.floor(bit / 5)] |= 1 << bit % 5;
  return words;
}

function routeHintBytes(hops: RouteHintHop[]): Uint8Array {
  const out = new Uint8Array(hops.length * 51);
  const view = new DataView(out.buffer);
  hops.forEach((hop, i) => {
    const o = i * 51;
    out.set(hexToBytes(hop.pubkey), o);
    out.set(hexToBytes(hop.shortChannelId), o + 33);
    view.setUint32(o + 41, hop.feeBaseMsat);
    view.setUint32(o + 45, hop.feeProportionalMillionths);
    view.setUint16(o + 49, hop.cltvExpiryDelta);
  });
  return out;
}

export function encodeBolt11(fields: Bolt11InvoiceFields, secretKey: Uint8Array): string {
  if (!/^[0-9a-f]{64}$/.test(fields.paymentHash)) throw new Error('payment hash must be 32 bytes of hex');
  if ((fields.description === undefined) === (fields.descriptionHash === undefined)) {
    throw new Error('an invoice needs exactly one of description and description hash');
  }
  const prefix = 'ln' + fields.network + (fields.amountMsat === undefined ? '' : encodeAmount(fields.amountMsat));
  const words: number[] = intToWords(fields.timestamp, TIMESTAMP_WORDS);
  if (words.length !== TIMESTAMP_WORDS) throw new Error('timestamp does not fit in 35 bits');
  words.push(...field(TAG.paymentHash, bytesToWords(hexToBytes(fields.paymentHash))));
  if (fields.paymentSecret !== undefined) {
    words.push(...field(TAG.paymentSecret, bytesToWords(hexToBytes(fields.paymentSecret))));
  }
  if (fields.description !== undefined) {
    words.push(...field(TAG.description, bytesToWords(utf8ToBytes(fields.description))));
  }
  if (fields.descriptionHash !== undefined) {
    words.push(...field(TAG.descriptionHash, bytesToWords(hexToBytes(fields.descriptionHash))));
  }
  if (fields.expiry !== undefined && fields.expiry !== DEFAULT_EXPIRY) {
    words.push(...field(TAG.expiry, intToWords(fields.expiry)));
  }
  words.push(...field(TAG.minFinalCltvExpiry, intToWords(fields.minFinalCltvExpiry ?? DEFAULT_MIN_FINAL_CLTV_EXPIRY)));
  for (const hint of fields.routeHints ?? []) words.push(...field(TAG.routeHint, bytesToWords(routeHintBytes(hint))));
  const features = fields.featureBits ?? (fields.paymentSecret === undefined ? [] : DEFAULT_FEATURE_BITS);
  if (features.length > 0) words.push(...field(TAG.features, featureWords(features)));
  if (fields.includeNodeKey === true) {
    words.push(...field(TAG.payeeNodeKey, bytesToWords(secp256k1.getPublicKey(secretKey, true))));
  }

  const prefixBytes = utf8ToBytes(prefix);
  const body = wordsToPaddedBytes(words);
  const signed = new Uint8Array(prefixBytes.length + body.length);
  signed.set(prefixBytes);
  signed.set(body, prefixBytes.length);
  // noble's "recovered" format puts the recovery id first; BOLT11 wants it last.
  const recovered = secp256k1.sign(sha256(signed), secretKey, { prehash: false, format: 'recovered' });
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1), 0);
  signature[64] = recovered[0];
  return bech32.encode(prefix, [...words, ...bytesToWords(signature)], false);
}
