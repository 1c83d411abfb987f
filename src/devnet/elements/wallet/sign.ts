// Signing a blinded PSET's P2WPKH inputs with Elements' segwit v0 sighash (BIP143 over the Elements serialization:
// asset and value commitments, nonces, issuance), then finalizing the witnesses and extracting the transaction.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Extractor, Finalizer, Pset, Signer, Transaction } from 'liquidjs-lib';
import type { KeyPair } from './keys.ts';

/** ECDSA check of a DER signature (no sighash byte) against a 32-byte sighash, low-S as elementsd requires. */
export const verifyEcdsa = (publicKey: Uint8Array, sighash: Uint8Array, der: Uint8Array): boolean =>
  secp256k1.verify(der, sighash, publicKey, { prehash: false, format: 'der' });

/** liquidjs-lib hands its validators the decoded 64-byte r||s signature. */
const validator = (publicKey: Buffer, sighash: Buffer, compact: Buffer): boolean =>
  secp256k1.verify(compact, sighash, publicKey, { prehash: false, format: 'compact' });

/** Signs input `index` (a P2WPKH coin of `key`) with SIGHASH_ALL; the sighash covers the final blinded outputs. */
export function signP2wpkhInput(pset: Pset, index: number, key: KeyPair): void {
  const sighash = pset.getInputPreimage(index, Transaction.SIGHASH_ALL);
  const der = secp256k1.sign(sighash, key.privateKey, { prehash: false, format: 'der' });
  const signature = Buffer.concat([der, Buffer.of(Transaction.SIGHASH_ALL)]);
  new Signer(pset).addSignature(index, { partialSig: { pubkey: Buffer.from(key.publicKey), signature } }, validator);
}

/** Witnesses `[signature, pubkey]` for every signed input, then the network transaction. */
export function finalizeTransaction(pset: Pset): Transaction {
  new Finalizer(pset).finalize();
  return Extractor.extract(pset);
}
