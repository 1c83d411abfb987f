// Elements blocks as elementsd writes them on a signed-blocks chain without dynamic federations: header =
// version, prev, merkle root, time, height, proof (challenge, solution); the hash leaves out the solution.
// Coinbases with BIP34 height and the witness commitment, and the devnet's genesis block.
import { createHash } from 'node:crypto';
import { Transaction } from 'liquidjs-lib';
import { explicitOutput, parseTx, wrapTx, type ElementsTx } from './tx.ts';
import { REGTEST_GENESIS_BLOCK_HASH } from './verify/index.ts';

export interface ElementsHeader {
  version: number;
  prevHash: string; // display order
  merkleRoot: string; // display order
  time: number;
  height: number;
  challenge: Buffer; // signblockscript
  solution: Buffer; // its witness; empty for OP_TRUE
}

export interface ElementsBlock {
  header: ElementsHeader;
  hash: string;
  txs: ElementsTx[];
  raw: Buffer;
  size: number;
  weight: number;
}

/** elementsregtest's default signblockscript: OP_TRUE, satisfied by an empty solution. */
export const SIGNBLOCK_CHALLENGE = Buffer.of(0x51);
export const BLOCK_VERSION = 0x20000000;

const sha256d = (data: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
const reversedHex = (bytes: Buffer): string => Buffer.from(bytes).reverse().toString('hex');
const internal = (hex: string): Buffer => Buffer.from(hex, 'hex').reverse();

function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.of(n);
  const b = Buffer.alloc(n <= 0xffff ? 3 : 5);
  b[0] = n <= 0xffff ? 0xfd : 0xfe;
  if (n <= 0xffff) b.writeUInt16LE(n, 1);
  else b.writeUInt32LE(n, 1);
  return b;
}

const varBytes = (bytes: Buffer): Buffer => Buffer.concat([varint(bytes.length), bytes]);

/** The header's serialization; `forHash` leaves out the proof's solution, as elementsd's GetHash does. */
export function serializeHeader(header: ElementsHeader, forHash = false): Buffer {
  const fixed = Buffer.alloc(76);
  fixed.writeInt32LE(header.version, 0);
  internal(header.prevHash).copy(fixed, 4);
  internal(header.merkleRoot).copy(fixed, 36);
  fixed.writeUInt32LE(header.time, 68);
  fixed.writeUInt32LE(header.height, 72);
  const parts = [fixed, varBytes(header.challenge)];
  if (!forHash) parts.push(varBytes(header.solution));
  return Buffer.concat(parts);
}

export const headerHash = (header: ElementsHeader): string => reversedHex(sha256d(serializeHeader(header, true)));

class Reader {
  offset = 0;
  constructor(readonly buffer: Buffer) {}
  varint(): number {
    const first = this.buffer[this.offset++];
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    const value = size === 2 ? this.buffer.readUInt16LE(this.offset) : this.buffer.readUInt32LE(this.offset);
    this.offset += size;
    return value;
  }
  bytes(n: number): Buffer {
    if (this.offset + n > this.buffer.length) throw new RangeError('block truncated');
    const out = this.buffer.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

export function parseBlock(raw: Uint8Array): ElementsBlock {
  const buffer = Buffer.from(raw);
  const reader = new Reader(buffer);
  const fixed = reader.bytes(76);
  const header: ElementsHeader = {
    version: fixed.readInt32LE(0),
    prevHash: reversedHex(fixed.subarray(4, 36)),
    merkleRoot: reversedHex(fixed.subarray(36, 68)),
    time: fixed.readUInt32LE(68),
    height: fixed.readUInt32LE(72),
    challenge: Buffer.from(reader.bytes(reader.varint())),
    solution: Buffer.from(reader.bytes(reader.varint())),
  };
  const count = reader.varint();
  const txs: ElementsTx[] = [];
  for (let i = 0; i < count; i++) {
    const rest = buffer.subarray(reader.offset);
    const tx = Transaction.fromBuffer(rest, true);
    const length = tx.byteLength();
    txs.push(parseTx(reader.bytes(length)));
  }
  if (reader.offset !== buffer.length) throw new RangeError('trailing data after block');
  return assemble(header, txs, buffer);
}

function assemble(header: ElementsHeader, txs: ElementsTx[], raw: Buffer): ElementsBlock {
  const headerSize = serializeHeader(header).length;
  const weight = txs.reduce((sum, tx) => sum + tx.fullWeight, headerSize * 4 + varint(txs.length).length * 4);
  const hash = header.height === 0 ? REGTEST_GENESIS_BLOCK_HASH : headerHash(header);
  return { header, hash, txs, raw, size: raw.length, weight };
}

export function makeBlock(header: ElementsHeader, txs: ElementsTx[]): ElementsBlock {
  const raw = Buffer.concat([serializeHeader(header), varint(txs.length), ...txs.map((tx) => tx.raw)]);
  return assemble(header, txs, raw);
}

/** Bitcoin's merkle root (elementsd's BlockMerkleRoot): sha256d pairs, the last of an odd level doubled. */
export function merkleRoot(hashes: Buffer[]): Buffer {
  if (hashes.length === 0) return Buffer.alloc(32);
  let level = hashes;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i], level[i + 1] ?? level[i]])));
    level = next;
  }
  return level[0];
}

