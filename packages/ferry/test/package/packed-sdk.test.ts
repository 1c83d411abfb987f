// The SDK as a wallet developer gets it: the tarball `npm pack` makes of @ferry/sdk (packages/sdk/scripts/pack.mjs)
// installed into an empty project, then a whole BTC reverse swap run from that project by plain Node — no TypeScript
// loader, no file of this repository — against a devnet Ferry: the swap is created and checked, alice pays the
// invoice, the script claims into the user's wallet. The install must pull none of the service's or the devnet's
// dependencies and nothing native. Its size on disk is printed beside boltz-core's, installed the same way in this run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startService, type Service } from '../client/support.ts';

/** What the service or the devnet needs and a wallet must never install with the SDK. */
const SERVICE_ONLY = ['ferry', '@ferry/devnet', 'better-sqlite3', 'pg', '@grpc/grpc-js', '@grpc/proto-loader', '@foundry-rs/anvil', 'prom-client', 'ajv', 'tsx', 'smol-toml', 'node-forge', 'lossless-json', 'bitcore-lib'];

const SWAP_SCRIPT = `
import { SwapClient, FileClientStore, followSwap } from '@ferry/sdk/node';
const [serviceUrl, destination, storeDir] = process.argv.slice(2);
const client = new SwapClient({ serviceUrl, network: 'regtest', store: new FileClientStore(storeDir) });
const swap = await client.createReverse({ invoiceAmount: 50000, currency: 'BTC' });
console.log(JSON.stringify({ invoice: swap.invoice }));
const stream = client.statusStream({ pollIntervalMs: 200 });
const claims = [];
const result = await followSwap(client, swap, {
  stream,
  destination: async () => destination,
  onEvent: (event) => { if (event.type === 'claimed') claims.push({ txid: event.claim.txid, amount: String(event.claim.amount) }); },
});
stream.close();
console.log(JSON.stringify({ success: result.success, message: result.message, claims }));
`;

const sizeOf = (path: string): number =>
  statSync(path).isDirectory() ? readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0) : statSync(path).size;
const packagesIn = (modules: string): string[] =>
  readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name]));
const nativeFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? nativeFiles(path) : name.endsWith('.node') ? [path] : [];
  });

/** An empty project with `spec` installed from the registry (the cache first), as a wallet's `npm install` does. */
function project(prefix: string, spec: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'wallet', version: '1.0.0', private: true, type: 'module' }));
  execFileSync('npm', ['install', spec, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } });
  return dir;
}

describe('the packed SDK in an empty project', () => {
  let service: Service;
  let wallet: string;
  let boltzCore: string;
  const dirs: string[] = [];

  before(async () => {
    const packDir = mkdtempSync(join(tmpdir(), 'ferry-sdk-tarball-'));
    dirs.push(packDir);
    const out = execFileSync(process.execPath, [resolve('../sdk/scripts/pack.mjs'), packDir], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    const tarball = out.trim().split('\n').at(-1)!;
    assert.ok(existsSync(tarball), out);
    wallet = project('ferry-sdk-wallet-', tarball);
    boltzCore = project('ferry-boltz-core-wallet-', 'boltz-core@4.0.1');
    dirs.push(wallet, boltzCore);
    service = await startService();
  });
  after(async () => {
    await service?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("installs without the service's or the devnet's dependencies and without native code; sizes beside boltz-core", () => {
    const installed = packagesIn(join(wallet, 'node_modules'));
    assert.ok(installed.includes('@ferry/sdk') && installed.includes('boltz-core'), installed.join(', '));
    assert.deepEqual(SERVICE_ONLY.filter((name) => installed.includes(name)), []);
    assert.deepEqual(nativeFiles(join(wallet, 'node_modules')), []);
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    const theirs = packagesIn(join(boltzCore, 'node_modules'));
    console.log(`# packed sdk install: ${installed.length} packages, ${mb(sizeOf(join(wallet, 'node_modules')))} (boltz-core alone: ${theirs.length} packages, ${mb(sizeOf(join(boltzCore, 'node_modules')))})`);
    console.log(`# packed sdk itself: ${mb(sizeOf(join(wallet, 'node_modules', '@ferry', 'sdk')))} on disk`);
  });

  test('plain Node runs a BTC reverse swap from it: alice pays, the claim lands in the user wallet', async () => {
    const destination = await service.user.getNewAddress();
    const before = await service.userBalance();
    const aliceBefore = await service.channelBalance('alice');
    writeFileSync(join(wallet, 'swap.mjs'), SWAP_SCRIPT);
    const child = spawn(process.execPath, ['swap.mjs', service.apiUrl, destination, join(wallet, 'swaps')], {
      cwd: wallet,
      env: { ...process.env, NODE_OPTIONS: '' }, // plain Node: no tsx, no contract observer
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    const lines = createInterface({ input: child.stdout! });
    const answers: Record<string, unknown>[] = [];
    let payment: Promise<{ status: string }> | undefined;
    for await (const line of lines) {
      const answer = JSON.parse(line) as Record<string, unknown>;
      answers.push(answer);
      if (typeof answer.invoice === 'string') {
        payment = service.lightning('alice').payInvoice({ paymentRequest: answer.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
      }
    }
    assert.equal(await exited, 0);
    assert.equal((await payment!).status, 'SUCCEEDED');
    const result = answers.at(-1) as { success: boolean; message?: string; claims: { txid: string; amount: string }[] };
    assert.equal(result.success, true, result.message);
    assert.equal(result.claims.length, 1);
    const [claim] = result.claims;

    await service.mine();
    const tx = await service.node.getRawTransaction(claim.txid);
    assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed');
    const coin = (await service.user.listUnspent(1)).find((u) => u.txid === claim.txid);
    assert.equal(Math.round(coin!.amount * 1e8), Number(claim.amount), 'the claim is a coin of the user wallet');
    assert.equal((await service.userBalance()) - before, BigInt(claim.amount));
    assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);
  });
});
