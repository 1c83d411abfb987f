// One key per swap, derived from the operator's mnemonic at an index that is never reused (the counter in
// storage hands out each index once). Knowing the index is enough to re-derive a swap's key after a restart.
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { isValidMnemonic, MnemonicError } from './mnemonic.ts';

export interface KeyPair {
  privateKey: Uint8Array;
  /** 33-byte compressed. */
  publicKey: Uint8Array;
}

export type Network = 'mainnet' | 'testnet' | 'signet' | 'regtest';

/** m/44'/coin'/0'/0: BIP44 coin type 0 on mainnet and 1 elsewhere; swap keys are its children. */
const accountPath = (network: Network): string => `m/44'/${network === 'mainnet' ? 0 : 1}'/0'/0`;

export function swapKeyPath(network: Network, index: number): string {
  return `${accountPath(network)}/${index}`;
}

export class SwapKeys {
  private readonly account: HDKey;

  private constructor(
    root: HDKey,
    readonly network: Network,
  ) {
    this.account = root.derive(accountPath(network));
  }

  static fromMnemonic(mnemonic: string, network: Network): SwapKeys {
    if (!isValidMnemonic(mnemonic)) throw new MnemonicError('invalid BIP39 mnemonic');
    return new SwapKeys(HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)), network);
  }

  keyAt(index: number): KeyPair {
    if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError(`invalid key index ${index}`);
    const child = this.account.deriveChild(index);
    const { privateKey, publicKey } = child;
    if (privateKey === null || publicKey === null) throw new Error('derived key has no private key');
    // The child computed its compressed public key already: a second multiplication cost as much as the derivation.
    return { privateKey, publicKey };
  }
}
