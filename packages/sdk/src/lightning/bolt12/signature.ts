// BOLT #12 signatures: BIP340 Schnorr over H("lightning" || messagename || fieldname, merkle root), where the
// Merkle tree has one leaf pair per non-signature TLV record (H("LnLeaf", record) and H("LnNonce" || first
// record, type)), pairs and inner nodes joined as H("LnBranch", lesser || greater), and an odd node carried up
// so the deeper subtrees hold the lower types. Schnorr itself is @noble/curves'; the tree is the spec's own.
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Bolt12Error, concat, writeBigSize, type TlvRecord } from './tlv.ts';

const text = new TextEncoder();

/** Signature TLV elements are types 240 through 1000 inclusive; they are left out of the tree. */
export const isSignatureType = (type: bigint): boolean => type >= 240n && type <= 1000n;

export function taggedHash(tag: Uint8Array | string, message: Uint8Array): Uint8Array {
  const tagHash = sha256(typeof tag === 'string' ? text.encode(tag) : tag);
  return sha256(concat([tagHash, tagHash, message]));
}

function branch(a: Uint8Array, b: Uint8Array): Uint8Array {
  return taggedHash('LnBranch', compare(a, b) <= 0 ? concat([a, b]) : concat([b, a]));
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The Merkle root of a stream's non-signature records, in stream order. */
export function merkleRoot(records: TlvRecord[]): Uint8Array {
  const signed = records.filter((record) => !isSignatureType(record.type));
  if (signed.length === 0) throw new Bolt12Error('nothing to sign: no TLV records');
  const nonceTag = concat([text.encode('LnNonce'), signed[0].raw]);
  let level = signed.map((record) =>
    branch(taggedHash('LnLeaf', record.raw), taggedHash(nonceTag, writeBigSize(record.type))),
  );
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? branch(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0];
}

/** What BIP340 signs: the tagged hash of the Merkle root. */
export function signatureDigest(messageName: string, fieldName: string, records: TlvRecord[]): Uint8Array {
  return taggedHash(`lightning${messageName}${fieldName}`, merkleRoot(records));
}

/** The x-only form of a 33-byte compressed key, as BIP340 verifies with it. */
export const xOnly = (point: Uint8Array): Uint8Array => (point.length === 33 ? point.subarray(1) : point);

export function verifyBolt12Signature(messageName: string, records: TlvRecord[], signature: Uint8Array, key: Uint8Array): boolean {
  try {
    return schnorr.verify(signature, signatureDigest(messageName, 'signature', records), xOnly(key));
  } catch {
    return false;
  }
}

export function signBolt12(messageName: string, records: TlvRecord[], secretKey: Uint8Array): Uint8Array {
  return schnorr.sign(signatureDigest(messageName, 'signature', records), secretKey);
}
