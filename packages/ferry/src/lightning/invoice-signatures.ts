// The service reads a BOLT11 invoice in every submarine swap's creation and every reverse swap's, and the payee key's
// recovery from its signature was a third of a creation's CPU in noble's JavaScript (~1.1 ms). tiny-secp256k1,
// bitcoinjs' WebAssembly build of libsecp256k1, recovers in ~0.2 ms; the SDK's reader takes it once registered
// (keys/ecdsa-recovery.ts in @ferry/sdk). The SDK itself stays on noble, so a browser bundle carries no second
// WebAssembly build.
import { recover } from 'tiny-secp256k1';
import { useEcdsaRecovery } from '@ferry/sdk/keys/ecdsa-recovery.js';

/** Registers libsecp256k1's recovery with the SDK's BOLT11 reader; idempotent. */
export function useLibsecp256k1Recovery(): void {
  useEcdsaRecovery((digest, signature, recoveryId) => recover(digest, signature, recoveryId, true));
}
