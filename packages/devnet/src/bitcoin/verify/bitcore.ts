// The single place that loads bitcore-lib: it refuses to be instantiated twice in one process
// (global._bitcore guard), and every importer shares this module's instance.
import bitcore from 'bitcore-lib';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';

// bitcore validates each public key it builds (up to 7 per Taproot script-path spend) by lifting
// x to a point a second time (a modular square root) and by checking N·P = ∞. For secp256k1 both
// reduce to the curve equation: coordinates are already reduced mod p, and with cofactor 1 every
// point on the curve has order N. Checking y² = x³ + 7 directly accepts and rejects exactly the same
// points and takes about a fifth off a Taproot verification.
bitcore.crypto.Point.prototype.validate = function validate() {
  if (this.isInfinity()) throw new Error('Point cannot be equal to Infinity');
  if (!this.curve.validate(this)) throw new Error('Point does not lie on the curve');
  return this;
};

// bitcore's own BIP340 check serializes the lifted x with elliptic's bn.js copy, which drops leading zero
// bytes: every key whose x starts with 0x00 (1 in 256) failed valid signatures. noble's verifier is exact
// (and faster); bitcore still decides everything else (sighash, script rules).
bitcore.crypto.Schnorr.verify = function verify(publicKey: any, message: any, signature: any): boolean {
  const key: Uint8Array = Buffer.isBuffer(publicKey)
    ? publicKey
    : Buffer.from(publicKey.point.x.toString(16).padStart(64, '0'), 'hex');
  const digest: Uint8Array = typeof message === 'string' ? Buffer.from(message, 'hex') : message;
  let sig: Uint8Array =
    typeof signature === 'string'
      ? Buffer.from(signature, 'hex')
      : typeof signature.toBuffer === 'function'
        ? signature.toBuffer()
        : signature;
  if (sig.length === 65) sig = sig.subarray(0, 64);
  if (key.length !== 32 || digest.length !== 32 || sig.length !== 64) return false;
  try {
    return schnorr.verify(sig, digest, key);
  } catch {
    return false;
  }
};

// The same bn.js mix-up in the Taproot commitment check: the TapTweak hash serialized the internal key's x
// without its leading zero bytes, so a script-path spend of such a key (1 in 256) failed with "Witness program
// hash mismatch". BIP341: t = hashTapTweak(x(P) || merkle root), and it must be below the curve order.
const tapTweakTag = sha256(new TextEncoder().encode('TapTweak'));
bitcore.PublicKey.prototype.computeTapTweakHash = function computeTapTweakHash(merkleRoot?: Buffer): Buffer {
  const x = Buffer.from(this.point.x.toString(16).padStart(64, '0'), 'hex');
  const tweak = Buffer.from(sha256(Buffer.concat([tapTweakTag, tapTweakTag, x, merkleRoot ?? Buffer.alloc(0)])));
  if (BigInt('0x' + tweak.toString('hex')) >= secp256k1.Point.CURVE().n) {
    throw new Error('TapTweak hash failed secp256k1 order check');
  }
  return tweak;
};

export const { Script, Transaction } = bitcore;
export const { Interpreter } = bitcore.Script;
export const { Output } = bitcore.Transaction;
