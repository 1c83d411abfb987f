// The single place that loads bitcore-lib: it refuses to be instantiated twice in one process
// (global._bitcore guard), and every importer shares this module's instance.
import bitcore from 'bitcore-lib';
import { schnorr } from '@noble/curves/secp256k1.js';

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

export const { Script, Transaction } = bitcore;
export const { Interpreter } = bitcore.Script;
export const { Output } = bitcore.Transaction;
