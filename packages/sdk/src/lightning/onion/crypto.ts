// The primitives BOLT 4's Sphinx packets and route blinding share: ECDH as Lightning defines it (SHA256 of the
// compressed shared point), keys derived by HMAC-SHA256 with a name as the key ("rho", "mu", "pad",
// "blinded_node_id"), the ChaCha20 stream with a zero nonce, and scalar/point multiplication by a tweak.
import { chacha20, chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';

export class OnionError extends Error {}

const Point = secp256k1.Point;
const ORDER = Point.Fn.ORDER;
const ZERO_NONCE = new Uint8Array(12);

/** SHA256 of the compressed point `secret`·`point`. */
export function ecdh(secret: Uint8Array, point: Uint8Array): Uint8Array {
  return sha256(secp256k1.getSharedSecret(secret, point, true));
}

export const deriveKey = (name: 'rho' | 'mu' | 'pad' | 'um' | 'ammag' | 'blinded_node_id', sharedSecret: Uint8Array): Uint8Array =>
  hmac(sha256, new TextEncoder().encode(name), sharedSecret);

/** `length` bytes of ChaCha20 keystream under `key` with the all-zero nonce. */
export const keystream = (key: Uint8Array, length: number): Uint8Array => chacha20(key, ZERO_NONCE, new Uint8Array(length));

export const seal = (key: Uint8Array, plaintext: Uint8Array): Uint8Array => chacha20poly1305(key, ZERO_NONCE).encrypt(plaintext);

export function open(key: Uint8Array, sealed: Uint8Array): Uint8Array {
  try {
    return chacha20poly1305(key, ZERO_NONCE).decrypt(sealed);
  } catch {
    throw new OnionError('encrypted_recipient_data does not decrypt');
  }
}

export function publicKeyOf(secret: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(secret, true);
}

/** secret · tweak mod n (a 32-byte tweak such as a blinding factor). */
export function multiplySecret(secret: Uint8Array, tweak: Uint8Array): Uint8Array {
  const product = (bytesToNumberBE(secret) * bytesToNumberBE(tweak)) % ORDER;
  if (product === 0n) throw new OnionError('tweak gives the zero key');
  return numberToBytesBE(product, 32);
}

/** point · tweak, compressed. */
export function multiplyPoint(point: Uint8Array, tweak: Uint8Array): Uint8Array {
  return pointOf(point).multiply(bytesToNumberBE(tweak) % ORDER).toBytes(true);
}

function pointOf(bytes: Uint8Array) {
  try {
    return Point.fromBytes(bytes);
  } catch {
    throw new OnionError('not a public key');
  }
}

/** The public key is a valid compressed point. */
export function checkPoint(bytes: Uint8Array, name: string): Uint8Array {
  if (bytes.length !== 33) throw new OnionError(`${name}: not a 33-byte public key`);
  pointOf(bytes);
  return bytes;
}

/** The factor a path key or ephemeral key is multiplied by for the next hop: SHA256(key ‖ shared secret). */
export const blindingFactor = (key: Uint8Array, sharedSecret: Uint8Array): Uint8Array => sha256(new Uint8Array([...key, ...sharedSecret]));

export function xorInto(target: Uint8Array, stream: Uint8Array, streamOffset = 0): void {
  for (let i = 0; i < target.length; i++) target[i] ^= stream[streamOffset + i];
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
