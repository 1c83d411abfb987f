// `ferry init` as an operator runs it, against a `ferry devnet` process whose nodes stand for their own: the answers
// typed one a line on stdin (an answer given as --KEY=VALUE is not asked), the file written with every key under its
// description and the devnet off, `ferry doctor` run on it by init and again on its own, and `ferry start --config`
// serving from it (its first start making the mnemonic encrypted with the configured passphrase file). A required
// answer missing writes nothing. Ferry's node is LND, or Core Lightning with FERRY_TEST_LIGHTNING=cln.
// @lightning-matrix
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { isSealed } from '../../src/secrets/sealed.ts';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { ferryBin, ferryCommand, jsonLines, runFerry } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { devnetLightningEnv, onCln } from '../helpers/test-lightning.ts';

const devnet = useDevnetProcess('ferry-init-', devnetLightningEnv());

/** The Lightning answers for Ferry's node on the devnet, LND's or (FERRY_TEST_LIGHTNING=cln) Core Lightning's, and the [lightning] table they make. */
function lightningAnswers(): { answers: string[]; table: Record<string, unknown>; backend: string } {
  if (!onCln()) {
    const { restUrl, macaroon } = devnet.info.lightning.ferry;
    // the macaroon as hex; plain HTTP
    return { answers: ['lnd', restUrl, macaroon, ''], table: { backend: 'lnd', restUrl, macaroon }, backend: 'lnd' };
  }
  const { restUrl, rune, hold } = devnet.info.cln!.cln;
  return {
    answers: ['cln', restUrl, rune, '', hold!.grpcUrl, hold!.certDir],
    table: { backend: 'cln', restUrl, rune, cln: { hold: { grpcUrl: hold!.grpcUrl, certDir: hold!.certDir } } },
    backend: 'cln',
  };
}

/** `ferry init ARGS` with `answers` typed on its stdin, one a line. */
function init(answers: string[], ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [ferryBin, 'init', ...args], { env: { ...process.env, ...ephemeralPorts }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdin.end(answers.map((answer) => answer + '\n').join(''));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('ferry init asks for the nodes, writes a commented config, and ferry doctor passes on it', async () => {
  await devnet.ready;
  const { bitcoin, elements } = devnet.info;
  const lightning = lightningAnswers();
  const configPath = join(devnet.root, 'etc', 'ferry.toml');
  const dataDir = join(devnet.root, 'ferry');
  const answers = [
    'regtest', // network
    dataDir,
    bitcoin.rpcUrl,
    bitcoin.rpcUser,
    bitcoin.rpcPassword,
    bitcoin.wallets.operator,
    elements.rpcUrl,
    elements.rpcUser,
    elements.rpcPassword,
    elements.wallets.operator,
    '', // no EVM node: no RBTC
    ...lightning.answers,
    '', // SQLite
    // secrets.passphraseFile is answered by its flag
  ];
  const passphraseFile = join(devnet.root, 'passphrase');
  const run = await init(answers, '--config', configPath, '--json', `--secrets.passphraseFile=${passphraseFile}`);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  // the questions went to stderr, the doctor's rows to stdout
  assert.match(run.stderr, /Bitcoin Core JSON-RPC URL: /);
  assert.doesNotMatch(run.stderr, /file with the mnemonic's passphrase/);
  const rows = jsonLines(run.stdout);
  assert.deepEqual(rows.filter((row) => row.result === 'FAIL'), []);
  assert.deepEqual([...new Set(rows.map((row) => row.backend))], ['bitcoin', 'liquid', lightning.backend]);

  const text = readFileSync(configPath, 'utf8');
  assert.equal(statSync(configPath).mode & 0o777, 0o600);
  const written = JSON.parse(JSON.stringify(parse(text))) as Record<string, any>; // plain objects
  assert.deepEqual(written.devnet, { enabled: false });
  assert.equal(written.network, 'regtest');
  assert.equal(written.dataDir, dataDir);
  assert.deepEqual(written.bitcoin, { rpcUrl: bitcoin.rpcUrl, rpcUser: bitcoin.rpcUser, rpcPassword: bitcoin.rpcPassword, wallet: bitcoin.wallets.operator });
  assert.deepEqual(written.lightning, lightning.table);
  assert.deepEqual(written.secrets, { passphraseFile });
  assert.equal(written.evm, undefined);
  // every key under its description from the schema
  assert.match(text, /# bitcoin network: regtest, testnet, signet or mainnet\nnetwork = "regtest"/);
  assert.match(text, /\[bitcoin\]\n# [^\n]+\nrpcUrl = /);
  const keyLines = text.split('\n').filter((line) => /^[A-Za-z]+ = /.test(line));
  for (const line of keyLines) assert.match(text, new RegExp(`\\n# [^\\n]+\\n${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `no description above ${line}`);

  // ferry doctor on its own, as an operator runs it next
  const doctor = await ferryCommand({ ...process.env, ...ephemeralPorts }, 'doctor', '--config', configPath);
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, onCln() ? /\nhold plugin +cln +ok / : /\nmacaroon +lnd +ok /);

  // ferry start from it: a configured passphrase file that is missing is an error naming it; once written, the
  // first start makes the mnemonic encrypted with it and serves
  const missing = runFerry(['start', '--config', configPath], { ...ephemeralPorts });
  assert.equal(await missing.exited, 1);
  assert.match(missing.lines.join('\n'), new RegExp(`ferry: cannot read the passphrase file ${passphraseFile}: ENOENT`));
  writeFileSync(passphraseFile, 'init test passphrase\n', { mode: 0o600 });
  const started = runFerry(['start', '--config', configPath], { ...ephemeralPorts });
  try {
    const listening = await started.waitFor((entry) => entry.message === 'API listening');
    const heights = await (await fetch(`${listening.url as string}/v2/chain/heights`)).json();
    assert.deepEqual(Object.keys(heights), ['BTC', 'L-BTC']);
    assert.ok(started.lines.some((line) => line.includes('"message":"mnemonic created, encrypted"')));
    assert.ok(isSealed(readFileSync(join(dataDir, 'mnemonic'), 'utf8')));
  } finally {
    started.child.kill('SIGTERM');
    await started.exited;
  }
});

test('ferry init writes nothing when a required answer is missing, and never over an existing file', async () => {
  await devnet.ready;
  const configPath = join(devnet.root, 'short.toml');
  const short = await init(['regtest', join(devnet.root, 'short')], '--config', configPath);
  assert.equal(short.code, 2);
  assert.match(short.stderr, /ferry init: bitcoin\.rpcUrl is needed \(Bitcoin Core JSON-RPC URL\); nothing was written/);
  assert.ok(!existsSync(configPath));

  const badChoice = await init(['moonnet'], '--config', configPath);
  assert.equal(badChoice.code, 2);
  assert.match(badChoice.stderr, /network must be one of mainnet, testnet, signet, regtest, got "moonnet"/);

  const existing = join(devnet.root, 'kept.toml');
  writeFileSync(existing, 'network = "regtest"\n');
  const again = await init([], '--config', existing);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /kept\.toml exists \(--force writes over it\)/);
  assert.equal(readFileSync(existing, 'utf8'), 'network = "regtest"\n');
});
