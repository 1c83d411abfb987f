// ECDSA public-key recovery, which reading any BOLT11 invoice takes (its payee's key is recovered from its
// signature). noble's pure JavaScript spends ~1.1 ms on one, libsecp256k1 ~0.2 ms: in the service that was a third
// of a submarine swap's creation. secp256k1-zkp's WebAssembly build (loaded for Liquid) exports no recovery, and a
// browser bundle should not carry a second build for it, so the SDK recovers with noble unless its host registers
// a libsecp256k1 recovery; the service registers tiny-secp256k1's at start. Both give the same key and refuse the
// same signatures (test/lightning/ecdsa-recovery.test.ts in the service).
import { secp256k1 } from '@noble/curves/secp256k1.js';

/** 33-byte compressed key recovered from a 64-byte compact signature (r, s) over a 32-byte digest, or null. */
export type EcdsaRecover = (digest: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1 | 2 | 3) => Uint8Array | null;

let registered: EcdsaRecover | undefined;

/** Called once by a host that has libsecp256k1 at hand (the service, at start). */
export function useEcdsaRecovery(recover: EcdsaRecover): void {
  registered = recover;
}

/** The signer's compressed key; throws on a signature that recovers none (r or s zero or not below the order). */
export function recoverPublicKey(digest: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1 | 2 | 3): Uint8Array {
  if (registered !== undefined) {
    const key = registered(digest, signature, recoveryId);
    if (key === null) throw new Error('no key recovers from this signature');
    return key;
  }
  return recoverPublicKeyNoble(digest, signature, recoveryId);
}

/** noble's recovery, whatever the host registered: the reference the registered one is checked against. */
export function recoverPublicKeyNoble(digest: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1 | 2 | 3): Uint8Array {
  return secp256k1.Signature.fromBytes(signature, 'compact').addRecoveryBit(recoveryId).recoverPublicKey(digest).toBytes(true);
}

/** Whether a host registered its recovery (the service's start does). */
export const ecdsaRecoveryRegistered = (): boolean => registered !== undefined;
