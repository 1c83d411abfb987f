// Byte helpers shared by the node: hex, hashing (node:crypto is an order of magnitude faster than pure JS for
// the many txids a 2,000-transaction block needs), and a cursor reader / growable writer for Bitcoin's wire format.
import { createHash } from 'node:crypto';

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error('invalid hex');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export const isHex = (value: string): boolean => value.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(value);

export const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

export const sha256d = (data: Uint8Array): Uint8Array => sha256(sha256(data));

/** Bitcoin shows 256-bit hashes (txid, block hash) byte-reversed. */
export const hashToHex = (hash: Uint8Array): string => toHex(Uint8Array.from(hash).reverse());
export const hexToHash = (hex: string): Uint8Array => fromHex(hex).reverse();

export function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class DecodeError extends Error {}

export class Reader {
  offset = 0;
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number): void {
    if (n < 0 || this.offset + n > this.bytes.length) throw new DecodeError('unexpected end of data');
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++];
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  i32(): number {
    this.need(4);
    const value = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return value;
  }

  u64(): bigint {
    this.need(8);
    const value = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return value;
  }

  varint(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      this.need(2);
      const value = this.view.getUint16(this.offset, true);
      this.offset += 2;
      if (value < 0xfd) throw new DecodeError('non-canonical CompactSize');
      return value;
    }
    if (first === 0xfe) {
      const value = this.u32();
      if (value < 0x10000) throw new DecodeError('non-canonical CompactSize');
      return value;
    }
    const value = this.u64();
    if (value < 0x100000000n) throw new DecodeError('non-canonical CompactSize');
    // Core refuses sizes above MAX_SIZE (32 MiB) anyway.
    throw new DecodeError('CompactSize too large');
  }

  bytesN(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  varBytes(): Uint8Array {
    return this.bytesN(this.varint());
  }
}

export class Writer {
  private buffer = new Uint8Array(256);
  private view = new DataView(this.buffer.buffer);
  length = 0;

  private grow(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  u8(value: number): this {
    this.grow(1);
    this.buffer[this.length++] = value;
    return this;
  }

  u16(value: number): this {
    this.grow(2);
    this.view.setUint16(this.length, value, true);
    this.length += 2;
    return this;
  }

  u32(value: number): this {
    this.grow(4);
    this.view.setUint32(this.length, value >>> 0, true);
    this.length += 4;
    return this;
  }

  i32(value: number): this {
    this.grow(4);
    this.view.setInt32(this.length, value | 0, true);
    this.length += 4;
    return this;
  }

  u64(value: bigint): this {
    this.grow(8);
    this.view.setBigUint64(this.length, value, true);
    this.length += 8;
    return this;
  }

  varint(value: number): this {
    if (value < 0xfd) return this.u8(value);
    if (value <= 0xffff) return this.u8(0xfd).u16(value);
    return this.u8(0xfe).u32(value);
  }

  bytes(data: Uint8Array): this {
    this.grow(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
    return this;
  }

  varBytes(data: Uint8Array): this {
    return this.varint(data.length).bytes(data);
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}
