// BOLT #1 TLV streams as BOLT #12 uses them: BigSize types and lengths (minimally encoded), records in strictly
// ascending type order, truncated integers (tu64/tu32) without leading zero bytes. No library on the npm registry
// reads Lightning's TLV streams, so this small codec is our own; records keep their raw bytes because the Merkle
// signature hashes whole records and an invoice must mirror its request's records byte for byte.

export class Bolt12Error extends Error {}

export interface TlvRecord {
  type: bigint;
  value: Uint8Array;
  /** The whole record as encoded: type, length and value. */
  raw: Uint8Array;
}

export function readBigSize(bytes: Uint8Array, offset: number): { value: bigint; next: number } {
  if (offset >= bytes.length) throw new Bolt12Error('truncated BigSize');
  const first = bytes[offset];
  const width = first === 0xfd ? 2 : first === 0xfe ? 4 : first === 0xff ? 8 : 0;
  if (width === 0) return { value: BigInt(first), next: offset + 1 };
  if (offset + 1 + width > bytes.length) throw new Bolt12Error('truncated BigSize');
  let value = 0n;
  for (let i = 0; i < width; i++) value = (value << 8n) | BigInt(bytes[offset + 1 + i]);
  const least = width === 2 ? 0xfdn : width === 4 ? 0x10000n : 0x100000000n;
  if (value < least) throw new Bolt12Error('BigSize not minimally encoded');
  return { value, next: offset + 1 + width };
}

export function writeBigSize(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new Bolt12Error(`BigSize out of range: ${value}`);
  if (value < 0xfdn) return Uint8Array.of(Number(value));
  const [marker, width] = value < 0x10000n ? [0xfd, 2] : value < 0x100000000n ? [0xfe, 4] : [0xff, 8];
  const out = new Uint8Array(1 + width);
  out[0] = marker;
  for (let i = 0; i < width; i++) out[width - i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
}

/** Reads a whole stream; a truncated record, a repeated type or types out of order make it invalid. */
export function parseTlvStream(bytes: Uint8Array): TlvRecord[] {
  const records: TlvRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const start = offset;
    const type = readBigSize(bytes, offset);
    const length = readBigSize(bytes, type.next);
    const end = length.next + Number(length.value);
    if (length.value > BigInt(bytes.length) || end > bytes.length) throw new Bolt12Error(`truncated TLV record of type ${type.value}`);
    const previous = records.at(-1);
    if (previous && type.value <= previous.type) throw new Bolt12Error(`TLV records out of order: ${type.value} after ${previous.type}`);
    records.push({ type: type.value, value: bytes.subarray(length.next, end), raw: bytes.subarray(start, end) });
    offset = end;
  }
  return records;
}

export function encodeRecord(type: bigint, value: Uint8Array): Uint8Array {
  return concat([writeBigSize(type), writeBigSize(BigInt(value.length)), value]);
}

/** Encodes records given in any order as one stream sorted by type; a type given twice is refused. */
export function encodeTlvStream(records: { type: bigint; value: Uint8Array }[]): Uint8Array {
  const sorted = [...records].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  sorted.forEach((record, i) => {
    if (i > 0 && sorted[i - 1].type === record.type) throw new Bolt12Error(`TLV type ${record.type} given twice`);
  });
  return concat(sorted.map((record) => encodeRecord(record.type, record.value)));
}

/** A truncated unsigned integer of at most `maxBytes` bytes, refusing leading zero bytes. */
export function readTruncated(value: Uint8Array, maxBytes: 8 | 4, name: string): bigint {
  if (value.length > maxBytes) throw new Bolt12Error(`${name}: too long for a tu${maxBytes * 8}`);
  if (value.length > 0 && value[0] === 0) throw new Bolt12Error(`${name}: not minimally encoded`);
  let out = 0n;
  for (const byte of value) out = (out << 8n) | BigInt(byte);
  return out;
}

export function writeTruncated(value: bigint, maxBytes: 8 | 4 = 8): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(8 * maxBytes)) throw new Bolt12Error(`value out of range for a tu${maxBytes * 8}: ${value}`);
  const bytes: number[] = [];
  for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
  return Uint8Array.from(bytes);
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
