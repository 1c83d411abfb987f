// `ferry doctor` as an operator runs it, against a `ferry devnet` process (with its CLN node): passes on the
// zero-config devnet, and names the problem and exits 1 for a macaroon without a permission Ferry needs, a CLN whose
// hold plugin's gRPC cannot be reached, a Bitcoin Core wallet that does not exist and a network that does not match;
// `ferry start` refuses to start on such a failure. An encrypted mnemonic is opened with the passphrase from a file
// and the EVM operator account's balance checked for real; a wrong passphrase fails the check. Also the devnet LND's macaroons: a baked restricted macaroon
// opens what it grants and is refused, as LND refuses it, for what it does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { isSealed } from '../../src/secrets/sealed.ts';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { devnetNodesEnv, ferryCommand, jsonLines, runFerry } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

const devnet = useDevnetProcess('ferry-doctor-', { FERRY_DEVNET_CLN: 'true' });

interface Row {
  check: string;
  backend: string;
  result: 'ok' | 'warn' | 'FAIL';
  detail: string;
}

async function doctor(env: Record<string, string>): Promise<{ code: number; rows: Row[]; stdout: string }> {
  const { code, stdout, stderr } = await ferryCommand({ ...process.env, ...ephemeralPorts, ...env }, 'doctor', '--json');
  assert.doesNotMatch(stderr, /Error|error/, stderr);
  return { code, rows: jsonLines(stdout) as unknown as Row[], stdout };
}

/** Ferry configured with the devnet process's nodes as an operator would (its own devnet off), changed by `env`. */
const external = (env: Record<string, string>): Record<string, string> => ({
  ...devnetNodesEnv(devnet.info),
  FERRY_DATA_DIR: join(devnet.root, 'ferry'),
  ...env,
});

const failed = (rows: Row[]): Row[] => rows.filter((r) => r.result === 'FAIL');

