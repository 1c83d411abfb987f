// The secrets Ferry keeps in files, read as they are at rest: in plain text (the devnet's default) or sealed with the
// operator's passphrase (sealed.ts). The mnemonic is the one that matters: every swap key, Liquid's blinding key and
// the EVM account derive from it. On mainnet Ferry refuses a plaintext mnemonic unless the operator said so
// (secrets.allowPlaintextMainnet), and makes a new one sealed when a passphrase is given. The passphrase is asked for
// at most once per start and dropped (forget) once start-up has read what it needed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { FerryConfig } from '../config/index.ts';
import { loadOrCreateMnemonic } from '../keys/mnemonic-file.ts';
import { isValidMnemonic } from '@ferry/sdk/keys/mnemonic.js';
import type { Logger } from '../log/index.ts';
import { askPassphrase, canAsk, givenPassphrase, type Passphrase } from './passphrase.ts';
import { isSealed, seal, SealedFileError, unseal, WrongPassphrase } from './sealed.ts';

/** Ferry will not go on with its secrets as they are: the message says what to do. */
export class SecretsRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsRefused';
  }
}

/** Where the operator's mnemonic is kept. */
export const mnemonicPathOf = (config: FerryConfig): string => config.swap.mnemonicPath || join(config.dataDir, 'mnemonic');

/** The other secrets Ferry makes itself in the data directory (HMAC keys of webhook and alert calls). */
export const generatedSecretPaths = (config: FerryConfig): string[] => [join(config.dataDir, 'webhook-secret'), join(config.dataDir, 'alerts-webhook-secret')];

const HOW = 'give it with secrets.passphraseFile (FERRY_PASSPHRASE_FILE) or FERRY_PASSPHRASE, or run Ferry on a terminal to be asked';

export class SecretsAtRest {
  private passphrase: Passphrase | undefined;

  constructor(
    private readonly config: FerryConfig,
    private readonly logger: Logger,
    /** Asks for the passphrase when none was given; undefined: never ask. */
    private readonly ask: ((question: string) => Promise<string>) | undefined = canAsk() ? askPassphrase : undefined,
  ) {
    this.passphrase = givenPassphrase(config.secrets.passphraseFile);
  }

  /** Whether a sealed file can be opened: a passphrase is at hand, or a terminal to ask for it. */
  get canOpenSealed(): boolean {
    return this.passphrase !== undefined || this.ask !== undefined;
  }

  /** Whether a passphrase is at hand without asking (new secrets are then made sealed). */
  get sealsNewSecrets(): boolean {
    return this.passphrase !== undefined;
  }

  private async passphraseFor(path: string): Promise<Passphrase> {
    if (this.passphrase !== undefined) return this.passphrase;
    if (this.ask === undefined) throw new SecretsRefused(`${path} is encrypted and no passphrase was given: ${HOW}`);
    this.passphrase = { value: await this.ask(`passphrase of ${path}: `), from: 'the terminal' };
    return this.passphrase;
  }

  /** The text of a secret file, opened with the passphrase when it is sealed. */
  async read(path: string): Promise<{ text: string; sealed: boolean }> {
    const text = readFileSync(path, 'utf8');
    if (!isSealed(text)) return { text, sealed: false };
    const passphrase = await this.passphraseFor(path);
    try {
      return { text: await unseal(text, passphrase.value, path), sealed: true };
    } catch (error) {
      if (error instanceof WrongPassphrase) throw new SecretsRefused(`${error.message}: the passphrase from ${passphrase.from} does not open it`);
      if (error instanceof SealedFileError) throw new SecretsRefused(error.message);
      throw error;
    }
  }

  /** Writes a new secret file (0600, never over an existing one): sealed when a passphrase is at hand. */
  async create(path: string, secret: string): Promise<void> {
    mkdirSync(dirname(path), { recursive: true });
    const text = this.passphrase ? await seal(secret, this.passphrase.value) : secret + '\n';
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
  }

  /** The operator's mnemonic: read (and opened), or made on the first start; refused on mainnet in plain text. */
  async mnemonic(): Promise<string> {
    const path = mnemonicPathOf(this.config);
    const mainnet = this.config.network === 'mainnet';
    const allowed = this.config.secrets.allowPlaintextMainnet;
    if (!existsSync(path)) {
      if (this.passphrase) {
        const mnemonic = generateMnemonic(wordlist, 256);
        await this.create(path, mnemonic);
        this.logger.info('mnemonic created, encrypted', { path, passphrase: this.passphrase.from });
        return mnemonic;
      }
      if (mainnet && !allowed) throw new SecretsRefused(`no mnemonic yet at ${path}, and on mainnet Ferry makes it encrypted only: ${HOW} (or set secrets.allowPlaintextMainnet = true)`);
      return loadOrCreateMnemonic(path);
    }
    const { text, sealed } = await this.read(path);
    if (!sealed) {
      if (mainnet && !allowed) throw new SecretsRefused(`the mnemonic ${path} is in plain text: on mainnet encrypt it first (ferry keys encrypt), or set secrets.allowPlaintextMainnet = true`);
      if (mainnet) this.logger.warn('the mnemonic is in plain text on mainnet (secrets.allowPlaintextMainnet)', { path });
      return loadOrCreateMnemonic(path); // checks the words and tightens the file's mode
    }
    const mnemonic = text.trim().split(/\s+/).join(' ');
    if (!isValidMnemonic(mnemonic)) throw new SecretsRefused(`${path} opens, but does not hold a valid BIP39 mnemonic`);
    this.logger.info('mnemonic decrypted', { path, passphrase: this.passphrase!.from });
    return mnemonic;
  }

  /** A secret Ferry generates (an HMAC key): read, or made and kept at `path`. */
  async generated(path: string, make: () => string): Promise<string> {
    if (existsSync(path)) return (await this.read(path)).text.trim();
    const secret = make();
    await this.create(path, secret);
    return secret;
  }

  /** Drops the passphrase: what start-up needed is read. */
  forget(): void {
    this.passphrase = undefined;
  }
}
