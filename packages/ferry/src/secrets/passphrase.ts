// Where the passphrase of Ferry's sealed secrets comes from, in this order: a file (secrets.passphraseFile or
// FERRY_PASSPHRASE_FILE; systemd's LoadCredential= puts one in $CREDENTIALS_DIRECTORY), the FERRY_PASSPHRASE
// variable, or a question on the terminal when Ferry runs on one. The passphrase is never logged, and the variable is
// removed from Ferry's environment once read, so no child process (a devnet daemon, a tool) inherits it.
import { readFileSync } from 'node:fs';

export class PassphraseError extends Error {}

export interface Passphrase {
  value: string;
  /** Where it came from, for messages: "file /etc/ferry/passphrase", "FERRY_PASSPHRASE", "the terminal". */
  from: string;
}

/** The passphrase of a file or the environment, or undefined when neither gives one (no question asked). */
export function givenPassphrase(passphraseFile: string, env: NodeJS.ProcessEnv = process.env): Passphrase | undefined {
  const fromEnvironment = env.FERRY_PASSPHRASE;
  delete env.FERRY_PASSPHRASE; // read or not, no child process gets it
  if (passphraseFile !== '') {
    let text: string;
    try {
      text = readFileSync(passphraseFile, 'utf8');
    } catch (error) {
      throw new PassphraseError(`cannot read the passphrase file ${passphraseFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    // One trailing line break is the editor's, not the passphrase's.
    const value = text.replace(/\r?\n$/, '');
    if (value === '') throw new PassphraseError(`the passphrase file ${passphraseFile} is empty`);
    return { value, from: `file ${passphraseFile}` };
  }
  if (fromEnvironment === undefined || fromEnvironment === '') return undefined;
  return { value: fromEnvironment, from: 'FERRY_PASSPHRASE' };
}

/** Whether a question can be asked: both ends of the conversation are a terminal. */
export const canAsk = (): boolean => process.stdin.isTTY === true && process.stderr.isTTY === true;

/** Asks on the terminal without echoing what is typed (stderr, so stdout stays the command's output). */
export function askPassphrase(question: string): Promise<string> {
  const input = process.stdin;
  return new Promise((resolve, reject) => {
    // Echo goes off before the question shows: what is typed once it is on the screen is never displayed.
    input.setRawMode(true);
    process.stderr.write(question);
    let typed = '';
    const done = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new PassphraseError('interrupted'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    input.resume();
    input.on('data', onData);
  });
}
