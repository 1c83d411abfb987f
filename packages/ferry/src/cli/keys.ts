// `ferry keys`: the operator's secrets at rest (src/secrets). `encrypt` seals the mnemonic and the HMAC keys Ferry
// made in the data directory with a passphrase, `decrypt` turns them back into plain text, `show-xpub` prints the
// extended public key every swap key derives from (for watching or restoring by xpub), opening the mnemonic as
// `ferry start` does; `rotate` changes the passphrase of the encrypted ones. Files are replaced whole (a new file
// written and flushed, then renamed over the old), never left half written.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FerryConfig } from '../config/index.ts';
import { silentLogger } from '../log/index.ts';
import { generatedSecretPaths, mnemonicPathOf, SecretsAtRest, SecretsRefused } from '../secrets/at-rest.ts';
import { askPassphrase, canAsk, givenPassphrase, PassphraseError } from '../secrets/passphrase.ts';
import { isSealed, seal } from '../secrets/sealed.ts';

export const keysUsage = `keys (the operator's secrets at rest; the passphrase from secrets.passphraseFile / FERRY_PASSPHRASE_FILE,
FERRY_PASSPHRASE, or asked on a terminal):
  ferry keys encrypt      encrypt the mnemonic and <dataDir>/webhook-secret, alerts-webhook-secret (scrypt, XChaCha20-Poly1305)
  ferry keys decrypt      back to plain text (a mainnet Ferry then refuses to start unless secrets.allowPlaintextMainnet)
  ferry keys show-xpub    the xpub every swap key derives from, and its path
  ferry keys rotate       change the passphrase: the current one as above, the new one from FERRY_NEW_PASSPHRASE_FILE,
                          FERRY_NEW_PASSPHRASE, or asked twice on a terminal
`;

