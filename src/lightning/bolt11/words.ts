// BOLT11 packs everything into bech32's 5-bit words; these helpers move between words, bytes and integers.

// Words to bytes, dropping the trailing bits that do not fill a byte (BOLT11 pads fields with zeros).
export function wordsToBytes(words: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(Math.floor((words.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let i = 0;
  for (let w = 0; w < words.length; w++) {
    acc = ((acc << 5) | words[w]) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      if (i < out.length) out[i++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

// Words to bytes, padding the last byte with zero bits: the form the invoice signature covers.
export function wordsToPaddedBytes(words: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(Math.ceil((words.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let i = 0;
  for (let w = 0; w < words.length; w++) {
    acc = ((acc << 5) | words[w]) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[i++] = (acc >> bits) & 0xff;
    }
  }
  if (bits > 0) out[i] = (acc << (8 - bits)) & 0xff;
  return out;
}

export function bytesToWords(bytes: ArrayLike<number>): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let b = 0; b < bytes.length; b++) {
    acc = ((acc << 8) | bytes[b]) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

export function wordsToInt(words: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) n = n * 32 + words[i];
  return n;
}

// Big-endian, shortest form (BOLT11 asks writers for the minimum data_length).
export function intToWords(value: number, minLength = 0): number[] {
  const out: number[] = [];
  let n = value;
  while (n > 0) {
    out.unshift(n % 32);
    n = Math.floor(n / 32);
  }
  while (out.length < minLength) out.unshift(0);
  return out;
}
