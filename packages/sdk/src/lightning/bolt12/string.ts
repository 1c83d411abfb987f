// BOLT #12 strings: a human-readable part (lno offer, lnr invoice_request, lni invoice), "1", then the TLV stream
// in bech32's 5-bit alphabet with no checksum, all lower or all upper case, and optionally split by "+" followed by
// whitespace. @scure/base regroups 5-bit words to bytes (refusing excess or non-zero padding), but its bech32
// decoder insists on a checksum, so mapping characters and the "+" rule are our own.
import { bech32 } from '@scure/base';
import { Bolt12Error } from './tlv.ts';

export const HRP = { offer: 'lno', invoiceRequest: 'lnr', invoice: 'lni' } as const;
export type Bolt12Hrp = (typeof HRP)[keyof typeof HRP];

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const VALUE = new Map([...CHARSET].map((char, i) => [char, i]));

/** The human-readable part and the TLV bytes of a BOLT12 string. */
export function decodeBolt12String(text: string): { hrp: string; bytes: Uint8Array } {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) throw new Bolt12Error('mixed case');
  // Every piece between "+"s must be non-empty: a "+" stands between two bech32 characters.
  const pieces = text.toLowerCase().split(/\+[ \t\r\n]*/);
  if (pieces.some((piece) => piece === '')) throw new Bolt12Error('"+" must join two bech32 characters');
  const joined = pieces.join('');
  const separator = joined.indexOf('1');
  if (separator < 1) throw new Bolt12Error('no human-readable part');
  const hrp = joined.slice(0, separator);
  const words: number[] = [];
  for (const char of joined.slice(separator + 1)) {
    const value = VALUE.get(char);
    if (value === undefined) throw new Bolt12Error(`invalid bech32 character: ${JSON.stringify(char.slice(0, 4))}`);
    words.push(value);
  }
  try {
    return { hrp, bytes: bech32.fromWords(words) };
  } catch (error) {
    throw new Bolt12Error(`invalid bech32 padding: ${(error as Error).message}`);
  }
}

export function encodeBolt12String(hrp: Bolt12Hrp, bytes: Uint8Array): string {
  return `${hrp}1${bech32
    .toWords(bytes)
    .map((word) => CHARSET[word])
    .join('')}`;
}
