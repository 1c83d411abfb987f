// Proof that a client holds an offer's key, as the reference asks it for subscribing to invoice requests
// ("SUBSCRIBE"), updating an offer's webhook (the new URL, or "UPDATE") and deleting it ("DELETE"): a BIP340
// signature over SHA256 of that text by the offer's signing key, offer_issuer_id. An offer with only blinded
// paths names no key of its own, so its owner cannot prove itself and is refused, as the reference does.
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { offerSigningKey, type Offer } from './offer.ts';
import { xOnly } from './signature.ts';
import { Bolt12Error } from './tlv.ts';

export const OWNER_MESSAGES = { subscribe: 'SUBSCRIBE', update: 'UPDATE', delete: 'DELETE' } as const;

/** The signature's bytes, or a Bolt12Error saying why the text is none. */
export function parseSignatureHex(text: string): Uint8Array {
  if (!/^[0-9a-fA-F]{128}$/.test(text)) throw new Bolt12Error('invalid signature: must be 64 bytes of hex');
  return hex.decode(text.toLowerCase());
}

/** Throws unless `signature` signs SHA256(message) with the offer's signing key. */
export function checkOwnerSignature(offer: Offer, message: string, signature: Uint8Array): void {
  const key = offerSigningKey(offer);
  if (key === undefined) throw new Bolt12Error('offer has no signing key (offer_issuer_id)');
  let valid = false;
  try {
    valid = schnorr.verify(signature, sha256(new TextEncoder().encode(message)), xOnly(key));
  } catch {
    valid = false;
  }
  if (!valid) throw new Bolt12Error('invalid signature');
}

/** What a wallet sends: its signature of SHA256(message) with the offer's key (for tests and clients). */
export function signOwnerMessage(message: string, secretKey: Uint8Array): Uint8Array {
  return schnorr.sign(sha256(new TextEncoder().encode(message)), secretKey);
}
