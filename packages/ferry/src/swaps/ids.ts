// Swap ids: 12 characters of the reference alphabet (no 0, O, I, l, i, j look-alikes), from the CSPRNG.
import { randomBytes } from 'node:crypto';

export const SWAP_ID_ALPHABET = 'ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghkmnopqrstuvwxyz123456789';
export const SWAP_ID_LENGTH = 12;

// Bytes at or above the largest multiple of the alphabet size are skipped, so every character is equally likely.
const LIMIT = 256 - (256 % SWAP_ID_ALPHABET.length);

export function generateSwapId(length = SWAP_ID_LENGTH): string {
  let id = '';
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= LIMIT) continue;
      id += SWAP_ID_ALPHABET[byte % SWAP_ID_ALPHABET.length];
      if (id.length === length) break;
    }
  }
  return id;
}

export function isSwapId(value: string): boolean {
  return value.length > 0 && [...value].every((c) => SWAP_ID_ALPHABET.includes(c));
}
