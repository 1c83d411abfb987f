// Operator alerts on a devnet Ferry whose pairs' maximal exceeds every operator wallet and its Lightning node's
// outbound side: 'lowBalance' is raised at start for each, shown by the real `ferry admin alerts` command (in its
// own process, over the admin socket), counted in the metrics and POSTed to the operator webhook (signed with the
// alerts' own secret, a 0600 file in the data directory); the operator acknowledges one; a wallet refilled on chain
// clears its alert at the next check. A reverse swap whose held payment is cancelled after Ferry locked
// raises 'paymentLost', and its lockup shows as money at risk.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { MoneyChecks } from '../../src/alerts/checks.ts';
import { StoredAlerts } from '../../src/alerts/stored-alerts.ts';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import type { PairConfig } from '../../src/swaps/pairs.ts';
import { pairsFromConfig } from '../../src/config/pair.ts';
import { silentLogger } from '../../src/log/index.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { startV1World, type V1World } from '../api/v1-support.ts';

/** More than any devnet wallet or channel holds (21 million BTC in sat is 2.1e15). */
const HUGE = 2_000_000_000_000_000;

let world: V1World;
let env: Record<string, string | undefined>;
let pairs: PairConfig[];
let dataDir: string;
/** What the operator's alert receiver got: the body and its signature headers. */
const received: { body: string; timestamp: string; signature: string }[] = [];
let receiver: Server;
before(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ body, timestamp: String(request.headers['x-ferry-timestamp']), signature: String(request.headers['x-ferry-signature']) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  world = await startV1World({}, (config) => {
    dataDir = config.dataDir;
    config.alerts.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts`;
    config.pair.maximal = HUGE;
    config.alerts.checkIntervalMs = 0; // the checks run at start; this test runs the later rounds itself
    pairs = pairsFromConfig(config);
  });
  env = { ...process.env, FERRY_ADMIN_SOCKET: world.ferry.adminSocket };
});
after(async () => {
  await world.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const admin = async (...args: string[]) => {
  const { code, stdout, stderr } = await ferryCommand(env, 'admin', ...args);
  return { code, json: code === 0 ? JSON.parse(stdout) : undefined, stderr };
};

async function scrape(): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  for (const line of (await (await fetch(world.ferry.metricsUrl!)).text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The checks as Ferry runs them, on its own backends and database, with pairs the test can change. */
const checksFor = (checked: PairConfig[]) => {
  const alerts = new StoredAlerts(world.ferry.storage.alerts, silentLogger);
  return new MoneyChecks({ storage: world.ferry.storage, alerts, pairs: checked, chains: world.ferry.chains, evm: world.ferry.evm, lightning: world.ferry.lightning, logger: silentLogger });
};

test("lowBalance for every wallet and the Lightning node at start, in `ferry admin alerts` and the metrics; acknowledged by the operator", async () => {
  const listed = await admin('alerts');
  assert.equal(listed.code, 0, listed.stderr);
  const lows = (listed.json as { kind: string; key: string; severity: string; amount: number; details: { needed: number } }[]).filter((alert) => alert.kind === 'lowBalance');
  const keys = lows.map((alert) => alert.key).sort();
  for (const key of ['lightning:BTC', 'wallet:BTC', 'wallet:L-BTC']) assert.ok(keys.includes(key), `${key} in ${keys.join(', ')}`);
  const btc = lows.find((alert) => alert.key === 'wallet:BTC')!;
  assert.equal(btc.severity, 'warn');
  assert.equal(btc.details.needed, HUGE);
  assert.equal(btc.amount, await world.ferry.chains.get('BTC')!.walletBalance!(), 'the balance it saw');
  assert.ok(world.log.some((line) => line.includes('"kind":"lowBalance"') && line.includes('"level":"warn"')), 'logged at warn');

  const metrics = await scrape();
  assert.equal(metrics.get('ferry_alerts_active{kind="lowBalance"}'), lows.length);
  assert.equal(metrics.get('ferry_alerts_total{kind="lowBalance",severity="warn"}'), lows.length);

  // the operator acknowledges the BTC wallet's: gone from the active list, listed cleared with --all
  const cleared = await admin('alerts', 'clear', 'lowBalance', 'wallet:BTC');
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.deepEqual(cleared.json, { kind: 'lowBalance', key: 'wallet:BTC', cleared: true });
  const all = (await admin('alerts', '--all')).json as { key: string; active: boolean; clearedBy?: string }[];
  assert.deepEqual(
    all.filter((alert) => alert.key === 'wallet:BTC').map(({ active, clearedBy }) => ({ active, clearedBy })),
    [{ active: false, clearedBy: 'operator' }],
  );
  const again = await admin('alerts', 'clear', 'lowBalance', 'wallet:BTC');
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no active alert lowBalance wallet:BTC/);
  assert.equal((await admin('alerts', 'clear', 'lowBalance')).code, 2, 'usage');
  assert.equal((await scrape()).get('ferry_alerts_active{kind="lowBalance"}'), lows.length - 1);
});

test('the operator webhook got each lowBalance alert, signed with the secret Ferry made for alerts (0600)', async () => {
  const secretFile = join(dataDir, 'alerts-webhook-secret');
  assert.equal((statSync(secretFile).mode & 0o777).toString(8), '600');
  const secret = readFileSync(secretFile, 'utf8').trim();
  assert.notEqual(secret, readFileSync(join(dataDir, 'webhook-secret'), 'utf8').trim(), "not the swap webhooks' secret");
  const deadline = Date.now() + 60_000;
  const raisedKeys = () =>
    received.map((call) => JSON.parse(call.body) as { event: string; data: { kind: string; key: string } }).filter((call) => call.event === 'alert.raised' && call.data.kind === 'lowBalance').map((call) => call.data.key);
  while (!['lightning:BTC', 'wallet:BTC', 'wallet:L-BTC'].every((key) => raisedKeys().includes(key)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const key of ['lightning:BTC', 'wallet:BTC', 'wallet:L-BTC']) assert.ok(raisedKeys().includes(key), `${key} in ${raisedKeys().join(', ')}`);
  for (const call of received) {
    assert.equal(call.signature, 'sha256=' + createHmac('sha256', secret).update(`${call.timestamp}.${call.body}`).digest('hex'));
  }
});

test('a wallet drained below what the pairs need raises lowBalance; refilled on chain, the next check clears it', async () => {
  const bitcoin = world.ferry.chains.get('BTC')!;
  const balance = await bitcoin.walletBalance!();
  // the BTC/BTC pair now needs 1 000 000 sat more than the wallet holds; the others need nothing
  const checked = pairs.map((pair) => ({ ...pair, limits: { ...pair.limits, maximal: pair.id === 'BTC/BTC' ? balance + 1_000_000 : 1 } }));
  const checks = checksFor(checked);
  await checks.balances();
  const active = async () => (await world.ferry.storage.alerts.active('lowBalance')).map((alert) => alert.key).sort();
  // the BTC/BTC pair's submarine swaps need as much outbound Lightning: that stays; the L-BTC wallet now suffices
  assert.deepEqual(await active(), ['lightning:BTC', 'wallet:BTC']);

  // the operator refills: 2 000 000 sat from the user's wallet to Ferry's, confirmed
  const operator = world.rpc.wallet(world.ferry.devnet!.info.bitcoin.wallets.operator);
  await world.user.sendToAddress(await operator.getNewAddress(), satToBtc(2_000_000));
  await world.mine();
  const deadline = Date.now() + 60_000;
  while ((await bitcoin.walletBalance!()) < balance + 1_000_000 && Date.now() < deadline) await world.mine();
  await checks.balances();
  assert.deepEqual(await active(), ['lightning:BTC']);
  const btc = (await world.ferry.storage.alerts.recent(50)).find((alert) => alert.key === 'wallet:BTC' && alert.clearedBy === 'condition');
  assert.ok(btc, 'cleared by the check, not the operator');
});

test("a reverse swap's held payment cancelled after Ferry locked: paymentLost, and its lockup is money at risk", async () => {
  const created = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 50_000,
    preimageHash: hex.encode(newPreimage().preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, onchainAmount } = created.json as { id: string; onchainAmount: number };
  const payment = world.pay('alice', created.json.invoice).catch((error: Error) => error);
  await world.waitForStatus(id, ['transaction.mempool']);
  await world.ferry.swaps!.whenIdle(id);
  const checks = checksFor(pairs);
  await checks.heldPayments();
  assert.deepEqual(await world.ferry.storage.alerts.active('paymentLost'), [], 'held: nothing lost');

  // the payment is cancelled at Ferry's node (its HTLC given back to the payer) while Ferry's lockup is out
  const swap = (await world.ferry.storage.swaps.get(id))!;
  await world.ferry.lightning.BTC.cancelHoldInvoice(swap.preimageHash);
  await payment;
  await checks.heldPayments();
  await checks.heldPayments(); // seen twice: one alert
  const [lost, ...others] = await world.ferry.storage.alerts.active('paymentLost');
  assert.deepEqual(others, []);
  assert.equal(lost.key, id);
  assert.equal(lost.severity, 'error');
  assert.equal(lost.chain, 'BTC');
  const lockup = swap.data.lockup as { value?: number } | undefined;
  assert.equal(lost.amount, lockup?.value ?? onchainAmount);
  assert.equal(lost.details.invoiceState, 'CANCELED');
  assert.equal((await scrape()).get('ferry_money_at_risk_sat{chain="BTC",reason="paymentLost"}'), lost.amount);
});