export const computeMerkleRoot = (txs: ElementsTx[]): string => reversedHex(merkleRoot(txs.map((tx) => internal(tx.txid))));

/** `CScript() << n` for the BIP34 height. */
function scriptNum(n: number): Buffer {
  if (n === 0) return Buffer.of(0x00);
  if (n >= 1 && n <= 16) return Buffer.of(0x50 + n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.push(v & 0xff);
  if (bytes[bytes.length - 1] & 0x80) bytes.push(0);
  return Buffer.from([bytes.length, ...bytes]);
}

const WITNESS_COMMITMENT_HEADER = Buffer.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);

/**
 * A coinbase as elementsd's miner writes it: height + OP_0 in the scriptSig, a zero witness reserved value,
 * one explicit L-BTC output with subsidy + fees, and the witness commitment (an explicit zero L-BTC output).
 */
export function buildCoinbase(height: number, payout: { script: Uint8Array; value: bigint }, others: ElementsTx[]): ElementsTx {
  const reserved = Buffer.alloc(32);
  const wtxids = [Buffer.alloc(32), ...others.map((tx) => internal(tx.wtxid))];
  const commitment = sha256d(Buffer.concat([merkleRoot(wtxids), reserved]));
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.concat([scriptNum(height), Buffer.of(0x00)]));
  tx.setWitness(0, [reserved]);
  for (const out of [explicitOutput(payout.script, payout.value), explicitOutput(Buffer.concat([WITNESS_COMMITMENT_HEADER, commitment]), 0n)]) {
    tx.addOutput(out.script, out.value, out.asset, out.nonce);
  }
  return wrapTx(tx);
}

/**
 * elementsd's CommitToArguments for the chain whose L-BTC the devnet uses: sha256(network id ‖ fedpegscript hex ‖
 * signblockscript hex). REGTEST_POLICY_ASSET derives from it (GenerateAssetEntropy + CalculateAsset); it is the
 * "liquidregtest" chain of Nigiri and Boltz's regtest, both scripts OP_TRUE. Plain "elementsregtest" gives b2e15d0d….
 */
export const GENESIS_COMMITMENT = createHash('sha256').update('liquidregtest' + '51' + '51').digest();

/**
 * The devnet's genesis block, elements-style (one coinbase pushing GENESIS_COMMITMENT and paying nothing to
 * OP_RETURN; no initial free coins). Its hash is adopted (REGTEST_GENESIS_BLOCK_HASH, Nigiri's liquidregtest
 * genesis, which has initial free coins this block lacks) rather than computed: Taproot sighashes commit to it,
 * and wallets built with liquidjs-lib's networks.regtest sign with that value.
 */
export function genesisBlock(): ElementsBlock {
  const commit = GENESIS_COMMITMENT;
  const le32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0);
    return b;
  };
  const coinbase = parseTx(
    Buffer.concat([
      le32(1), Buffer.of(0x00, 0x01), Buffer.alloc(32), le32(0xffffffff), Buffer.of(0x21, 0x20), commit, le32(0xffffffff),
      Buffer.of(0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0x6a), le32(0),
    ]),
  );
  const header: ElementsHeader = {
    version: 1,
    prevHash: '00'.repeat(32),
    merkleRoot: computeMerkleRoot([coinbase]),
    time: 1296688602,
    height: 0,
    challenge: SIGNBLOCK_CHALLENGE,
    solution: Buffer.alloc(0),
  };
  return makeBlock(header, [coinbase]);
}