async function lndCall(path: string, macaroon: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(devnet.info.lightning.ferry.restUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Grpc-Metadata-macaroon': macaroon, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Every permission of Ferry's LND calls but invoices:write (hold invoices, their settle, cancel and lookup). */
async function bakeWithoutInvoiceWrite(): Promise<string> {
  const permissions = [
    ['info', 'read'],
    ['offchain', 'read'],
    ['offchain', 'write'],
    ['invoices', 'read'],
    ['macaroon', 'read'],
  ].map(([entity, action]) => ({ entity, action }));
  const baked = await lndCall('/v1/macaroon', devnet.info.lightning.ferry.macaroon, { permissions });
  assert.equal(baked.status, 200, JSON.stringify(baked.body));
  return baked.body.macaroon as string;
}

test('ferry doctor passes on the zero-config devnet: every backend checked, nothing failed', async () => {
  await devnet.ready;
  const { code, rows, stdout } = await doctor({ FERRY_DATA_DIR: join(devnet.root, 'devnet') });
  assert.equal(code, 0, stdout);
  assert.deepEqual(failed(rows), []);
  assert.deepEqual([...new Set(rows.map((r) => r.backend))], ['bitcoin', 'liquid', 'evm', 'lnd']);
  const ok = (backend: string, check: string) => assert.equal(rows.find((r) => r.backend === backend && r.check === check)?.result, 'ok', `${backend} ${check}`);
  for (const backend of ['bitcoin', 'liquid']) for (const check of ['reachable', 'version', 'network', 'synced', 'wallet', 'balance']) ok(backend, check);
  ok('liquid', 'L-BTC asset');
  ok('evm', 'contracts');
  for (const check of ['version', 'synced', 'network', 'invoices sub-server', 'router sub-server', 'macaroon']) ok('lnd', check);
  // the table form too
  const table = await ferryCommand({ ...process.env, ...ephemeralPorts, FERRY_DATA_DIR: join(devnet.root, 'devnet') }, 'doctor');
  assert.equal(table.code, 0);
  assert.match(table.stdout, /^check +backend +result +detail\n/);
  assert.match(table.stdout, /\nmacaroon +lnd +ok +grants the 13 methods Ferry calls\n/);
});

test('ferry doctor opens an encrypted mnemonic with the passphrase from a file and checks the EVM balance for real', async () => {
  await devnet.ready;
  const devnetDir = join(devnet.root, 'devnet');
  // An operator's mnemonic in a file of its own, checked first in plain text, then encrypted by `ferry keys encrypt`.
  const keysDir = join(devnet.root, 'sealed-keys');
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const mnemonicPath = join(keysDir, 'mnemonic');
  writeFileSync(mnemonicPath, generateMnemonic(wordlist, 256) + '\n', { mode: 0o600 });
  const config = join(keysDir, 'ferry.toml');
  writeFileSync(config, `[swap]\nmnemonicPath = "${mnemonicPath}"\n`);
  const balanceOf = (rows: Row[]) => rows.find((r) => r.backend === 'evm' && r.check === 'balance');

  const plain = await doctor({ FERRY_DATA_DIR: devnetDir, FERRY_CONFIG: config });
  const plainBalance = balanceOf(plain.rows);
  // the account the mnemonic derives, and its balance read from the node (none: a warning, with the address)
  assert.match(plainBalance?.detail ?? '', /^0x[0-9a-fA-F]{40} holds \d+ wei, the largest lockup is \d+ wei/, plain.stdout);

  const passphraseFile = join(keysDir, 'passphrase');
  writeFileSync(passphraseFile, 'the doctor opens it too\n', { mode: 0o600 });
  const wrongFile = join(keysDir, 'wrong');
  writeFileSync(wrongFile, 'not the passphrase\n', { mode: 0o600 });
  const encrypted = await ferryCommand({ ...process.env, FERRY_CONFIG: config, FERRY_DATA_DIR: keysDir, FERRY_PASSPHRASE_FILE: passphraseFile }, 'keys', 'encrypt');
  assert.equal(encrypted.code, 0, encrypted.stderr);
  assert.ok(isSealed(readFileSync(mnemonicPath, 'utf8')));

  const opened = await doctor({ FERRY_DATA_DIR: devnetDir, FERRY_CONFIG: config, FERRY_PASSPHRASE_FILE: passphraseFile });
  assert.deepEqual(balanceOf(opened.rows), plainBalance, 'the same account, checked the same way');
  assert.doesNotMatch(opened.stdout, /the doctor opens it too/, 'the passphrase is never printed');

  const unopened = await doctor({ FERRY_DATA_DIR: devnetDir, FERRY_CONFIG: config });
  assert.equal(balanceOf(unopened.rows)?.result, 'warn');
  assert.match(balanceOf(unopened.rows)!.detail, new RegExp(`${mnemonicPath} is encrypted and no passphrase was given`));

  const wrong = await doctor({ FERRY_DATA_DIR: devnetDir, FERRY_CONFIG: config, FERRY_PASSPHRASE_FILE: wrongFile });
  assert.equal(wrong.code, 1, wrong.stdout);
  assert.deepEqual(failed(wrong.rows).map((r) => [r.backend, r.check]), [['evm', 'configured']]);
  assert.match(failed(wrong.rows)[0].detail, /does not open it/);
  assert.doesNotMatch(wrong.stdout, /not the passphrase/);
});

test("the devnet LND refuses a baked macaroon's missing permission with LND's error, and checks it as LND does", async () => {
  await devnet.ready;
  const restricted = await bakeWithoutInvoiceWrite();
  assert.match(restricted, /^0201036c6e6402/, 'V2, location "lnd", then an identifier of bakery version 3');
  assert.equal((await lndCall('/v1/getinfo', restricted)).status, 200);
  const hold = await lndCall('/v2/invoices/hodl', restricted, { hash: Buffer.alloc(32, 7).toString('base64'), value_msat: '1000' });
  assert.deepEqual(hold, { status: 500, body: { code: 2, message: 'permission denied', details: [] } });

  const { body: listed } = await lndCall('/v1/macaroon/permissions', restricted);
  const byMethod = listed.method_permissions as Record<string, { permissions: { entity: string; action: string }[] }>;
  assert.deepEqual(byMethod['/invoicesrpc.Invoices/LookupInvoiceV2'].permissions, [{ entity: 'invoices', action: 'write' }]);
  const check = (permissions: unknown) =>
    lndCall('/v1/macaroon/checkpermissions', devnet.info.lightning.ferry.macaroon, { macaroon: Buffer.from(restricted, 'hex').toString('base64'), permissions });
  assert.deepEqual(await check([{ entity: 'offchain', action: 'write' }]), { status: 200, body: { valid: true } });
  assert.deepEqual(await check([{ entity: 'invoices', action: 'write' }]), { status: 400, body: { code: 3, message: 'permission denied', details: [] } });
  const empty = await lndCall('/v1/macaroon', devnet.info.lightning.ferry.macaroon, { permissions: [] });
  assert.equal(empty.status, 500);
  assert.match(String(empty.body.message), /^permission list cannot be empty/);
  // headers LND cannot hex-decode, refused with Go's hex.DecodeString messages
  assert.deepEqual((await lndCall('/v1/getinfo', 'zz')).body, { code: 2, message: "encoding/hex: invalid byte: U+007A 'z'", details: [] });
  assert.deepEqual((await lndCall('/v1/getinfo', '020')).body, { code: 2, message: 'encoding/hex: odd length hex string', details: [] });
  // a restricted macaroon cannot bake (macaroon:generate)
  assert.deepEqual((await lndCall('/v1/macaroon', restricted, { permissions: [{ entity: 'info', action: 'read' }] })).body.message, 'permission denied');
});

test('ferry doctor names the permission a macaroon lacks and exits 1', async () => {
  await devnet.ready;
  const restricted = await bakeWithoutInvoiceWrite();
  const { code, rows } = await doctor(external({ FERRY_LIGHTNING_BACKEND: 'lnd', FERRY_LND_REST_URL: devnet.info.lightning.ferry.restUrl, FERRY_LND_MACAROON: restricted }));
  assert.equal(code, 1);
  const [row, ...more] = failed(rows);
  assert.deepEqual(more, []);
  assert.equal(row.backend, 'lnd');
  assert.equal(row.check, 'macaroon');
  assert.match(row.detail, /AddHoldInvoice \(invoices:write\)/);
  assert.match(row.detail, /LookupInvoiceV2 \(invoices:write\)/);
  assert.doesNotMatch(row.detail, /SendPaymentV2/);
});

test("ferry doctor fails a CLN whose hold plugin's gRPC does not answer, or is not configured", async () => {
  await devnet.ready;
  const node = devnet.info.cln!.cln;
  const cln = { FERRY_LIGHTNING_BACKEND: 'cln', FERRY_LND_REST_URL: node.restUrl, FERRY_CLN_RUNE: node.rune };
  const reachable = await doctor(external({ ...cln, FERRY_CLN_HOLD_GRPC_URL: node.hold!.grpcUrl, FERRY_CLN_HOLD_CERT_DIR: node.hold!.certDir }));
  assert.equal(reachable.code, 0, reachable.stdout);
  assert.equal(reachable.rows.find((r) => r.check === 'hold gRPC')?.result, 'ok');
  assert.equal(reachable.rows.find((r) => r.check === 'hold plugin')?.result, 'ok');

  // a port nothing listens on: the devnet's bitcoin RPC port is taken by HTTP, not gRPC — use a closed one
  const closed = await doctor(external({ ...cln, FERRY_CLN_HOLD_GRPC_URL: '127.0.0.1:1', FERRY_CLN_HOLD_CERT_DIR: node.hold!.certDir }));
  assert.equal(closed.code, 1);
  assert.deepEqual(failed(closed.rows).map((r) => [r.backend, r.check]), [['cln', 'hold gRPC']]);
  assert.match(failed(closed.rows)[0].detail, /127\.0\.0\.1:1 does not answer.*reverse swaps cannot be served/);

  const none = await doctor(external(cln));
  assert.equal(none.code, 1);
  assert.match(failed(none.rows)[0].detail, /not configured.*reverse swaps cannot be served/);
});

test('ferry doctor fails a Bitcoin Core wallet that does not exist, and a network that does not match', async () => {
  await devnet.ready;
  const wallet = await doctor(external({ FERRY_BITCOIN_WALLET: 'no-such-wallet' }));
  assert.equal(wallet.code, 1);
  assert.deepEqual(failed(wallet.rows).map((r) => [r.backend, r.check]), [['bitcoin', 'wallet']]);
  assert.match(failed(wallet.rows)[0].detail, /wallet "no-such-wallet" is not loaded: Requested wallet does not exist or is not loaded/);

  const network = await doctor(external({ FERRY_NETWORK: 'testnet' }));
  assert.equal(network.code, 1);
  const lightning = process.env.FERRY_TEST_LIGHTNING === 'cln' ? 'cln' : 'lnd';
  // Liquid too: its chain is not liquidtestnet, and its "bitcoin" asset is not testnet's L-BTC
  assert.deepEqual(failed(network.rows).map((r) => [r.backend, r.check]), [
    ['bitcoin', 'network'],
    ['liquid', 'network'],
    ['liquid', 'L-BTC asset'],
    [lightning, 'network'],
  ]);
  assert.match(failed(network.rows)[0].detail, /the node is on "regtest", network "testnet" needs "test" or "testnet4"/);
});

test('ferry start refuses to start on a failed check, with the failure as its message', async () => {
  await devnet.ready;
  const ferry = runFerry(['start'], { ...ephemeralPorts, ...external({ FERRY_BITCOIN_WALLET: 'no-such-wallet' }) });
  const listening = ferry.waitFor((entry) => entry.message === 'API listening', 60_000).then(
    () => 'listening',
    () => 'not listening',
  );
  const outcome = await Promise.race([ferry.exited, listening]);
  if (outcome === 'listening') {
    ferry.child.kill('SIGKILL');
    assert.fail('ferry start served with a wallet that does not exist');
  }
  assert.equal(await ferry.exited, 1);
  const output = ferry.lines.join('\n');
  assert.match(output, /ferry start: refusing to start: 1 check failed/);
  assert.match(output, /wallet +bitcoin +FAIL +wallet "no-such-wallet" is not loaded/);
});
