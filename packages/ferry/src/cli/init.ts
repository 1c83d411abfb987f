// `ferry init`: the first configuration for real nodes. It asks for each node's endpoint and credentials (on the
// terminal, passwords and runes without echo; or one answer a line on stdin; `--KEY=VALUE` answers a question
// beforehand, e.g. --bitcoin.rpcUrl=http://127.0.0.1:8332), writes a TOML file whose every key carries the schema's own description
// as a comment, with the embedded devnet off, and then runs `ferry doctor` on it: the exit code is the doctor's.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createInterface as createPrompt } from 'node:readline/promises';
import { stringify } from 'smol-toml';
import { ConfigError, loadConfig } from '../config/index.ts';
import { schema, type Field, type Section } from '../config/schema.ts';
import { askPassphrase } from '../secrets/passphrase.ts';

export const initUsage = `init (a configuration for real nodes, checked by ferry doctor):
  ferry init [--config FILE] [--force] [--json]   asks for the nodes' endpoints (terminal, or one answer a line on
      stdin; --KEY=VALUE answers one beforehand, e.g. --bitcoin.rpcUrl=URL), writes FILE (default ./ferry.toml), runs ferry doctor on it
`;

interface Question {
  key: string;
  ask: string;
  default?: string;
  /** Asked only when this holds for the answers so far. */
  when?: (answers: Map<string, string>) => boolean;
  required?: boolean;
  choices?: string[];
  /** A password or rune: not echoed on a terminal. */
  secret?: boolean;
}

const lnd = (a: Map<string, string>) => a.get('lightning.backend') === 'lnd';
const cln = (a: Map<string, string>) => a.get('lightning.backend') === 'cln';
const given = (key: string) => (a: Map<string, string>) => (a.get(key) ?? '') !== '';

/** The questions, in order; a key's answer is written as that key (`lightning.macaroon*` is settled in `answersToKeys`). */
const questions: Question[] = [
  { key: 'network', ask: 'bitcoin network', default: 'mainnet', choices: ['mainnet', 'testnet', 'signet', 'regtest'] },
  { key: 'dataDir', ask: 'data directory (database, mnemonic, admin socket)', default: '/var/lib/ferry' },
  { key: 'bitcoin.rpcUrl', ask: 'Bitcoin Core JSON-RPC URL', required: true },
  { key: 'bitcoin.rpcUser', ask: 'Bitcoin Core RPC user', default: '' },
  { key: 'bitcoin.rpcPassword', ask: 'Bitcoin Core RPC password', default: '', secret: true },
  { key: 'bitcoin.wallet', ask: "Bitcoin Core wallet holding the operator's BTC", default: 'ferry' },
  { key: 'liquid.rpcUrl', ask: 'Elements (Liquid) JSON-RPC URL (empty: no L-BTC)', default: '' },
  { key: 'liquid.rpcUser', ask: 'Elements RPC user', default: '', when: given('liquid.rpcUrl') },
  { key: 'liquid.rpcPassword', ask: 'Elements RPC password', default: '', when: given('liquid.rpcUrl'), secret: true },
  { key: 'liquid.wallet', ask: "Elements wallet holding the operator's L-BTC", default: 'ferry', when: given('liquid.rpcUrl') },
  { key: 'evm.rpcUrl', ask: 'EVM (RSK) JSON-RPC URL (empty: no RBTC)', default: '' },
  { key: 'evm.chainId', ask: 'EVM chain id (0: any)', default: '0', when: given('evm.rpcUrl') },
  { key: 'evm.etherSwap', ask: 'EtherSwap contract address', required: true, when: given('evm.rpcUrl') },
  { key: 'evm.erc20Swap', ask: 'ERC20Swap contract address', required: true, when: given('evm.rpcUrl') },
  { key: 'lightning.backend', ask: 'Lightning node', default: 'lnd', choices: ['lnd', 'cln'] },
  { key: 'lightning.restUrl', ask: 'REST URL of the Lightning node (LND https://host:8080, clnrest https://host:3010)', required: true },
  { key: 'lightning.macaroon', ask: "LND's admin.macaroon: its path, or the macaroon as hex", required: true, when: lnd },
  { key: 'lightning.tlsCertPath', ask: "LND's tls.cert (empty: plain HTTP)", default: '', when: lnd },
  { key: 'lightning.rune', ask: 'the rune clnrest checks', required: true, when: cln, secret: true },
  { key: 'lightning.tlsCertPath', ask: "clnrest's ca.pem (empty: plain HTTP)", default: '', when: cln },
  { key: 'lightning.cln.hold.grpcUrl', ask: "host:port of the hold plugin's gRPC (empty: its RPC methods over clnrest)", default: '', when: cln },
  { key: 'lightning.cln.hold.certDir', ask: "the hold plugin's certificate directory", required: true, when: (a) => cln(a) && given('lightning.cln.hold.grpcUrl')(a) },
  { key: 'database.url', ask: 'PostgreSQL URL (empty: SQLite in the data directory)', default: '' },
  { key: 'secrets.passphraseFile', ask: "file with the mnemonic's passphrase (empty: FERRY_PASSPHRASE or asked at start)", default: '' },
];

