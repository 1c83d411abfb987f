// The rescue key: one mnemonic from which the client derives every swap's key (m/44/0/0/0/index, the reference's
// path) and, for swaps it claims, the preimage (SHA256 of that key, as the reference recommends). With it alone a
// wallet that lost its store asks the service for its swaps by xpub (POST /v2/swap/restore) and can claim and
// refund them all again.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as sha256Hash } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { keyPairOf, sha256, type KeyPair } from './keys.ts';

export const RESCUE_DERIVATION_PATH = 'm/44/0/0/0';

export class RescueKey {
  private readonly root: HDKey;
  private readonly account: HDKey;

  private constructor(readonly mnemonic: string) {
    this.root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
    this.account = this.root.derive(RESCUE_DERIVATION_PATH);
  }

  static generate(): RescueKey {
    return new RescueKey(generateMnemonic(wordlist, 128));
  }

  /** A BIP39 English mnemonic; anything else is refused without echoing it (it is a secret). */
  static fromMnemonic(mnemonic: string): RescueKey {
    const words = mnemonic.trim().split(/\s+/).join(' ');
    if (!validateMnemonic(words, wordlist)) throw new Error('not a valid BIP39 mnemonic (English word list, with its checksum)');
    return new RescueKey(words);
  }

  /** The root's xpub, which the service derives RESCUE_DERIVATION_PATH/index from (as the reference's web app sends it). */
  get xpub(): string {
    return this.root.publicExtendedKey;
  }

  keyAt(index: number): KeyPair {
    if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 31) throw new Error(`not a key index: ${index}`);
    return keyPairOf(this.account.deriveChild(index).privateKey!);
  }

  /**
   * The key a browser wallet's EVM account derives its reverse swaps' preimages from (InjectedEvmAccount's
   * preimageKey): the wallet keeps its own key, so the rescue key stands in for it. A domain of its own: it reveals
   * nothing of the swap keys, and they nothing of it.
   */
  contractPreimageKey(): Uint8Array {
    return hmac(sha256Hash, this.root.privateKey!, utf8ToBytes('ferry/contract-preimage-key'));
  }

  /** The preimage of a swap whose key is at `index`: SHA256 of the private key, so it can be derived again. */
  preimageAt(index: number): { preimage: Uint8Array; preimageHash: Uint8Array } {
    const preimage = sha256(this.keyAt(index).privateKey);
    return { preimage, preimageHash: sha256(preimage) };
  }
}
