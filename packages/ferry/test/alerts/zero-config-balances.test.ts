// The lowBalance check on a zero-config devnet Ferry (the pairs' defaults, the devnet's own wallets and channels): it
// raises nothing at start, nor after the operator's node has paid out a submarine swap's worth — the devnet's
// channels give the operator's node more outbound than the default pairs' largest submarine swap, as an operator's
// node should have, so a sandbox in ordinary use is not alarmed. A real shortfall still raises it: the same node
// against pairs whose largest submarine swap is one sat more than it can send, listed by the real `ferry admin alerts`.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MoneyChecks } from '../../src/alerts/checks.ts';
import { StoredAlerts } from '../../src/alerts/stored-alerts.ts';
import { pairsFromConfig } from '../../src/config/pair.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { PairConfig } from '../../src/swaps/pairs.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { startV1World, type V1World } from '../api/v1-support.ts';

let world: V1World;
let pairs: PairConfig[];
before(async () => {
  world = await startV1World({}, (config) => {
    pairs = pairsFromConfig(config);
  });
});
after(() => world.close());

const lowBalances = async (): Promise<{ key: string; details: { needed: number; outbound?: number } }[]> => {
  const { code, stdout, stderr } = await ferryCommand({ ...process.env, FERRY_ADMIN_SOCKET: world.ferry.adminSocket }, 'admin', 'alerts');
  assert.equal(code, 0, stderr);
  return (JSON.parse(stdout) as { kind: string; key: string; details: { needed: number } }[]).filter((alert) => alert.kind === 'lowBalance');
};

/** A round of the balance checks as Ferry runs them, on its own backends and database. */
const checkBalances = (checked: PairConfig[]) =>
  new MoneyChecks({
    storage: world.ferry.storage,
    alerts: new StoredAlerts(world.ferry.storage.alerts, silentLogger),
    pairs: checked,
    chains: world.ferry.chains,
    evm: world.ferry.evm,
    lightning: world.ferry.lightning,
    logger: silentLogger,
  }).balances();

const outbound = async () => Number((await world.ferry.lightning.BTC.getStats()).localBalanceSat);

test('a zero-config start raises no lowBalance: every wallet and the Lightning node cover the default pairs', async () => {
  assert.deepEqual(await lowBalances(), []);
  assert.equal(world.log.some((line) => line.includes('"kind":"lowBalance"')), false, 'nothing logged');
  const largest = Math.max(...pairs.map((pair) => pair.limits.maximal));
  assert.ok((await outbound()) >= largest, "the operator's node can send the largest submarine payment");
});

test("after the operator's node paid a submarine swap's worth, the next check still raises nothing", async () => {
  const before = await outbound();
  const { invoice } = await world.invoice('bob', 250_000);
  const paid = await world.ferry.lightning.BTC.payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000_000n, timeoutSeconds: 60 });
  assert.equal(paid.status, 'SUCCEEDED');
  assert.ok((await outbound()) <= before - 250_000, 'the outbound side went down');
  await checkBalances(pairs);
  assert.deepEqual(await lowBalances(), []);
});

test('a real shortfall still raises it: pairs whose largest submarine swap is one sat more than the node can send', async () => {
  const have = await outbound();
  await checkBalances(pairs.map((pair) => ({ ...pair, limits: { ...pair.limits, maximal: pair.id === 'BTC/BTC' ? have + 1 : pair.limits.maximal } })));
  const [alert, ...others] = await lowBalances();
  assert.deepEqual(others, [], 'the wallets still suffice');
  assert.equal(alert.key, 'lightning:BTC');
  assert.deepEqual({ needed: alert.details.needed, outbound: alert.details.outbound }, { needed: have + 1, outbound: have });
  // back to the default pairs: the next check clears it
  await checkBalances(pairs);
  assert.deepEqual(await lowBalances(), []);
});
