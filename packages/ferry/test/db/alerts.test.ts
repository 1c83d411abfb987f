// Operator alerts in the database, on both dialects: a raise is recorded once per active (kind, key) — again
// after a restart, and by a second instance on the same database — cleared by the condition or the operator,
// raised anew once cleared; the active counts and the recent list; the webhook call's lease taken by one taker;
// the money at risk read from failed swaps with a lost lockup and from active paymentLost alerts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRepositories } from '../../src/db/index.ts';
import { moneyAtRisk } from '../../src/metrics/money-at-risk.ts';
import { onBothDialects } from './harness.ts';

const lowBtc = { kind: 'lowBalance', key: 'wallet:BTC', severity: 'warn', message: 'BTC wallet low', chain: 'BTC', amount: 1234, details: { needed: 5000 }, notify: false };

onBothDialects('operator alerts', (h) => {
  test('a raise is idempotent while active, across a restart and a second instance; cleared, it can be raised again', async () => {
    const url = await h.freshUrl();
    const first = createRepositories(await h.open(url)).alerts;
    assert.equal(await first.raise(lowBtc), true);
    assert.equal(await first.raise({ ...lowBtc, message: 'again' }), false, 'active already');
    // another instance on the same database (or Ferry after a restart)
    const second = createRepositories(await h.open(url)).alerts;
    assert.equal(await second.raise(lowBtc), false, 'active already, for every instance');
    const [only, ...none] = await second.active();
    assert.deepEqual(none, []);
    assert.equal(only.kind, 'lowBalance');
    assert.equal(only.key, 'wallet:BTC');
    assert.equal(only.message, 'BTC wallet low', 'the first raise is the one kept');
    assert.equal(only.amount, 1234);
    assert.equal(only.chain, 'BTC');
    assert.deepEqual(only.details, { needed: 5000 });
    assert.equal(only.clearedAt, undefined);

    // a same key under another kind is another alert
    assert.equal(await first.raise({ ...lowBtc, kind: 'unconfirmed' }), true);
    assert.deepEqual(Object.fromEntries(await first.activeCounts()), { lowBalance: 1, unconfirmed: 1 });

    const cleared = await second.clear('lowBalance', 'wallet:BTC', 'condition', false);
    assert.equal(cleared?.clearedBy, 'condition');
    assert.equal(await first.clear('lowBalance', 'wallet:BTC', 'operator', false), undefined, 'nothing active to clear');
    assert.deepEqual(Object.fromEntries(await first.activeCounts()), { unconfirmed: 1 });

    // the condition returns: a new alert
    assert.equal(await first.raise({ ...lowBtc, message: 'low again' }), true);
    const recent = await first.recent(10);
    assert.deepEqual(
      recent.map((alert) => [alert.kind, alert.message, alert.clearedAt === undefined]),
      [
        ['lowBalance', 'low again', true],
        ['unconfirmed', 'BTC wallet low', true],
        ['lowBalance', 'BTC wallet low', false],
      ],
      'active ones first, newest first',
    );
    assert.equal((await first.recent(1)).length, 1);
  });

  test('concurrent raises of one alert record it once', async () => {
    const url = await h.freshUrl();
    const instances = [createRepositories(await h.open(url)).alerts, createRepositories(await h.open(url)).alerts];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => instances[i % 2].raise({ ...lowBtc, key: 'race' })));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await instances[0].active('lowBalance')).length, 1);
  });

  test("a webhook call is taken by one taker, retried, and a clear queues the 'cleared' call", async () => {
    let clock = 1_000_000;
    const alerts = createRepositories(await h.open(), { now: () => clock }).alerts;
    await alerts.raise({ ...lowBtc, notify: true });
    const [due] = await alerts.dueNotifications(10);
    assert.equal(due.notifyNextAt, clock);
    assert.equal(await alerts.takeNotification(due, clock + 10_000), true);
    assert.equal(await alerts.takeNotification(due, clock + 20_000), false, 'taken already');
    assert.deepEqual(await alerts.dueNotifications(10), [], 'leased');
    await alerts.retryNotification(due.id, 1, clock + 500, clock + 10_000);
    clock += 500;
    const [again] = await alerts.dueNotifications(10);
    assert.equal(again.notifyAttempts, 1);
    assert.equal(await alerts.takeNotification(again, clock + 10_000), true);
    await alerts.notified(again.id, clock + 10_000);
    assert.deepEqual(await alerts.dueNotifications(10), []);
    await alerts.clear('lowBalance', 'wallet:BTC', 'condition', true);
    const [clearedCall] = await alerts.dueNotifications(10);
    assert.equal(clearedCall.notifyAttempts, 0);
    assert.notEqual(clearedCall.clearedAt, undefined);
  });

  test('money at risk: failed swaps whose lockup is lost (paid or not yet), and held payments lost', async () => {
    const storage = await h.storage();
    const lost = { txid: 'cd'.repeat(32), vout: 0, reason: 'doubleSpent', status: 'transaction.mempool', at: 1 };
    const swap = (id: string, n: number, data: Record<string, unknown>) =>
      storage.swaps.insert({ id, type: 'submarine', pair: 'BTC/BTC', status: 'transaction.lockupFailed', preimageHash: String(n).repeat(64), data });
    await swap('paying', 1, { invoiceAmount: 40_000, lockupLost: lost });
    await swap('paid', 2, { invoiceAmount: 30_000, lockupLost: lost, preimage: 'ee'.repeat(32) });
    await swap('plain', 3, { invoiceAmount: 50_000 }); // failed for another reason: nothing at risk
    await storage.alerts.raise({ kind: 'paymentLost', key: 'rev', severity: 'error', message: 'held payment gone', chain: 'L-BTC', amount: 77_000, notify: false });
    const risks = (await moneyAtRisk(storage)).sort((a, b) => a.amount - b.amount);
    assert.deepEqual(risks, [
      { chain: 'BTC', reason: 'fundsLost', amount: 30_000 },
      { chain: 'BTC', reason: 'lockupLost', amount: 40_000 },
      { chain: 'L-BTC', reason: 'paymentLost', amount: 77_000 },
    ]);
    await storage.alerts.clear('paymentLost', 'rev', 'condition', false);
    assert.equal((await moneyAtRisk(storage)).length, 2);
  });
});
