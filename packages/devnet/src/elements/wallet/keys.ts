// An Elements wallet's keys: BIP32 signing keys from one seed (as the Bitcoin devnet wallet's keys.ts) and the
// SLIP-77 master blinding key from the same seed (Ferry's src/chains/liquid/blinding.ts), from which each output
// script gets its own blinding key pair.
import { HDKey } from '@scure/bip32';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bip341, type Secp256k1Interface } from 'liquidjs-lib';
import { blindingKeyForScript, masterBlindingKeyFromSeed } from '@ferry/sdk/chains/liquid/blinding.js';
import type { KeyPair } from '@ferry/sdk/keys/index.js';

export { blindingKeyForScript, masterBlindingKeyFromSeed };
export type { KeyPair };

/** P2WPKH (BIP84 path) and P2TR key path (BIP86 path), elementsd's `bech32` and `bech32m` address types. */
export type ElementsAddressKind = 'bech32' | 'bech32m';
export const ELEMENTS_ADDRESS_KINDS: readonly ElementsAddressKind[] = ['bech32', 'bech32m'];
const PURPOSE: Record<ElementsAddressKind, number> = { bech32: 84, bech32m: 86 };

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
