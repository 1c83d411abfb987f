// Reads a BOLT11 invoice and checks its signature, following the reader requirements of BOLT #11.
import { bech32 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { parseHrp } from './amount.ts';
import {
  DEFAULT_EXPIRY,
  DEFAULT_MIN_FINAL_CLTV_EXPIRY,
  HIGHEST_KNOWN_FEATURE,
  SIGNATURE_WORDS,
  TAG,
  TIMESTAMP_WORDS,
} from './tags.ts';
import type { Bolt11Invoice, FallbackAddress, RouteHintHop } from './types.ts';
import { wordsToBytes, wordsToInt, wordsToPaddedBytes } from './words.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function featureBitsFromWords(words: ArrayLike<number>): number[] {
  const bits: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[words.length - 1 - i];
    for (let b = 0; b < 5; b++) if ((word >> b) & 1) bits.push(i * 5 + b);
  }
  return bits;
}

function readRouteHint(bytes: Uint8Array): RouteHintHop[] {
  const hops: RouteHintHop[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let o = 0; o + 51 <= bytes.length; o += 51) {
    hops.push({
      pubkey: bytesToHex(bytes.subarray(o, o + 33)),
      shortChannelId: bytesToHex(bytes.subarray(o + 33, o + 41)),
      feeBaseMsat: view.getUint32(o + 41),
      feeProportionalMillionths: view.getUint32(o + 45),
      cltvExpiryDelta: view.getUint16(o + 49),
    });
  }
  return hops;
}

export function decodeBolt11(paymentRequest: string): Bolt11Invoice {
  const text = paymentRequest.trim().replace(/^lightning:/i, '');
  let decoded;
  try {
    decoded = bech32.decode(text as `${string}1${string}`, false);
  } catch (err) {
    throw new Error(`invalid invoice encoding: ${(err as Error).message}`);
  }
  const { network, amountMsat } = parseHrp(decoded.prefix);
  const words = decoded.words;
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) throw new Error('invalid invoice: too short');
  const dataWords = words.slice(0, words.length - SIGNATURE_WORDS);
  const sigBytes = wordsToBytes(words.slice(words.length - SIGNATURE_WORDS));
  const recoveryId = sigBytes[64];
  if (recoveryId > 3) throw new Error('invalid invoice signature: bad recovery id');

  const invoice: Bolt11Invoice = {
    paymentRequest: text.toLowerCase(),
    network,
    amountMsat,
    timestamp: wordsToInt(dataWords.slice(0, TIMESTAMP_WORDS)),
    paymentHash: '',
    paymentSecret: undefined,
    description: undefined,
    descriptionHash: undefined,
    expiry: DEFAULT_EXPIRY,
    minFinalCltvExpiry: DEFAULT_MIN_FINAL_CLTV_EXPIRY,
    payeeNodeKey: '',
    featureBits: [],
    routeHints: [],
    fallbackAddresses: [],
    signature: bytesToHex(sigBytes.subarray(0, 64)),
    recoveryId,
  };
  // The first field of each kind with the expected length wins; others are skipped as the spec requires.
  const seen = new Set<number>();
  let nodeKey: string | undefined;
  let pos = TIMESTAMP_WORDS;
  while (pos < dataWords.length) {
    if (pos + 3 > dataWords.length) throw new Error('invalid invoice: truncated field');
    const tag = dataWords[pos];
    const length = dataWords[pos + 1] * 32 + dataWords[pos + 2];
    const data = dataWords.slice(pos + 3, pos + 3 + length);
    if (data.length !== length) throw new Error('invalid invoice: truncated field');
    pos += 3 + length;
    const first = !seen.has(tag);
    switch (tag) {
      case TAG.paymentHash:
        if (length === 52 && first) invoice.paymentHash = bytesToHex(wordsToBytes(data));
        else continue;
        break;
      case TAG.paymentSecret:
        if (length === 52 && first) invoice.paymentSecret = bytesToHex(wordsToBytes(data));
        else continue;
        break;
      case TAG.descriptionHash:
        if (length === 52 && first) invoice.descriptionHash = bytesToHex(wordsToBytes(data));
        else continue;
        break;
      case TAG.payeeNodeKey:
        if (length === 53 && first) nodeKey = bytesToHex(wordsToBytes(data));
        else continue;
        break;
      case TAG.description:
        if (!first) continue;
        try {
          invoice.description = utf8.decode(wordsToBytes(data));
        } catch {
          throw new Error('invalid invoice: description is not UTF-8');
        }
        break;
      case TAG.expiry:
        if (first) invoice.expiry = wordsToInt(data);
        break;
      case TAG.minFinalCltvExpiry:
        if (first) invoice.minFinalCltvExpiry = wordsToInt(data);
        break;
      case TAG.features:
        if (!first) continue;
        invoice.featureBits = featureBitsFromWords(data);
        break;
      case TAG.routeHint:
        invoice.routeHints.push(readRouteHint(wordsToBytes(data)));
        break;
      case TAG.fallback: {
        if (length < 1 || data[0] > 18) continue; // unknown versions are skipped
        const fallback: FallbackAddress = { version: data[0], program: bytesToHex(wordsToBytes(data.slice(1))) };
        invoice.fallbackAddresses.push(fallback);
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

  const prefixBytes = utf8ToBytes(decoded.prefix);
  const body = wordsToPaddedBytes(dataWords);
  const signed = new Uint8Array(prefixBytes.length + body.length);
  signed.set(prefixBytes);
  signed.set(body, prefixBytes.length);
  const digest = sha256(signed);
  const compact = sigBytes.subarray(0, 64);
  if (nodeKey !== undefined) {
    if (!secp256k1.verify(compact, digest, hexBytes(nodeKey), { prehash: false, lowS: false })) {
      throw new Error('invalid invoice signature');
    }
    invoice.payeeNodeKey = nodeKey;
  } else {
    const recovered = new Uint8Array(65);
    recovered[0] = recoveryId;
    recovered.set(compact, 1);
    try {
      invoice.payeeNodeKey = bytesToHex(secp256k1.recoverPublicKey(recovered, digest, { prehash: false }));
    } catch {
      throw new Error('invalid invoice signature: not recoverable');
    }
  }
  return invoice;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function invoiceExpiresAt(invoice: Pick<Bolt11Invoice, 'timestamp' | 'expiry'>): number {
  return invoice.timestamp + invoice.expiry;
}
