// The public side of a Taproot swap's key: BIP327 KeyAgg of [service, client] and the BIP341 tweak by the swap
// tree. Only public keys go in, so variable-time arithmetic is safe here; boltz-core's Musig, which also takes the
// private key and multiplies in constant time, cost ~17 ms per created swap for the same bytes.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, concatBytes, equalBytes, numberToBytesBE } from '@noble/curves/utils.js';
import type { Types } from 'boltz-core';
import { libsecp256k1, type Libsecp256k1 } from './libsecp256k1.ts';

const { Point } = secp256k1;
const { taggedHash } = schnorr.utils;
const ORDER = Point.Fn.ORDER;
const COMPRESSED_LENGTH = 33;
// BIP327 GetSecondKey's answer when every key equals the first: no key gets the coefficient 1.
const NO_SECOND_KEY = new Uint8Array(COMPRESSED_LENGTH);

type CurvePoint = typeof Point.BASE;

export interface TaprootSwapKey {
  /** 32-byte x-only MuSig2 aggregate before the tweak (the internal key of the output). */
  internalKey: Uint8Array;
  /** 32-byte x-only tweaked key the output commits to. */
  outputKey: Uint8Array;
  /** OP_1 <outputKey>. */
  outputScript: Uint8Array;
}

function requireCompressed(publicKey: Uint8Array): void {
  if (publicKey.length !== COMPRESSED_LENGTH) throw new Error(`public key must be 33 bytes, got ${publicKey.length}`);
}

function compressedPoint(publicKey: Uint8Array): CurvePoint {
  requireCompressed(publicKey);
  return Point.fromBytes(publicKey);
}

/** BIP327 KeyAgg of 33-byte compressed keys, in the order given (never sorted): the aggregate point Q. */
export function aggregateKeys(publicKeys: readonly Uint8Array[]): CurvePoint {
  if (publicKeys.length === 0) throw new Error('no public keys to aggregate');
  const points = publicKeys.map(compressedPoint);
  const list = taggedHash('KeyAgg list', ...publicKeys);
  const second = publicKeys.find((key) => !equalBytes(key, publicKeys[0])) ?? NO_SECOND_KEY;
  let aggregate = Point.ZERO;
  publicKeys.forEach((key, i) => {
    const point = points[i];
    if (equalBytes(key, second)) {
      aggregate = aggregate.add(point);
    } else {
      const coefficient = bytesToNumberBE(taggedHash('KeyAgg coefficient', list, key)) % ORDER;
      aggregate = aggregate.add(point.multiplyUnsafe(coefficient));
    }
  });
  if (aggregate.is0()) throw new Error('the aggregate public key is the point at infinity');
  return aggregate;
}

function leafHash(leaf: Types.TapLeaf): Uint8Array {
  return taggedHash('TapLeaf', new Uint8Array([leaf.version]), compactSize(leaf.output.length), leaf.output);
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return new Uint8Array([n]);
  if (n <= 0xffff) return new Uint8Array([0xfd, n & 0xff, n >>> 8]);
  const bytes = new Uint8Array(5);
  bytes[0] = 0xfe;
  new DataView(bytes.buffer).setUint32(1, n, true);
  return bytes;
}

/** Lexicographic order of two byte strings, as BIP341 sorts a branch's children. */
function compareBytes(left: Uint8Array, right: Uint8Array): number {
  for (let i = 0; i < Math.min(left.length, right.length); i++) if (left[i] !== right[i]) return left[i] - right[i];
  return left.length - right.length;
}

/** BIP341 merkle root of a script tree: branches hash their children in byte order. */
export function tapTreeRoot(tree: Types.TapTree): Uint8Array {
  if (!Array.isArray(tree)) return leafHash(tree);
  const left = tapTreeRoot(tree[0]);
  const right = tapTreeRoot(tree[1]);
  return compareBytes(left, right) <= 0 ? taggedHash('TapBranch', left, right) : taggedHash('TapBranch', right, left);
}

/**
 * BIP341 taproot_tweak_pubkey for the internal point (its x coordinate is the internal key; an odd y is taken
 * as its even-y twin, as lift_x does): the output point P + t·G with t = TapTweak(x(P) || merkleRoot), the hash
 * tagged `tweakTag` (Elements tags it "TapTweak/elements").
 */
export function taprootTweak(internal: CurvePoint, merkleRoot: Uint8Array, tweakTag = 'TapTweak'): CurvePoint {
  const even = internal.y % 2n === 0n ? internal : internal.negate();
  const tweak = bytesToNumberBE(taggedHash(tweakTag, schnorr.utils.pointToBytes(even), merkleRoot));
  if (tweak >= ORDER) throw new Error('the taproot tweak is not below the curve order');
  const output = even.add(Point.BASE.multiplyUnsafe(tweak));
  if (output.is0()) throw new Error('the tweaked key is the point at infinity');
  return output;
}

/** How a chain's Taproot commits to a script tree: its merkle root and the tag of the key tweak. */
export interface TaprootCommitment {
  merkleRoot(tree: Types.TapTree): Uint8Array;
  tweakTag: string;
}

