// Core Lightning's JSON answers read without losing digits: lightningd writes 64-bit integers (listsendpays'
// `groupid`, every `created_index`/`updated_index`, msat amounts) as bare JSON numbers, and JSON.parse rounds any
// above 2^53. Node 20 (Ferry's minimum) has no source text in JSON.parse's reviver, so the kept library lossless-json
// reads the number's text: integers that fit a double stay numbers, larger ones become bigint, the rest (fractions)
// numbers. Shared by every CLN transport (clnrest here, lightningd's unix socket beside it).
import { isInteger, isSafeNumber, parse } from 'lossless-json';

const numberOf = (text: string): number | bigint => (isSafeNumber(text) || !isInteger(text) ? Number(text) : BigInt(text));

/** JSON text from lightningd or clnrest; integers past Number.MAX_SAFE_INTEGER come back as bigint. */
export function parseClnJson(text: string): unknown {
  return parse(text, undefined, numberOf);
}
