// Witness v1 (Taproot) spends with Elements' tagged hashes: the key path, and the script path whose
// control block must commit the leaf ("TapLeaf/elements", version 0xc4) into the output key through
// "TapBranch/elements" and "TapTweak/elements" (BIP341 as Elements changed it).
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { crypto as liquidCrypto } from 'liquidjs-lib';
import { fail, type ScriptFailure } from './errors.ts';
import { isTaprootHashType, taprootSighash, type SpendContext } from './sighash.ts';
import { runTapscript } from './tapscript.ts';

export const LEAF_VERSION_TAPSCRIPT = 0xc4;
const ANNEX_TAG = 0x50;
const Point = secp256k1.Point;

export function verifyTaproot(
  ctx: SpendContext,
  index: number,
  program: Uint8Array,
  witness: Uint8Array[],
  standard: boolean,
): ScriptFailure | undefined {
  const stack = [...witness];
  if (stack.length === 0) return fail('WITNESS_PROGRAM_WITNESS_EMPTY');
  let annex: Uint8Array | undefined;
  if (stack.length >= 2 && stack[stack.length - 1][0] === ANNEX_TAG) {
    annex = stack.pop();
    // An annex is consensus-valid but not relayed (policy.cpp IsWitnessStandard).
    if (standard) return fail('DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM');
  }
  if (stack.length === 1) {
    // Key path: one signature for the output key itself.
    return checkSchnorr(ctx, index, stack[0], program, annex, undefined);
  }
  const control = stack.pop()!;
  const script = stack.pop()!;
  if (control.length < 33 || control.length > 33 + 128 * 32 || (control.length - 33) % 32 !== 0) {
    return fail('TAPROOT_WRONG_CONTROL_SIZE');
  }
  const leafVersion = control[0] & 0xfe;
  const leafHash = tapLeafHash(leafVersion, script);
  if (!commitsToLeaf(control, program, leafHash)) return fail('WITNESS_PROGRAM_MISMATCH');
  if (leafVersion !== LEAF_VERSION_TAPSCRIPT) {
    // Unknown leaf versions succeed for forward compatibility, but are not relayed.
    return standard ? fail('DISCOURAGE_UPGRADABLE_TAPROOT_VERSION') : undefined;
  }
  const input = ctx.tx.ins[index];
  return runTapscript(script, stack, {
    locktime: ctx.tx.locktime,
    sequence: input.sequence,
    standard,
    validationWeight: serializedSize(witness) + 50,
    introspection: { tx: ctx.tx, prevouts: ctx.prevouts, index },
    checkSchnorr: (signature, pubkey) => checkSchnorr(ctx, index, signature, pubkey, annex, leafHash) ?? true,
  });
}

/** BIP340 signature (64 bytes, or 65 with an explicit hash type) over Elements' Taproot sighash. */
function checkSchnorr(
  ctx: SpendContext,
  index: number,
  signature: Uint8Array,
  pubkey: Uint8Array,
  annex: Uint8Array | undefined,
  leafHash: Uint8Array | undefined,
): ScriptFailure | undefined {
  if (signature.length !== 64 && signature.length !== 65) return fail('SCHNORR_SIG_SIZE');
  const hashType = signature.length === 65 ? signature[64] : 0;
  // SIGHASH_DEFAULT is only ever implicit.
  if (signature.length === 65 && (hashType === 0 || !isTaprootHashType(hashType))) return fail('SCHNORR_SIG_HASHTYPE');
  const message = taprootSighash(ctx, index, hashType, leafHash, annex);
  if (message === undefined) return fail('SCHNORR_SIG_HASHTYPE');
  let valid: boolean;
  try {
    valid = schnorr.verify(signature.subarray(0, 64), message, pubkey);
  } catch {
    valid = false;
  }
  return valid ? undefined : fail('SCHNORR_SIG');
}

export function tapLeafHash(leafVersion: number, script: Uint8Array): Uint8Array {
  return liquidCrypto.taggedHash('TapLeaf/elements', Buffer.concat([Buffer.of(leafVersion), compactSize(script.length), script]));
}

/** VerifyTaprootCommitment: the leaf and path give the merkle root, and internal key + tweak gives the output key. */
function commitsToLeaf(control: Uint8Array, program: Uint8Array, leafHash: Uint8Array): boolean {
  let node: Buffer = Buffer.from(leafHash);
  for (let offset = 33; offset < control.length; offset += 32) {
    const sibling = Buffer.from(control.subarray(offset, offset + 32));
    const [a, b] = Buffer.compare(node, sibling) < 0 ? [node, sibling] : [sibling, node];
    node = liquidCrypto.taggedHash('TapBranch/elements', Buffer.concat([a, b]));
  }
  const internalKey = control.subarray(1, 33);
  try {
    const internal = Point.fromBytes(Uint8Array.from([0x02, ...internalKey]));
    const tweak = BigInt(`0x${liquidCrypto.taggedHash('TapTweak/elements', Buffer.concat([internalKey, node])).toString('hex')}`);
    if (tweak >= Point.CURVE().n) return false;
    const output = internal.add(Point.BASE.multiply(tweak)).toAffine();
    const parity = Number(output.y & 1n);
    return output.x === BigInt(`0x${Buffer.from(program).toString('hex')}`) && parity === (control[0] & 1);
  } catch {
    return false; // internal key not on the curve, or tweak of zero
  }
}

/** The witness stack as serialized (item count, then each item with its length). */
function serializedSize(witness: Uint8Array[]): number {
  return witness.reduce((size, item) => size + compactSize(item.length).length + item.length, compactSize(witness.length).length);
}

function compactSize(length: number): Buffer {
  if (length < 0xfd) return Buffer.of(length);
  const bytes = Buffer.alloc(3);
  bytes[0] = 0xfd;
  bytes.writeUInt16LE(length, 1);
  return bytes;
}
