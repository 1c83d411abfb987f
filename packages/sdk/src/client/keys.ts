// Keys and preimages the client generates and keeps: the service never sees a private key or a preimage
// before the client chooses to reveal it.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';

export interface KeyPair {
  privateKey: Uint8Array;
  /** 33 bytes, compressed. */
  publicKey: Uint8Array;
}

export function newKeyPair(): KeyPair {
  return keyPairOf(secp256k1.utils.randomSecretKey());
}

export function keyPairOf(privateKey: Uint8Array): KeyPair {
  if (!secp256k1.utils.isValidSecretKey(privateKey)) throw new Error('not a valid secp256k1 private key');
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

/** A fresh 32-byte preimage (the only length a swap accepts) and its SHA256. */
export function newPreimage(): { preimage: Uint8Array; preimageHash: Uint8Array } {
  const preimage = randomBytes(32);
  return { preimage, preimageHash: sha256(preimage) };
}

export { sha256 };

export const toHex = (bytes: Uint8Array): string => hex.encode(bytes);

/** Lower- or upper-case hex of an exact length in bytes (any length when omitted). */
export function fromHex(text: unknown, what: string, bytes?: number): Uint8Array {
  if (typeof text !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(text) || (bytes !== undefined && text.length !== bytes * 2)) {
    throw new Error(`${what} is not ${bytes !== undefined ? `${bytes} bytes of ` : ''}hex: ${JSON.stringify(text)?.slice(0, 80)}`);
  }
  return hex.decode(text.toLowerCase());
}

/** A 33-byte compressed public key that is a point on the curve. */
export function publicKeyFromHex(text: unknown, what: string): Uint8Array {
  const key = fromHex(text, what, 33);
  try {
    secp256k1.Point.fromBytes(key);
  } catch {
    throw new Error(`${what} is not a valid public key: ${text}`);
  }
  return key;
}

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);
