// Witness v0 key-hash spends (P2WPKH) with Elements' BIP143 variant of the sighash and Core's ECDSA
// signature and key encoding rules (interpreter.cpp: CheckSignatureEncoding, CheckPubKeyEncoding); the same
// signature check serves OP_CHECKSIG in witness v0 scripts (p2wsh.ts).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fail, unsupported, type ScriptFailure } from './errors.ts';
import { segwitV0Sighash, type SpendContext } from './sighash.ts';
import { isValidSignatureEncoding } from '../../common/der.ts';

const HALF_ORDER = secp256k1.Point.CURVE().n >> 1n;
const SIGHASH_RANGEPROOF = 0x40; // Elements: the sighash also commits to the outputs' range proofs

export function verifyP2wpkh(
  ctx: SpendContext,
  index: number,
  program: Uint8Array,
  witness: Uint8Array[],
  standard: boolean,
): ScriptFailure | undefined {
  if (witness.length === 0) return fail('WITNESS_PROGRAM_WITNESS_EMPTY');
  if (witness.length !== 2) return fail('WITNESS_PROGRAM_MISMATCH');
  const [signature, pubkey] = witness;
  // The implied script: OP_DUP OP_HASH160 <program> OP_EQUALVERIFY OP_CHECKSIG.
  if (!Buffer.from(ripemd160(sha256(pubkey))).equals(Buffer.from(program))) return fail('EQUALVERIFY');
  const scriptCode = Uint8Array.from([0x76, 0xa9, 0x14, ...program, 0x88, 0xac]);
  const result = checkEcdsa(ctx, index, scriptCode, signature, pubkey, standard);
  if (typeof result !== 'boolean') return result;
  return result ? undefined : fail('EVAL_FALSE');
}

/**
 * Core's OP_CHECKSIG before Tapscript (EvalChecksigPreTapscript) under witness v0: encoding checks, then ECDSA over
 * Elements' segwit v0 sighash of `scriptCode`. false for an empty signature; a failing non-empty one is NULLFAIL
 * under policy, false by consensus.
 */
export function checkEcdsa(
  ctx: SpendContext,
  index: number,
  scriptCode: Uint8Array,
  signature: Uint8Array,
  pubkey: Uint8Array,
  standard: boolean,
): ScriptFailure | boolean {
  // liquidjs-lib cannot compute this sighash variant, so such a signature cannot be judged here.
  if (signature.length > 0 && signature[signature.length - 1] & SIGHASH_RANGEPROOF) {
    return unsupported('SIGHASH_RANGEPROOF signatures are not supported by the devnet');
  }
  const encodingError = checkSignatureEncoding(signature, standard) ?? checkPubKeyEncoding(pubkey, standard);
  if (encodingError !== undefined) return encodingError;
  let valid = false;
  if (signature.length > 0) {
    const hashType = signature[signature.length - 1];
    const message = segwitV0Sighash(ctx, index, scriptCode, hashType);
    try {
      valid = secp256k1.verify(signature.subarray(0, -1), message, pubkey, { prehash: false, lowS: false, format: 'der' });
    } catch {
      valid = false;
    }
  }
  if (valid) return true;
  // NULLFAIL (policy): a failing signature must be empty.
  if (standard && signature.length > 0) return fail('NULLFAIL');
  return false;
}

function checkSignatureEncoding(signature: Uint8Array, standard: boolean): ScriptFailure | undefined {
  if (signature.length === 0) return undefined;
  if (!isValidSignatureEncoding(signature)) return fail('SIG_DER'); // DERSIG is consensus
  if (standard && !isLowS(signature)) return fail('SIG_HIGH_S');
  const hashType = signature[signature.length - 1] & ~0x80;
  if (standard && (hashType < 1 || hashType > 3)) return fail('SIG_HASHTYPE'); // STRICTENC
  return undefined;
}

function checkPubKeyEncoding(pubkey: Uint8Array, standard: boolean): ScriptFailure | undefined {
  if (!standard) return undefined;
  const compressed = pubkey.length === 33 && (pubkey[0] === 0x02 || pubkey[0] === 0x03);
  const uncompressed = pubkey.length === 65 && pubkey[0] === 0x04;
  if (!compressed && !uncompressed) return fail('PUBKEYTYPE');
  if (!compressed) return fail('WITNESS_PUBKEYTYPE');
  return undefined;
}

function isLowS(sig: Uint8Array): boolean {
  const lenR = sig[3];
  const lenS = sig[5 + lenR];
  const s = BigInt(`0x${Buffer.from(sig.subarray(6 + lenR, 6 + lenR + lenS)).toString('hex')}`);
  return s <= HALF_ORDER;
}
