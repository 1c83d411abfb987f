// Bitcoin block and transaction wire format, read straight from `getblock <hash> 0` / `getrawtransaction`.
// The watcher reads raw bytes rather than verbose JSON: one compact answer per block, and only the
// fields it needs (output scripts, spent outpoints) become strings; witnesses and the transaction hex
// are cut out only for the few transactions that match a watched script or outpoint.
import { createHash } from 'node:crypto';

export interface RawInput {
  /** txid of the spent output, in internal byte order (the reverse of how txids are displayed). */
  prevTxidInternal: string;
  prevVout: number;
  /** Offset of this input's witness stack in the block/tx buffer, or -1 without witness. */
  witnessOffset: number;
}

export interface RawOutput {
  value: bigint; // satoshi
  scriptHex: string;
}

export interface RawTransaction {
  txid: string; // display byte order
  inputs: RawInput[];
  outputs: RawOutput[];
  isCoinbase: boolean;
  /** Where the serialized transaction sits in `buffer`, for cutting out its hex on demand. */
  buffer: Buffer;
  start: number;
  end: number;
}

export interface RawBlock {
  hash: string;
  previousHash: string;
  transactions: RawTransaction[];
}

class Reader {
  offset: number;
  constructor(
    readonly buffer: Buffer,
    offset = 0,
  ) {
    this.offset = offset;
  }

  need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new Error('truncated transaction data');
  }

  u8(): number {
    this.need(1);
    return this.buffer[this.offset++];
  }

  u32(): number {
    this.need(4);
    const value = this.buffer.readUInt32LE(this.offset);
    this.offset += 4;
    return value;
  }

  u64(): bigint {
    this.need(8);
    const value = this.buffer.readBigUInt64LE(this.offset);
    this.offset += 8;
    return value;
  }

  varint(): number {
    const first = this.u8();
    if (first < 0xfd) return first;
    const width = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    this.need(width);
    const value =
      width === 2
        ? this.buffer.readUInt16LE(this.offset)
        : width === 4
          ? this.buffer.readUInt32LE(this.offset)
          : Number(this.buffer.readBigUInt64LE(this.offset));
    this.offset += width;
    return value;
  }

  skip(bytes: number): void {
    this.need(bytes);
    this.offset += bytes;
  }

  hex(bytes: number): string {
    this.need(bytes);
    const text = this.buffer.toString('hex', this.offset, this.offset + bytes);
    this.offset += bytes;
    return text;
  }
}

const COINBASE_PREV = '0'.repeat(64);

function sha256d(...parts: Buffer[]): Buffer {
  const first = createHash('sha256');
  for (const part of parts) first.update(part);
  return createHash('sha256').update(first.digest()).digest();
}

const reversedHex = (bytes: Buffer): string => Buffer.from(bytes).reverse().toString('hex');

function readTransaction(reader: Reader): RawTransaction {
  const { buffer } = reader;
  const start = reader.offset;
  reader.skip(4); // version
  // BIP144: a zero input count followed by a non-zero flag marks the witness serialization.
  const segwit = buffer[reader.offset] === 0 && buffer[reader.offset + 1] !== 0;
  if (segwit) reader.skip(2);
  const bodyStart = reader.offset;

  const inputs: RawInput[] = [];
  const inputCount = reader.varint();
  for (let i = 0; i < inputCount; i++) {
    const prevTxidInternal = reader.hex(32);
    const prevVout = reader.u32();
    reader.skip(reader.varint()); // scriptSig
    reader.skip(4); // sequence
    inputs.push({ prevTxidInternal, prevVout, witnessOffset: -1 });
  }
  const outputs: RawOutput[] = [];
  const outputCount = reader.varint();
  for (let i = 0; i < outputCount; i++) {
    const value = reader.u64();
    outputs.push({ value, scriptHex: reader.hex(reader.varint()) });
  }
  const bodyEnd = reader.offset;

  if (segwit) {
    for (const input of inputs) {
      const stackOffset = reader.offset;
      const items = reader.varint();
      if (items > 0) input.witnessOffset = stackOffset;
      for (let j = 0; j < items; j++) reader.skip(reader.varint());
    }
  }
  reader.skip(4); // locktime
  const end = reader.offset;

  const hash = segwit
    ? sha256d(buffer.subarray(start, start + 4), buffer.subarray(bodyStart, bodyEnd), buffer.subarray(end - 4, end))
    : sha256d(buffer.subarray(start, end));
  const isCoinbase = inputs.length === 1 && inputs[0].prevTxidInternal === COINBASE_PREV && inputs[0].prevVout === 0xffffffff;
  return { txid: reversedHex(hash), inputs, outputs, isCoinbase, buffer, start, end };
}

export function parseTransaction(hex: string): RawTransaction {
  const reader = new Reader(Buffer.from(hex, 'hex'));
  const tx = readTransaction(reader);
  if (reader.offset !== reader.buffer.length) throw new Error('trailing bytes after transaction');
  return tx;
}

export function parseBlock(hex: string): RawBlock {
  const buffer = Buffer.from(hex, 'hex');
  if (buffer.length < 81) throw new Error('truncated block');
  const reader = new Reader(buffer, 80);
  const count = reader.varint();
  const transactions: RawTransaction[] = [];
  for (let i = 0; i < count; i++) transactions.push(readTransaction(reader));
  return {
    hash: reversedHex(sha256d(buffer.subarray(0, 80))),
    previousHash: reversedHex(buffer.subarray(4, 36)),
    transactions,
  };
}

export const transactionHex = (tx: RawTransaction): string => tx.buffer.toString('hex', tx.start, tx.end);

/** The witness stack of one input as hex items (empty for inputs without witness). */
export function inputWitness(tx: RawTransaction, inputIndex: number): string[] {
  const offset = tx.inputs[inputIndex].witnessOffset;
  if (offset < 0) return [];
  const reader = new Reader(tx.buffer, offset);
  const items: string[] = [];
  const count = reader.varint();
  for (let i = 0; i < count; i++) items.push(reader.hex(reader.varint()));
  return items;
}

/** Display-order txid → the internal byte order used by inputs on the wire. */
