// Blocks: 80-byte headers, wire format, merkle roots, the BIP141 witness commitment, BIP34 coinbases,
// regtest proof of work and the regtest genesis block (byte-identical to Bitcoin Core's).
import { DecodeError, Reader, Writer, concat, fromHex, hashToHex, hexToHash, sha256d } from './bytes.ts';
import { REGTEST_BITS } from './consensus.ts';
import { NULL_HASH, buildTx, readTx, type Tx, type TxOutput } from './tx.ts';

export interface BlockHeader {
  version: number;
  prevHash: string; // display order
  merkleRoot: string; // display order
  time: number;
  bits: number;
  nonce: number;
}

export interface Block {
  header: BlockHeader;
  hash: string;
  txs: Tx[];
  raw: Uint8Array;
  size: number;
  strippedSize: number;
  weight: number;
}

export function serializeHeader(header: BlockHeader): Uint8Array {
  return new Writer()
    .i32(header.version)
    .bytes(hexToHash(header.prevHash))
    .bytes(hexToHash(header.merkleRoot))
    .u32(header.time)
    .u32(header.bits)
    .u32(header.nonce)
    .finish();
}

export const headerHash = (header: Uint8Array): string => hashToHex(sha256d(header));

function readHeader(reader: Reader): BlockHeader {
  return {
    version: reader.i32(),
    prevHash: hashToHex(reader.bytesN(32)),
    merkleRoot: hashToHex(reader.bytesN(32)),
    time: reader.u32(),
    bits: reader.u32(),
    nonce: reader.u32(),
  };
}

function assemble(header: BlockHeader, txs: Tx[], raw: Uint8Array): Block {
  let strippedSize = raw.length;
  for (const tx of txs) strippedSize -= tx.size - tx.strippedSize;
  return {
    header,
    hash: headerHash(raw.subarray(0, 80)),
    txs,
    raw,
    size: raw.length,
    strippedSize,
    weight: strippedSize * 3 + raw.length,
  };
}

export function parseBlock(raw: Uint8Array): Block {
  const reader = new Reader(raw);
  const header = readHeader(reader);
  const count = reader.varint();
  const txs: Tx[] = [];
  for (let i = 0; i < count; i++) txs.push(readTx(reader));
  if (reader.remaining !== 0) throw new DecodeError('trailing data after block');
  return assemble(header, txs, raw);
}

export function serializeBlock(header: BlockHeader, txs: Tx[]): Uint8Array {
  const writer = new Writer().bytes(serializeHeader(header)).varint(txs.length);
  for (const tx of txs) writer.bytes(tx.raw);
  return writer.finish();
}

/** Merkle root of internal-order hashes; Bitcoin duplicates the last hash of an odd level. */
export function merkleRoot(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(sha256d(concat([level[i], level[i + 1] ?? level[i]])));
    }
    level = next;
  }
  return level[0];
}

const WITNESS_COMMITMENT_HEADER = Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);

/** BIP141: sha256d(witness merkle root || reserved value), with the coinbase's wtxid counted as zero. */
export function witnessCommitmentScript(txs: Tx[], reservedValue: Uint8Array): Uint8Array {
  const wtxids = txs.map((tx, i) => (i === 0 ? new Uint8Array(32) : hexToHash(tx.wtxid)));
  const commitment = sha256d(concat([merkleRoot(wtxids), reservedValue]));
  return concat([WITNESS_COMMITMENT_HEADER, commitment]);
}

/** Script number push as `CScript() << n` writes it (BIP34 height). */
export function scriptNumPush(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  const bytes: number[] = [];
  let value = n;
  while (value > 0) {
    bytes.push(value & 0xff);
    value = Math.floor(value / 256);
  }
  if (bytes[bytes.length - 1] & 0x80) bytes.push(0);
  return Uint8Array.of(bytes.length, ...bytes);
}

/** A coinbase as Core's miner writes it: height + OP_0 in the scriptSig, a 32-byte zero witness reserved value. */
export function buildCoinbase(height: number, payout: TxOutput, others: Tx[]): Tx {
  const reserved = new Uint8Array(32);
  const input = {
    prevHash: NULL_HASH,
    vout: 0xffffffff,
    scriptSig: concat([scriptNumPush(height), Uint8Array.of(0x00)]),
    sequence: 0xffffffff,
    witness: [reserved],
  };
  const draft = buildTx({ version: 2, inputs: [input], outputs: [payout], locktime: 0 });
  const commitment = witnessCommitmentScript([draft, ...others], reserved);
  return buildTx({ version: 2, inputs: [input], outputs: [payout, { value: 0n, script: commitment }], locktime: 0 });
}

export function bitsToTarget(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** Work of one block: 2^256 / (target + 1), as Core's GetBlockProof. */
export const blockWork = (bits: number): bigint => (1n << 256n) / (bitsToTarget(bits) + 1n);

/** Difficulty relative to the minimum (0x1d00ffff), as Core's GetDifficulty prints it. */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

/** Finds a nonce meeting the (regtest-easy) target: about two hashes on average. */
export function mineHeader(header: Omit<BlockHeader, 'nonce'>): { header: BlockHeader; bytes: Uint8Array } {
  const target = bitsToTarget(header.bits);
  for (let nonce = 0; ; nonce++) {
    const candidate = { ...header, nonce };
    const bytes = serializeHeader(candidate);
    if (BigInt('0x' + headerHash(bytes)) <= target) return { header: candidate, bytes };
  }
}

export function makeBlock(header: BlockHeader, txs: Tx[]): Block {
  return assemble(header, txs, serializeBlock(header, txs));
}

export function computeMerkleRoot(txs: Tx[]): string {
  return hashToHex(merkleRoot(txs.map((tx) => hexToHash(tx.txid))));
}

// The regtest genesis block: the same coinbase as mainnet's, regtest time/bits/nonce.
const GENESIS_COINBASE_SCRIPTSIG =
  '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73';
const GENESIS_OUTPUT_SCRIPT =
  '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac';
export const REGTEST_GENESIS_HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

export function genesisBlock(): Block {
  const coinbase = buildTx({
    version: 1,
    inputs: [{ prevHash: NULL_HASH, vout: 0xffffffff, scriptSig: fromHex(GENESIS_COINBASE_SCRIPTSIG), sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: 5_000_000_000n, script: fromHex(GENESIS_OUTPUT_SCRIPT) }],
    locktime: 0,
  });
  const header: BlockHeader = {
    version: 1,
    prevHash: '00'.repeat(32),
    merkleRoot: computeMerkleRoot([coinbase]),
    time: 1296688602,
    bits: REGTEST_BITS,
    nonce: 2,
  };
  const block = makeBlock(header, [coinbase]);
  if (block.hash !== REGTEST_GENESIS_HASH) throw new Error(`genesis hash mismatch: ${block.hash}`);
  return block;
}
