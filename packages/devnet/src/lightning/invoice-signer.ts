// Signs the devnet nodes' BOLT11 invoices with libsecp256k1 (secp256k1-zkp's WebAssembly build, which the devnet
// loads for Elements anyway) for the point multiplication: noble's signature in pure JavaScript cost ~0.8 ms, the
// largest share of a hold invoice's CPU once the state stopped being rewritten per invoice, this one ~0.2 ms
// (OpenSSL's, through node:crypto, ~0.5 ms: its secp256k1 is the generic curve code). ECDSA as SEC 1 writes it, with
// a random nonce k: R = k·G (libsecp256k1, compressed, so R's y parity gives the recovery id), r = R.x mod n,
// s = k⁻¹(z + r·d) mod n, s taken low (n − s, flipping the parity) as BOLT11 readers require.
// test/devnet/invoice-signer.test.ts checks signatures with noble: each verifies and recovers the node's key.
import { randomBytes } from 'node:crypto';
import { invert } from '@noble/curves/abstract/modular.js';
import type { Bolt11Signer } from '@ferry/sdk/lightning/bolt11/index.js';

/** The part of secp256k1-zkp the signer uses. */
export interface PointMultiplier {
  ecc: { pointFromScalar(scalar: Uint8Array, compressed?: boolean): Uint8Array | null };
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

const toBigInt = (bytes: Uint8Array): bigint => BigInt('0x' + Buffer.from(bytes).toString('hex'));
const to32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

export function invoiceSigner(secretKey: Uint8Array, lib: PointMultiplier): Bolt11Signer {
  const d = toBigInt(secretKey);
  const publicKey = d > 0n && d < N ? lib.ecc.pointFromScalar(secretKey, true) : null;
  if (publicKey === null) throw new Error('invalid node secret key');
  return {
    publicKey,
    sign(digest: Uint8Array): Uint8Array {
      const z = toBigInt(digest) % N;
      for (;;) {
        const nonce = randomBytes(32);
        const k = toBigInt(nonce);
        const R = k > 0n && k < N ? lib.ecc.pointFromScalar(nonce, true) : null;
        if (R === null) continue;
        const x = toBigInt(R.subarray(1));
        const r = x % N;
        let s = (invert(k, N) * (z + r * d)) % N;
        if (r === 0n || s === 0n) continue;
        let recovery = (R[0] === 0x03 ? 1 : 0) | (x >= N ? 2 : 0);
        if (s > HALF_N) {
          s = N - s;
          recovery ^= 1;
        }
        return Uint8Array.from([...to32(r), ...to32(s), recovery]);
      }
    },
  };
}
