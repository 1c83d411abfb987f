// Signing a blinded PSET's inputs: P2WPKH with Elements' segwit v0 sighash (BIP143 over the Elements serialization:
// asset and value commitments, nonces, issuance), P2TR key path with Elements' taproot sighash ("TapSighash/elements",
// committing to the chain's genesis hash); then finalizing the witnesses and extracting the transaction.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { Extractor, Finalizer, Pset, Signer, Transaction, bip341 } from 'liquidjs-lib';
import type { KeyPair } from './keys.ts';
import type { Zkp } from './network.ts';

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

/**
 * Signs input `index` (a P2TR coin of `key`, key path) with SIGHASH_DEFAULT: a 64-byte Schnorr signature by the
 * key tweaked with "TapTweak/elements". `genesisBlockHash` is in internal byte order, as liquidjs-lib's networks.
 */
export function signP2trKeyPathInput(
  zkp: Zkp, pset: Pset, index: number, key: KeyPair, genesisBlockHash: Uint8Array,
): void {
  const genesis = Buffer.from(genesisBlockHash);
  const sighash = pset.getInputPreimage(index, Transaction.SIGHASH_DEFAULT, genesis);
  const taproot = bip341.BIP341Factory(zkp.ecc as unknown as Parameters<typeof bip341.BIP341Factory>[0]);
  const signature = taproot.taprootSignKey(sighash, Buffer.from(key.privateKey));
  const check = (outputKey: Buffer, hash: Buffer, sig: Buffer): boolean =>
    schnorr.verify(sig.subarray(0, 64), hash, outputKey);
  new Signer(pset).addSignature(index, { tapKeySig: signature, genesisBlockHash: genesis }, check);
}

/** Witnesses `[signature, pubkey]` for every signed input, then the network transaction. */
export function finalizeTransaction(pset: Pset): Transaction {
  new Finalizer(pset).finalize();
  return Extractor.extract(pset);
}
