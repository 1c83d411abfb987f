// Elements' signature hashes through liquidjs-lib: the BIP143 variant for segwit v0 (commits to the
// spent value commitment and to issuances) and the Taproot one ("TapSighash/elements", committing to
// the genesis block hash, spent assets and values, and output witnesses).
import { Transaction } from 'liquidjs-lib';
import type { ElementsPrevout } from './index.ts';
import { assetIdBytes } from './values.ts';

export interface SpendContext {
  tx: Transaction;
  prevouts: ElementsPrevout[];
  genesisBlockHash: Buffer; // byte order as hashed (reversed from display)
}

/** The spent output's value as serialized: explicit (0x01 ‖ 8-byte big-endian) or its commitment. */
export function prevoutValue(prevout: ElementsPrevout): Buffer {
  if ('valueCommitment' in prevout) return Buffer.from(prevout.valueCommitment);
  const bytes = Buffer.alloc(9);
  bytes[0] = 0x01;
  bytes.writeBigUInt64BE(prevout.value, 1);
  return bytes;
}

export function prevoutAsset(prevout: ElementsPrevout): Buffer {
  if ('assetCommitment' in prevout) return Buffer.from(prevout.assetCommitment);
  return Buffer.concat([Buffer.of(0x01), assetIdBytes(prevout.asset)]);
}

export function segwitV0Sighash(ctx: SpendContext, index: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  return ctx.tx.hashForWitnessV0(index, Buffer.from(scriptCode), prevoutValue(ctx.prevouts[index]), hashType);
}

/** Undefined where BIP341 has no message (SIGHASH_SINGLE without a matching output). */
export function taprootSighash(
  ctx: SpendContext,
  index: number,
  hashType: number,
  leafHash?: Uint8Array,
  annex?: Uint8Array,
): Uint8Array | undefined {
  if ((hashType & 3) === Transaction.SIGHASH_SINGLE && index >= ctx.tx.outs.length) return undefined;
  return ctx.tx.hashForWitnessV1(
    index,
    ctx.prevouts.map((prevout) => Buffer.from(prevout.script)),
    ctx.prevouts.map((prevout) => ({ asset: prevoutAsset(prevout), value: prevoutValue(prevout) })),
    hashType,
    ctx.genesisBlockHash,
    leafHash === undefined ? undefined : Buffer.from(leafHash),
    annex === undefined ? undefined : Buffer.from(annex),
  );
}

/** Hash types BIP341 defines: DEFAULT, ALL, NONE, SINGLE, each of the last three with ANYONECANPAY. */
export function isTaprootHashType(hashType: number): boolean {
  return hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83);
}
