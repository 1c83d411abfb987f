// secp256k1-zkp's WebAssembly build exposes no secp256k1_pedersen_verify_tally, so the balance check
// adds the commitments as curve points here, after parsing them the way secp256k1-zkp does.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { FpIsSquare } from '@noble/curves/abstract/modular.js';

const Point = secp256k1.Point;
type CurvePoint = InstanceType<typeof Point>;
const Fp = Point.Fp;

/**
 * A serialized Pedersen commitment (0x08/0x09 ‖ x) or generator (0x0a/0x0b ‖ x) as a point: the low
 * prefix (0x08, 0x0a) means y is a square mod p, as secp256k1_pedersen_commitment_parse reads it.
 * Undefined when the bytes are no point of the curve.
 */
export function parseCommitment(bytes: Uint8Array, squarePrefix: 0x08 | 0x0a): CurvePoint | undefined {
  if (bytes.length !== 33 || (bytes[0] & 0xfe) !== squarePrefix) return undefined;
  const x = BigInt(`0x${Buffer.from(bytes.subarray(1)).toString('hex')}`);
  if (x >= Fp.ORDER) return undefined;
  const y2 = Fp.add(Fp.mul(Fp.sqr(x), x), 7n);
  if (!FpIsSquare(Fp, y2)) return undefined;
  let y = Fp.sqrt(y2);
  // p ≡ 3 (mod 4): exactly one of y and -y is a square.
  if (FpIsSquare(Fp, y) !== (bytes[0] === squarePrefix)) y = Fp.neg(y);
  return Point.fromAffine({ x, y });
}

/** secp256k1_pedersen_verify_tally: Σ inputs − Σ outputs is the point at infinity. */
export function tallyBalances(inputs: CurvePoint[], outputs: CurvePoint[]): boolean {
  let sum = Point.ZERO;
  for (const point of inputs) sum = sum.add(point);
  for (const point of outputs) sum = sum.subtract(point);
  return sum.equals(Point.ZERO);
}

export type { CurvePoint };
