// The operator's BIP39 mnemonic on disk: every swap key derives from it, so it is created once, kept in a file only
// the operator's user can read, and never regenerated over an existing file. Node only: the words themselves are
// mnemonic.ts's, which the client SDK shares.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isValidMnemonic, MnemonicError } from '@ferry/sdk/keys/mnemonic.js';

/** Reads the mnemonic at `path`, or creates a 24-word one there (mode 0600) when the file does not exist. */
export function loadOrCreateMnemonic(path: string): string {
  if (existsSync(path)) {
    const mnemonic = readFileSync(path, 'utf8').trim().split(/\s+/).join(' ');
    if (!isValidMnemonic(mnemonic)) throw new MnemonicError(`${path} does not hold a valid BIP39 mnemonic`);
    // A copy restored with lax permissions is tightened rather than refused.
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return mnemonic;
  }
  mkdirSync(dirname(path), { recursive: true });
  const mnemonic = generateMnemonic(wordlist, 256);
  // 'wx' fails if another process created the file meanwhile, instead of overwriting its keys.
  writeFileSync(path, mnemonic + '\n', { mode: 0o600, flag: 'wx' });
  return mnemonic;
}
