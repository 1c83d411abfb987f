// The service's libsecp256k1: tiny-secp256k1, bitcoinjs' WebAssembly build, for the curve work every swap creation
// does that noble's JavaScript made a large share of its CPU (issue 28):
// - the payee key's recovery from a BOLT11 invoice's signature, ~1.1 ms in noble, ~0.2 ms here; the SDK's reader
//   takes it once registered (keys/ecdsa-recovery.ts in @ferry/sdk), and the SDK itself stays on noble, so a
//   browser bundle carries no second WebAssembly build;
// - the check that a client's key is a point of the curve (a square root in noble, ~0.1 ms, done twice per request).
// secp256k1-zkp's build, which the swap outputs' KeyAgg uses, exports neither.
import { isPoint, recover } from 'tiny-secp256k1';
import { useEcdsaRecovery } from '@ferry/sdk/keys/ecdsa-recovery.js';

/** Registers libsecp256k1's recovery with the SDK's BOLT11 reader; idempotent. */
export function useLibsecp256k1Recovery(): void {
  useEcdsaRecovery((digest, signature, recoveryId) => recover(digest, signature, recoveryId, true));
}

/** Whether `bytes` is a 33-byte compressed key (0x02 or 0x03, then an x of a point on the curve). */
export function isCompressedPoint(bytes: Uint8Array): boolean {
  return bytes.length === 33 && (bytes[0] === 0x02 || bytes[0] === 0x03) && isPoint(bytes);
}
