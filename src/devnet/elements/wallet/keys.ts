// An Elements wallet's keys: BIP32 signing keys from one seed (as the Bitcoin devnet wallet's keys.ts) and the
// SLIP-77 master blinding key from the same seed, from which each output script gets its own blinding key pair.
import { HDKey } from '@scure/bip32';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bip341, type Secp256k1Interface } from 'liquidjs-lib';

/** P2WPKH (BIP84 path) and P2TR key path (BIP86 path), elementsd's `bech32` and `bech32m` address types. */
export type ElementsAddressKind = 'bech32' | 'bech32m';
export const ELEMENTS_ADDRESS_KINDS: readonly ElementsAddressKind[] = ['bech32', 'bech32m'];
const PURPOSE: Record<ElementsAddressKind, number> = { bech32: 84, bech32m: 86 };

export interface KeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array; // 33-byte compressed
}

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
 * A script's blinding private key: HMAC-SHA256(key master blinding key, scriptPubKey), as SLIP-77 and
 * elementsd's CWallet::GetBlindingKey both derive it (elementsd keeps its master key from `dumpmasterblindingkey`).
 */
export function blindingKeyForScript(masterBlindingKey: Uint8Array, script: Uint8Array): KeyPair {
  const privateKey = hmac(sha256, masterBlindingKey, script);
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

/** RIPEMD160(SHA256(data)): the P2WPKH program of a public key. */
export const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data));

export class ElementsKeys {
  private readonly root: HDKey;
  readonly masterBlindingKey: Uint8Array;
  private readonly taproot: ReturnType<typeof bip341.BIP341Factory>;

  constructor(seed: Uint8Array, ecc: Secp256k1Interface['ecc']) {
    this.root = HDKey.fromMasterSeed(seed);
    this.masterBlindingKey = masterBlindingKeyFromSeed(seed);
    this.taproot = bip341.BIP341Factory(ecc as unknown as Parameters<typeof bip341.BIP341Factory>[0]);
  }

  get fingerprint(): string {
    return this.root.fingerprint.toString(16).padStart(8, '0');
  }

  /** The path of a key: m/purpose'/1'/0'/branch/index (coin type 1 as elementsd uses off mainnet). */
  path(kind: ElementsAddressKind, branch: number, index: number): string {
    return `m/${PURPOSE[kind]}'/1'/0'/${branch}/${index}`;
  }

  derive(kind: ElementsAddressKind, branch: number, index: number): KeyPair {
    const child = this.root.derive(this.path(kind, branch, index));
    return { privateKey: child.privateKey!, publicKey: child.publicKey! };
  }

  /** P2WPKH `0014<hash160>`, or P2TR `5120<Q>` with Elements' "TapTweak/elements" key-path tweak. */
  outputScript(kind: ElementsAddressKind, publicKey: Uint8Array): Uint8Array {
    if (kind === 'bech32') return Uint8Array.of(0x00, 0x14, ...hash160(publicKey));
    return new Uint8Array(this.taproot.taprootOutputScript(Buffer.from(publicKey)));
  }

  blindingKey(script: Uint8Array): KeyPair {
    return blindingKeyForScript(this.masterBlindingKey, script);
  }
}