/** A line typed on the terminal; a secret one without echo. */
async function typed(prompt: string, secret: boolean): Promise<string> {
  if (secret) return (await askPassphrase(prompt)).trim();
  const terminal = createPrompt({ input: process.stdin, output: process.stderr });
  try {
    return (await terminal.question(prompt)).trim();
  } finally {
    terminal.close();
  }
}

/** Reads answers: typed on a terminal, or one line at a time from a pipe (buffered, so lines piped in before their question are kept). */
function answerReader(): { next(prompt: string, secret: boolean): Promise<string | undefined>; close(): void } {
  if (process.stdin.isTTY) return { next: typed, close: () => {} };
  const lines = createInterface({ input: process.stdin, terminal: false });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    async next(prompt) {
      process.stderr.write(prompt);
      const line = await iterator.next();
      process.stderr.write('\n'); // piped answers are not shown: each question gets a line of its own
      return line.done ? undefined : line.value.trim();
    },
    close: () => lines.close(),
  };
}

async function ask(flags: Record<string, string | true>): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const reader = answerReader();
  try {
    for (const question of questions) {
      if (question.when && !question.when(answers)) continue;
      let answer = typeof flags[question.key] === 'string' ? (flags[question.key] as string) : undefined;
      if (answer === undefined) {
        const hint = question.choices ? ` (${question.choices.join('/')})` : '';
        const fallback = question.default ? ` [${question.default}]` : '';
        answer = (await reader.next(`${question.ask}${hint}${fallback}: `, question.secret === true)) || question.default || '';
      }
      if (question.required && answer === '') throw new ConfigError(`${question.key} is needed (${question.ask})`);
      if (question.choices && !question.choices.includes(answer)) throw new ConfigError(`${question.key} must be one of ${question.choices.join(', ')}, got ${JSON.stringify(answer)}`);
      answers.set(question.key, answer);
    }
  } finally {
    reader.close();
  }
  return answers;
}

/** The answers as configuration keys and values: empty answers left out, numbers as numbers, the macaroon by its form. */
function answersToKeys(answers: Map<string, string>): Map<string, string | number | boolean> {
  const keys = new Map<string, string | number | boolean>([['devnet.enabled', false]]);
  for (const [key, value] of answers) {
    if (value === '') continue;
    if (key === 'lightning.macaroon') keys.set(/^[0-9a-fA-F]{40,}$/.test(value) ? 'lightning.macaroon' : 'lightning.macaroonPath', /^[0-9a-fA-F]{40,}$/.test(value) ? value : resolve(value));
    else if (key === 'evm.chainId') keys.set(key, Number(value));
    else if (key === 'dataDir' || key.endsWith('Path') || key.endsWith('File') || key.endsWith('certDir')) keys.set(key, resolve(value));
    else keys.set(key, value);
  }
  return keys;
}

function fieldAt(key: string): Field {
  let node: Field | Section = schema;
  for (const part of key.split('.')) node = (node as Section)[part];
  return node as Field;
}

/** The TOML text: top-level keys first, then one table per section, each key under its description. */
export function commentedToml(keys: Map<string, string | number | boolean>): string {
  const tables = new Map<string, string[]>();
  for (const [key, value] of keys) {
    const parts = key.split('.');
    const name = parts.pop()!;
    const table = parts.join('.');
    const lines = tables.get(table) ?? [];
    lines.push(`# ${fieldAt(key).doc}`, stringify({ [name]: value }).trim());
    tables.set(table, lines);
  }
  const out = [
    '# Ferry on real nodes, written by `ferry init`. Every key, its FERRY_* variable and its default: docs/operating.md.',
    '# Check it with `ferry doctor --config <this file>`; run it with `ferry start --config <this file>`.',
    '# This file holds node credentials: keep it readable by Ferry\'s user only (it is written 0600).',
    '',
    ...(tables.get('') ?? []),
  ];
  for (const [table, lines] of tables) if (table !== '') out.push('', `[${table}]`, ...lines);
  return out.join('\n') + '\n';
}

export async function runInitCommand(flags: Record<string, string | true>): Promise<number> {
  const path = resolve(typeof flags.config === 'string' ? flags.config : 'ferry.toml');
  if (existsSync(path) && flags.force !== true) {
    process.stderr.write(`ferry init: ${path} exists (--force writes over it)\n`);
    return 2;
  }
  let answers: Map<string, string>;
  try {
    answers = await ask(flags);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`ferry init: ${error.message}; nothing was written\n`);
    return 2;
  }
  const text = commentedToml(answersToKeys(answers));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
  process.stderr.write(`wrote ${path}; checking it with ferry doctor\n`);
  // The file as `ferry start --config` will read it (a mistake in it is a configuration error, exit 2).
  const config = loadConfig({ file: path, env: process.env });
  const { runDoctorCommand } = await import('./doctor.ts');
  return runDoctorCommand(config, flags.json === true);
}
