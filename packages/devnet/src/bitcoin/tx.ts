// Transactions in Bitcoin's wire format (BIP144 witness serialization): parse once, keep the raw bytes,
// and derive txid, wtxid, size, weight and vsize exactly as Core does.
import { DecodeError, Reader, Writer, concat, hashToHex, sha256d } from './bytes.ts';

export interface TxInput {
  prevHash: Uint8Array; // 32 bytes, internal byte order
  prevTxid: string; // display order
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness: Uint8Array[];
}

export interface TxOutput {
  value: bigint; // satoshi
  script: Uint8Array;
}

export interface Tx {
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
  txid: string;
  wtxid: string;
  raw: Uint8Array; // with witness when it has one
  size: number; // raw length
  strippedSize: number; // without witness
  weight: number;
  vsize: number;
  hasWitness: boolean;
}

export interface TxParts {
  version: number;
  inputs: Omit<TxInput, 'prevTxid'>[];
  outputs: TxOutput[];
  locktime: number;
}

export const SEQUENCE_FINAL = 0xffffffff;
export const NULL_HASH = new Uint8Array(32);

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export function isCoinbase(tx: Pick<Tx, 'inputs'>): boolean {
  if (tx.inputs.length !== 1) return false;
  const input = tx.inputs[0];
  return input.vout === 0xffffffff && input.prevHash.every((b) => b === 0);
}

export const isNullPrevout = (input: TxInput): boolean =>
  input.vout === 0xffffffff && input.prevHash.every((b) => b === 0);

function readInputs(reader: Reader, count: number): TxInput[] {
  const inputs: TxInput[] = [];
  for (let i = 0; i < count; i++) {
    const prevHash = reader.bytesN(32);
    inputs.push({
      prevHash,
      prevTxid: hashToHex(prevHash),
      vout: reader.u32(),
      scriptSig: reader.varBytes(),
      sequence: reader.u32(),
      witness: [],
    });
  }
  return inputs;
}

function readOutputs(reader: Reader): TxOutput[] {
  const count = reader.varint();
  const outputs: TxOutput[] = [];
  for (let i = 0; i < count; i++) outputs.push({ value: reader.u64(), script: reader.varBytes() });
  return outputs;
}

/** Reads one transaction at the reader's position (blocks hold many back to back). */
export function readTx(reader: Reader): Tx {
  const start = reader.offset;
  const version = reader.i32();
  let inputCount = reader.varint();
  let flags = 0;
  let countStart = start + 4;
  if (inputCount === 0) {
    flags = reader.u8();
    if (flags === 0) throw new DecodeError('empty transaction');
    countStart = reader.offset;
    inputCount = reader.varint();
  }
  const inputs = readInputs(reader, inputCount);
  const outputs = readOutputs(reader);
  const witnessStart = reader.offset;
  if (flags & 1) {
    flags ^= 1;
    let any = false;
    for (const input of inputs) {
      const items = reader.varint();
      for (let i = 0; i < items; i++) input.witness.push(reader.varBytes());
      if (items > 0) any = true;
    }
    if (!any) throw new DecodeError('superfluous witness record');
  }
  if (flags !== 0) throw new DecodeError('unknown transaction optional data');
  const witnessEnd = reader.offset;
  const locktime = reader.u32();
  const raw = reader.bytes.slice(start, reader.offset);
  const hasWitness = witnessEnd !== witnessStart;
  const stripped = hasWitness
    ? concat([
        raw.subarray(0, 4),
        raw.subarray(countStart - start, witnessStart - start),
        raw.subarray(raw.length - 4),
      ])
    : raw;
  return finishTx(version, inputs, outputs, locktime, raw, stripped, hasWitness);
}

function finishTx(
  version: number,
  inputs: TxInput[],
  outputs: TxOutput[],
  locktime: number,
  raw: Uint8Array,
  stripped: Uint8Array,
  hasWitness: boolean,
): Tx {
  const txid = hashToHex(sha256d(stripped));
  const wtxid = hasWitness ? hashToHex(sha256d(raw)) : txid;
  const weight = stripped.length * 3 + raw.length;
  return {
    version,
    inputs,
    outputs,
    locktime,
    txid,
    wtxid,
    raw,
    size: raw.length,
    strippedSize: stripped.length,
    weight,
    vsize: Math.ceil(weight / 4),
    hasWitness,
  };
}

/** Parses a whole transaction; trailing bytes are an error, as in Core's DecodeHexTx. */
export function parseTx(bytes: Uint8Array): Tx {
  const reader = new Reader(bytes);
  const tx = readTx(reader);
  if (reader.remaining !== 0) throw new DecodeError('trailing data after transaction');
  return tx;
}

export function serializeTx(parts: TxParts, withWitness = true): Uint8Array {
  const hasWitness = withWitness && parts.inputs.some((input) => input.witness.length > 0);
  const writer = new Writer().i32(parts.version);
  if (hasWitness) writer.u8(0).u8(1);
  writer.varint(parts.inputs.length);
  for (const input of parts.inputs) {
    writer.bytes(input.prevHash).u32(input.vout).varBytes(input.scriptSig).u32(input.sequence);
  }
  writer.varint(parts.outputs.length);
  for (const output of parts.outputs) writer.u64(output.value).varBytes(output.script);
  if (hasWitness) {
    for (const input of parts.inputs) {
      writer.varint(input.witness.length);
      for (const item of input.witness) writer.varBytes(item);
    }
  }
  writer.u32(parts.locktime);
  return writer.finish();
}

/** Builds a Tx from its parts (used for coinbases the node creates itself). */
export function buildTx(parts: TxParts): Tx {
  const raw = serializeTx(parts, true);
  const stripped = serializeTx(parts, false);
  const inputs = parts.inputs.map((input) => ({ ...input, prevTxid: hashToHex(input.prevHash) }));
  return finishTx(parts.version, inputs, parts.outputs, parts.locktime, raw, stripped, raw.length !== stripped.length);
}
