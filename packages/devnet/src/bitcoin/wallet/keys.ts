// A wallet's keys: one BIP32 seed, one account per address type on regtest's coin type 1
// (BIP44 legacy, BIP49 p2sh-segwit, BIP84 bech32, BIP86 bech32m), receive branch 0 and change branch 1.
import { HDKey } from '@scure/bip32';
import { p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import { toHex } from '../bytes.ts';
import { descriptorWithChecksum } from '../script.ts';

export type AddressKind = 'legacy' | 'p2sh-segwit' | 'bech32' | 'bech32m';
export const ADDRESS_KINDS: readonly AddressKind[] = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'];

const PURPOSE: Record<AddressKind, number> = { legacy: 44, 'p2sh-segwit': 49, bech32: 84, bech32m: 86 };
export const REGTEST_SIGNER_NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

export interface DerivedKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array; // 33-byte compressed
}

export const xOnly = (publicKey: Uint8Array): Uint8Array => publicKey.subarray(1, 33);

export function outputScript(kind: AddressKind, publicKey: Uint8Array): Uint8Array {
  switch (kind) {
    case 'legacy':
      return p2pkh(publicKey, REGTEST_SIGNER_NETWORK).script;
    case 'p2sh-segwit':
      return p2sh(p2wpkh(publicKey, REGTEST_SIGNER_NETWORK), REGTEST_SIGNER_NETWORK).script;
    case 'bech32':
      return p2wpkh(publicKey, REGTEST_SIGNER_NETWORK).script;
    case 'bech32m':
      return p2tr(xOnly(publicKey), undefined, REGTEST_SIGNER_NETWORK).script;
  }
}

export class WalletKeys {
  private readonly root: HDKey;
  private readonly accounts = new Map<AddressKind, HDKey>();
  private readonly cache = new Map<string, DerivedKey>();

  constructor(seed: Uint8Array) {
    this.root = HDKey.fromMasterSeed(seed);
  }

  get fingerprint(): string {
    return this.root.fingerprint.toString(16).padStart(8, '0');
  }

  private account(kind: AddressKind): HDKey {
    let account = this.accounts.get(kind);
    if (!account) {
      account = this.root.derive(`m/${PURPOSE[kind]}'/1'/0'`);
      this.accounts.set(kind, account);
    }
    return account;
  }

  derive(kind: AddressKind, branch: number, index: number): DerivedKey {
    const id = `${kind}/${branch}/${index}`;
    let key = this.cache.get(id);
    if (!key) {
      const child = this.account(kind).deriveChild(branch).deriveChild(index);
      key = { privateKey: child.privateKey!, publicKey: child.publicKey! };
      this.cache.set(id, key);
    }
    return key;
  }

  /** The descriptor Core shows in listunspent for a key of this wallet, with its origin. */
  descriptor(kind: AddressKind, branch: number, index: number, publicKey: Uint8Array): string {
    const origin = `[${this.fingerprint}/${PURPOSE[kind]}h/1h/0h/${branch}/${index}]`;
    const key = kind === 'bech32m' ? origin + toHex(xOnly(publicKey)) : origin + toHex(publicKey);
    const body = { legacy: `pkh(${key})`, 'p2sh-segwit': `sh(wpkh(${key}))`, bech32: `wpkh(${key})`, bech32m: `tr(${key})` }[kind];
    return descriptorWithChecksum(body);
  }
}