/** Writes `text` to `path`.new (0600) and flushes it to disk: the next step renames it over `path`. */
function stageFile(path: string, text: string): string {
  const next = `${path}.new`;
  rmSync(next, { force: true });
  writeFileSync(next, text, { mode: 0o600, flag: 'wx' });
  const fd = openSync(next, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return next;
}

/** Renames a staged file into place and flushes the directory, so the rename survives a power cut. */
function commitFile(path: string, staged: string): void {
  renameSync(staged, path);
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` over `path` through a new file renamed into place (0600). */
function replaceFile(path: string, text: string): void {
  commitFile(path, stageFile(path, text));
}

/** The passphrase to seal with: given, or asked twice on a terminal. */
async function newPassphrase(config: FerryConfig): Promise<string> {
  const given = givenPassphrase(config.secrets.passphraseFile);
  if (given !== undefined) return given.value;
  if (!canAsk()) throw new SecretsRefused('no passphrase: give it with secrets.passphraseFile (FERRY_PASSPHRASE_FILE) or FERRY_PASSPHRASE, or run on a terminal to be asked');
  const first = await askPassphrase('new passphrase: ');
  if (first === '') throw new SecretsRefused('an empty passphrase encrypts nothing');
  if ((await askPassphrase('the same again: ')) !== first) throw new SecretsRefused('the two passphrases differ: nothing was encrypted');
  return first;
}

const present = (config: FerryConfig): string[] => [mnemonicPathOf(config), ...generatedSecretPaths(config)].filter((path) => existsSync(path));

async function encrypt(config: FerryConfig): Promise<number> {
  const plain = present(config).filter((path) => !isSealed(readFileSync(path, 'utf8')));
  if (!existsSync(mnemonicPathOf(config))) throw new SecretsRefused(`no mnemonic at ${mnemonicPathOf(config)} (ferry start makes one; with a passphrase given, encrypted)`);
  if (plain.length === 0) {
    process.stdout.write('every secret is encrypted already (ferry keys decrypt, then encrypt, to change the passphrase)\n');
    return 0;
  }
  const passphrase = await newPassphrase(config);
  for (const path of plain) {
    replaceFile(path, await seal(readFileSync(path, 'utf8').trim(), passphrase));
    process.stdout.write(`encrypted ${path}\n`);
  }
  return 0;
}

async function decrypt(config: FerryConfig): Promise<number> {
  const secrets = new SecretsAtRest(config, silentLogger);
  const sealed = present(config).filter((path) => isSealed(readFileSync(path, 'utf8')));
  if (sealed.length === 0) {
    process.stdout.write('no encrypted secret found\n');
    return 0;
  }
  // Every file is opened before any is written: a wrong passphrase changes nothing.
  const opened = [];
  for (const path of sealed) opened.push({ path, text: (await secrets.read(path)).text.trim() });
  for (const { path, text } of opened) {
    replaceFile(path, text + '\n');
    process.stdout.write(`decrypted ${path}\n`);
  }
  return 0;
}

/** The new passphrase of a rotation: FERRY_NEW_PASSPHRASE_FILE, FERRY_NEW_PASSPHRASE, or asked twice. */
async function rotatedPassphrase(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = env.FERRY_NEW_PASSPHRASE_FILE ?? '';
  const given = givenPassphrase(file, { FERRY_PASSPHRASE: env.FERRY_NEW_PASSPHRASE });
  delete env.FERRY_NEW_PASSPHRASE;
  if (given !== undefined) return given.value;
  if (!canAsk()) throw new SecretsRefused('no new passphrase: give it with FERRY_NEW_PASSPHRASE_FILE or FERRY_NEW_PASSPHRASE, or run on a terminal to be asked');
  const first = await askPassphrase('new passphrase: ');
  if (first === '') throw new SecretsRefused('an empty passphrase encrypts nothing: nothing was changed');
  if ((await askPassphrase('the same again: ')) !== first) throw new SecretsRefused('the two passphrases differ: nothing was changed');
  return first;
}

async function rotate(config: FerryConfig): Promise<number> {
  const sealed = present(config).filter((path) => isSealed(readFileSync(path, 'utf8')));
  if (sealed.length === 0) throw new SecretsRefused('no encrypted secret found: nothing to rotate (ferry keys encrypt seals them)');
  // Every file is opened with the current passphrase, then sealed with the new one and staged beside it, before any
  // is renamed into place: a wrong passphrase, or a failure while staging, leaves every file as it was.
  const secrets = new SecretsAtRest(config, silentLogger);
  const opened = [];
  for (const path of sealed) opened.push({ path, text: (await secrets.read(path)).text.trim() });
  secrets.forget();
  const passphrase = await rotatedPassphrase();
  const staged: { path: string; next: string }[] = [];
  try {
    for (const { path, text } of opened) staged.push({ path, next: stageFile(path, await seal(text, passphrase)) });
  } catch (error) {
    for (const { next } of staged) rmSync(next, { force: true });
    throw error;
  }
  for (const { path, next } of staged) {
    commitFile(path, next);
    process.stdout.write(`rotated ${path}\n`);
  }
  return 0;
}

async function showXpub(config: FerryConfig): Promise<number> {
  if (!existsSync(mnemonicPathOf(config))) throw new SecretsRefused(`no mnemonic at ${mnemonicPathOf(config)}`);
  const secrets = new SecretsAtRest(config, silentLogger);
  const mnemonic = (await secrets.read(mnemonicPathOf(config))).text.trim().split(/\s+/).join(' ');
  const [{ HDKey }, { mnemonicToSeedSync }, { accountPath }] = await Promise.all([import('@scure/bip32'), import('@scure/bip39'), import('@ferry/sdk/keys/swap-keys.js')]);
  // BIP32's version bytes: xpub on mainnet, tpub on the test networks.
  const versions = config.network === 'mainnet' ? undefined : { private: 0x04358394, public: 0x043587cf };
  const path = accountPath(config.network);
  const account = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic), versions).derive(path);
  process.stdout.write(`${account.publicExtendedKey}\n`);
  process.stderr.write(`path ${path} (${config.network}): swap key N is its child N\n`);
  return 0;
}

/** Runs `ferry keys SUB`; 2 on a usage mistake, 1 when refused (wrong passphrase, none given, no mnemonic). */
export async function runKeysCommand(sub: string | undefined, config: FerryConfig): Promise<number> {
  const commands: Record<string, (config: FerryConfig) => Promise<number>> = { encrypt, decrypt, 'show-xpub': showXpub, rotate };
  const command = sub === undefined ? undefined : commands[sub];
  if (command === undefined) {
    process.stderr.write(keysUsage);
    return 2;
  }
  try {
    return await command(config);
  } catch (error) {
    if (!(error instanceof SecretsRefused) && !(error instanceof PassphraseError)) throw error;
    process.stderr.write(`ferry keys ${sub}: ${error.message}\n`);
    return 1;
  }
}
