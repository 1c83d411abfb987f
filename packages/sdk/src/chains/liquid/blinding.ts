// SLIP-77 blinding keys: one master blinding key from the wallet's BIP39 seed, and from it each output script's
// own blinding key pair. Ferry blinds each swap lockup to blindingKeyForScript(master, lockupScript), so it can
// always re-derive the key that unblinds the lockup and never stores it; elementsd's wallets derive theirs alike.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { KeyPair } from '../../keys/index.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * SLIP-77: root = HMAC-SHA512(key "Symmetric key seed", seed); node = HMAC-SHA512(key root[0..32],
 * 0x00 || "SLIP-0077"); the master blinding key is node[32..64]. This is what liquidjs-lib's slip77 does.
 */
export function masterBlindingKeyFromSeed(seed: Uint8Array): Uint8Array {
  const root = hmac(sha512, utf8('Symmetric key seed'), seed);
  const node = hmac(sha512, root.subarray(0, 32), Uint8Array.of(0, ...utf8('SLIP-0077')));
  return node.slice(32, 64);
}

/**
 * A script's blinding key pair: the private key is HMAC-SHA256(key master blinding key, scriptPubKey), as SLIP-77
 * and elementsd's CWallet::GetBlindingKey both derive it (elementsd keeps its master key from `dumpmasterblindingkey`).
 */
export function blindingKeyForScript(masterBlindingKey: Uint8Array, script: Uint8Array): KeyPair {
  const privateKey = hmac(sha256, masterBlindingKey, script);
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}
