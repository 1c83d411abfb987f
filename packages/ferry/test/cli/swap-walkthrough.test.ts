// The devnet walkthrough (docs/devnet.md, "Walkthrough: swaps on the devnet"), command for command, as child
// processes against a Ferry running on ephemeral ports; then checks what really happened on chain and on Lightning.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ferryBin } from '../helpers/ferry-process.ts';
import { startCliService, type Service } from '../client/support.ts';

const run = promisify(execFile);

let service: Service;
let env: Record<string, string | undefined>;

before(async () => {
  // What `npx ferry start` sets up by default, pointed at this test's service and a fresh client store.
  ({ service, env } = await startCliService('ferry-walkthrough-'));
});
after(async () => {
  await service?.close();
});

/** `ferry ARGS` to completion. */
async function ferry(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [ferryBin, ...args], { env });
  return stdout;
}

/** `ferry ARGS` left running (the first terminal), with its output as it comes. */
function ferryRunning(...args: string[]) {
  const child = spawn(process.execPath, [ferryBin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters: (() => void)[] = [];
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    get output() {
      return output;
    },
    exited,
    async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern} in:\n${output}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

test('the devnet walkthrough (docs/devnet.md): a reverse and a submarine swap with ferry commands only', async () => {
  const aliceStart = await service.channelBalance('alice');

  // 2. reverse swap
  const reverse = ferryRunning('swap', 'reverse', '--amount', '50000');
  const [, reverseId] = await reverse.waitFor(/swap (\w+) created \(reverse\): pay this invoice of 50000 sat/);
  const [reverseInvoice] = await reverse.waitFor(/lnbcrt500u1\w+/);
  const paid = JSON.parse(await ferry('devnet', 'pay', reverseInvoice, '--node', 'alice'));
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(await reverse.exited, 0, reverse.output);
  const [, claimedSat, claimAddress, claimTxid] = reverse.output.match(/claimed (\d+) sat to (\w+) in ([0-9a-f]{64}) \(key path/)!;
  assert.match(reverse.output, /invoice\.settled — the invoice is settled: swap complete/);
  assert.match(reverse.output, new RegExp(`swap ${reverseId}: done \\(invoice.settled\\)`));
  await ferry('devnet', 'mine');
  const coin = (await service.user.listUnspent(1)).find((u) => u.txid === claimTxid);
  assert.equal(coin?.address, claimAddress, 'the claim is a confirmed coin of the devnet user wallet');
  assert.equal(Math.round(coin!.amount * 1e8), Number(claimedSat));
  assert.equal(aliceStart - (await service.channelBalance('alice')), 50_000);

  // 3. submarine swap
  const { invoice } = JSON.parse(await ferry('devnet', 'invoice', '30000', '--node', 'alice'));
  const submarine = ferryRunning('swap', 'submarine', '--invoice', invoice);
  const [, submarineId] = await submarine.waitFor(/swap (\w+) created \(submarine\)/);
  const [, amountBtc, address] = await submarine.waitFor(/\((\d+\.\d{8}) BTC\) to (bcrt1p\w+)/);
  const { txid: lockupTxid } = JSON.parse(await ferry('devnet', 'send', address, amountBtc));
  await ferry('devnet', 'mine');
  assert.equal(await submarine.exited, 0, submarine.output);
  // One readable line per status change, in the order the swap went through them. (Whether the lockup was seen in
  // the mempool before its block depends on when the chain watcher polled, so that line may be missing.)
  const order = ['invoice.set', 'transaction.mempool', 'transaction.confirmed', 'invoice.pending', 'invoice.paid', 'transaction.claim.pending', 'transaction.claimed'];
  const lines = submarine.output.split('\n').map((line) => line.match(/^swap \w+: ([a-z.]+) —/)?.[1]).filter((status) => status !== undefined);
  assert.deepEqual(lines, order.filter((status) => lines.includes(status)), submarine.output);
  for (const status of ['invoice.set', 'transaction.confirmed', 'invoice.paid', 'transaction.claim.pending', 'transaction.claimed']) {
    assert.ok(lines.includes(status), `${status} was reported:\n${submarine.output}`);
  }
  assert.match(submarine.output, /co-signed the service's claim \(preimage [0-9a-f]{64} proves the invoice was paid\)/);
  assert.equal((await service.channelBalance('alice')) - aliceStart, 30_000 - 50_000);
  const vout = (await service.node.getRawTransaction(lockupTxid)).vout.find((o) => o.scriptPubKey.address === address)!;
  assert.equal(Math.round(vout.value * 1e8), Math.round(Number(amountBtc) * 1e8));
  assert.equal(await service.node.getTxOut(lockupTxid, vout.n, true), null, 'the service claimed the lockup');

  // 4. what happened
  const list = await ferry('swap', 'list');
  assert.match(list, new RegExp(`${reverseId}\\s+reverse\\s+BTC\\s+50000 sat\\s+invoice\\.settled`));
  assert.match(list, new RegExp(`${submarineId}\\s+submarine\\s+BTC\\s+30000 sat\\s+transaction\\.claimed`));
  const balances = JSON.parse(await ferry('devnet', 'balances'));
  assert.equal(balances.lightning.alice.local, aliceStart - 20_000);

  // Keys and preimages stay private to their owner.
  assert.equal(statSync(join(env.FERRY_CLIENT_DIR!, 'swaps', `${reverseId}.json`)).mode & 0o777, 0o600);
  assert.equal(statSync(join(env.FERRY_CLIENT_DIR!, 'refunds', `${submarineId}.png`)).mode & 0o777, 0o600);
});
