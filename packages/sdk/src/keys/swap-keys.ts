// One key per swap, derived from the operator's mnemonic at an index that is never reused (the counter in
// storage hands out each index once). Knowing the index is enough to re-derive a swap's key after a restart.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { libsecp256k1 } from './libsecp256k1.ts';
import { isValidMnemonic, MnemonicError } from './mnemonic.ts';

export interface KeyPair {
  privateKey: Uint8Array;
  /** 33-byte compressed. */
  publicKey: Uint8Array;
}

export type Network = 'mainnet' | 'testnet' | 'signet' | 'regtest';

/** m/44'/coin'/0'/0: BIP44 coin type 0 on mainnet and 1 elsewhere; swap keys are its children. */
export const accountPath = (network: Network): string => `m/44'/${network === 'mainnet' ? 0 : 1}'/0'/0`;

export function swapKeyPath(network: Network, index: number): string {
  return `${accountPath(network)}/${index}`;
}

const ORDER = secp256k1.Point.Fn.ORDER;

export class SwapKeys {
  private readonly account: HDKey;
  /** The account's parts, read once (HDKey's getters copy): what a child derivation hashes and adds. */
  private readonly accountPublicKey: Uint8Array;
  private readonly accountChainCode: Uint8Array;
  private readonly accountScalar: bigint;

  private constructor(
    root: HDKey,
    readonly network: Network,
  ) {
    this.account = root.derive(accountPath(network));
    this.accountPublicKey = this.account.publicKey!;
    this.accountChainCode = this.account.chainCode!;
    this.accountScalar = bytesToNumberBE(this.account.privateKey!);
  }

  static fromMnemonic(mnemonic: string, network: Network): SwapKeys {
    if (!isValidMnemonic(mnemonic)) throw new MnemonicError('invalid BIP39 mnemonic');
    return new SwapKeys(HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)), network);
  }

  keyAt(index: number): KeyPair {
    if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError(`invalid key index ${index}`);
    const fast = this.childWithLibsecp256k1(index);
    if (fast !== undefined) return fast;
    const child = this.account.deriveChild(index);
    const { privateKey, publicKey } = child;
    if (privateKey === null || publicKey === null) throw new Error('derived key has no private key');
    // The child computed its compressed public key already: a second multiplication cost as much as the derivation.
    return { privateKey, publicKey };
  }

  /**
   * BIP32's private child derivation for a non-hardened index, the child's public point in libsecp256k1 (scure
   * computes it in noble, ~0.4 ms). Undefined when the library is not loaded, and in BIP32's rare invalid case
   * (I_L ≥ n or a zero key, odds ~2^-127), which scure's deriveChild settles by its own rule.
   */
  private childWithLibsecp256k1(index: number): KeyPair | undefined {
    const lib = libsecp256k1();
    if (lib === undefined) return undefined;
    const data = new Uint8Array(37);
    data.set(this.accountPublicKey);
    new DataView(data.buffer).setUint32(33, index);
    const tweak = bytesToNumberBE(hmac(sha512, this.accountChainCode, data).subarray(0, 32));
    if (tweak >= ORDER) return undefined;
    const scalar = (this.accountScalar + tweak) % ORDER;
    if (scalar === 0n) return undefined;
    const privateKey = numberToBytesBE(scalar, 32);
    const publicKey = lib.ecc.pointFromScalar(privateKey, true);
    return publicKey === null ? undefined : { privateKey, publicKey };
  }
}
