// The single place that loads bitcore-lib: it refuses to be instantiated twice in one process
// (global._bitcore guard), and every importer shares this module's instance.
import bitcore from 'bitcore-lib';

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

export const { Script, Transaction } = bitcore;
export const { Interpreter } = bitcore.Script;
export const { Output } = bitcore.Transaction;
