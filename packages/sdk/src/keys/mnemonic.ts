// BIP39 mnemonics checked against the English word list (with their checksum), on @scure/bip39: pure, so the client
// SDK shares it in a browser; the operator's mnemonic file is mnemonic-file.ts's.
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

export class MnemonicError extends Error {}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic, wordlist);
}