/** Bitcoin's BIP341. */
export const BITCOIN_TAPROOT: TaprootCommitment = { merkleRoot: tapTreeRoot, tweakTag: 'TapTweak' };

/**
 * The swap output's keys and script for keys [service, client] and the swap tree, committed to the chain's way
 * (Bitcoin's unless told). Equal keys are refused, as boltz-core's Musig refuses them: such an output could never be
 * spent by a MuSig2 key-path signature here.
 */
export function swapOutputKey(
  servicePublicKey: Uint8Array,
  clientPublicKey: Uint8Array,
  tree: Types.SwapTree,
  taproot: TaprootCommitment = BITCOIN_TAPROOT,
): TaprootSwapKey {
  if (equalBytes(servicePublicKey, clientPublicKey)) throw new Error('the service and client public keys are equal');
  const lib = libsecp256k1();
  if (lib !== undefined) return withLibsecp256k1(lib, servicePublicKey, clientPublicKey, taproot.merkleRoot(tree.tree), taproot.tweakTag);
  const internal = aggregateKeys([servicePublicKey, clientPublicKey]);
  const outputKey = schnorr.utils.pointToBytes(taprootTweak(internal, taproot.merkleRoot(tree.tree), taproot.tweakTag));
  return {
    internalKey: schnorr.utils.pointToBytes(internal),
    outputKey,
    outputScript: concatBytes(new Uint8Array([0x51, 0x20]), outputKey),
  };
}

/**
 * swapOutputKey for the service, which holds its own private key k: KeyAgg gives the service key the coefficient a
 * and the client key 1, so the aggregate a·K + C is C + (a·k)·G, a multiplication of the generator only (with its
 * precomputed table) in place of a variable point's, and constant-time as a secret's must be. The same bytes as
 * swapOutputKey (test/engine/key-agg.test.ts); noble's public path while libsecp256k1 is not loaded.
 */
export function serviceSwapOutputKey(
  servicePrivateKey: Uint8Array,
  servicePublicKey: Uint8Array,
  clientPublicKey: Uint8Array,
  tree: Types.SwapTree,
  taproot: TaprootCommitment = BITCOIN_TAPROOT,
): TaprootSwapKey {
  const lib = libsecp256k1();
  if (lib === undefined) return swapOutputKey(servicePublicKey, clientPublicKey, tree, taproot);
  if (equalBytes(servicePublicKey, clientPublicKey)) throw new Error('the service and client public keys are equal');
  requireCompressed(servicePublicKey);
  requireCompressed(clientPublicKey);
  const own = lib.ecc.pointFromScalar(servicePrivateKey, true);
  if (own === null || !equalBytes(own, servicePublicKey)) throw new Error("the private key is not the service public key's");
  const list = taggedHash('KeyAgg list', servicePublicKey, clientPublicKey);
  const coefficient = bytesToNumberBE(taggedHash('KeyAgg coefficient', list, servicePublicKey)) % ORDER;
  const scalar = (coefficient * bytesToNumberBE(servicePrivateKey)) % ORDER;
  const merkleRoot = taproot.merkleRoot(tree.tree);
  // a·k = 0 needs a zero coefficient (a hash, odds ~2^-256): the public path's arithmetic then.
  if (scalar === 0n) return withLibsecp256k1(lib, servicePublicKey, clientPublicKey, merkleRoot, taproot.tweakTag);
  const aggregate = lib.ecc.pointAddScalar(clientPublicKey, numberToBytesBE(scalar, 32), true);
  if (aggregate === null) throw new Error('the client public key is not a point of the curve, or the aggregate is the point at infinity');
  return tweaked(lib, aggregate.subarray(1), merkleRoot, taproot.tweakTag);
}

/** swapOutputKey's arithmetic in libsecp256k1: BIP327 KeyAgg of [service, client] (never sorted), the BIP341 tweak. */
function withLibsecp256k1(lib: Libsecp256k1, servicePublicKey: Uint8Array, clientPublicKey: Uint8Array, merkleRoot: Uint8Array, tweakTag: string): TaprootSwapKey {
  // The noble path's refusal of other lengths (libsecp256k1 would take uncompressed keys); it refuses off-curve points.
  requireCompressed(servicePublicKey);
  requireCompressed(clientPublicKey);
  return tweaked(lib, lib.musig.pubkeyAgg([servicePublicKey, clientPublicKey]).aggPubkey, merkleRoot, tweakTag);
}

/** The BIP341 tweak of an x-only internal key by the tree's merkle root, and the output script. */
function tweaked(lib: Libsecp256k1, internalKey: Uint8Array, merkleRoot: Uint8Array, tweakTag: string): TaprootSwapKey {
  const tweak = taggedHash(tweakTag, internalKey, merkleRoot);
  if (bytesToNumberBE(tweak) >= ORDER) throw new Error('the taproot tweak is not below the curve order');
  const output = lib.ecc.xOnlyPointAddTweak(internalKey, tweak);
  if (output === null) throw new Error('the tweaked key is the point at infinity');
  return { internalKey, outputKey: output.xOnlyPubkey, outputScript: concatBytes(new Uint8Array([0x51, 0x20]), output.xOnlyPubkey) };
}
