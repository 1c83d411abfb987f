// BOLT11's 5-bit words as the invoice reader and writer need them beside @scure/base's bech32: byte fields (a
// reader drops the bits short of a whole byte, whatever they are, where bech32.fromWords would reject them),
// big-endian integers of any number of words, and the digest the invoice's signature covers: sha256 over the
// prefix's bytes and the data words' bytes, the last byte padded with zero bits.
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export function bytesOfWords(words: readonly number[], padded = false): Uint8Array {
  const out = new Uint8Array(padded ? Math.ceil((words.length * 5) / 8) : Math.floor((words.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let i = 0;
  for (const word of words) {
    acc = ((acc << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[i++] = (acc >> bits) & 0xff;
    }
  }
  if (padded && bits > 0) out[i] = (acc << (8 - bits)) & 0xff;
  return out;
}

/** A big-endian number of any length, summed from its last word as BOLT11 readers in JavaScript do. */
export function intOfWords(words: readonly number[]): number {
  let total = 0;
  for (let k = 0; k < words.length; k++) total += words[words.length - 1 - k] * 32 ** k;
  return total;
}

/** The shortest big-endian words of a non-negative integer, at least `length` of them. */
export function wordsOfInt(value: number, length = 1): number[] {
  const words: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 32)) words.unshift(rest % 32);
  while (words.length < length) words.unshift(0);
  return words;
}

export function signedDigest(prefix: string, dataWords: readonly number[]): Uint8Array {
  return sha256(concatBytes(utf8ToBytes(prefix), bytesOfWords(dataWords, true)));
}
