// Operator alerts as Ferry runs them, on real SQLite storage: a raise logs one line at its severity and counts once
// however often the condition is seen; the operator webhook receives each alert raised and cleared, signed with the
// alerts' own secret (checked here as a receiver would), after a failed call is retried; a real EffectRunner that
// gives up an effect (after its attempts, or at once on a PermanentEffectError) raises 'effectFailed' with the
// effect's kind and reason, cleared when the operator retries it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerry } from '../../src/app.ts';
import { AlertNotifier } from '../../src/alerts/notifier.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { StoredAlerts } from '../../src/alerts/stored-alerts.ts';
import { openStorage } from '../../src/db/storage.ts';
import { EffectRunner, PermanentEffectError } from '../../src/engine/effects.ts';
import { createLogger } from '../../src/log/index.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';

interface Line {
  level: string;
  message: string;
  [field: string]: unknown;
}

const storageIn = () => openStorage(join(mkdtempSync(join(tmpdir(), 'ferry-alerts-')), 'ferry.sqlite'));

function capture() {
  const lines: Line[] = [];
  const logger = createLogger({ level: 'info', json: true, write: (line) => lines.push(JSON.parse(line) as Line) });
  return { lines, logger };
}

/** Resolves once `check` holds, polling the state it reads (no fixed sleeps: each poll is a fresh look). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a raise logs once at its severity and counts once, however often the condition is seen', async () => {
  const storage = await storageIn();
  const { lines, logger } = capture();
  const alerts = new StoredAlerts(storage.alerts, logger);
  const counted: string[] = [];
  alerts.onRaised((kind, severity) => counted.push(`${kind}/${severity}`));
  try {
    const alert = { kind: 'lowBalance', severity: 'warn', key: 'wallet:BTC', message: 'BTC wallet low', chain: 'BTC', amount: 10 } as const;
    for (let i = 0; i < 3; i++) await alerts.raise(alert);
    await alerts.raise({ ...alert, kind: 'fundsLost', severity: 'error', key: 'swap1', message: 'gone' });
    assert.deepEqual(counted, ['lowBalance/warn', 'fundsLost/error']);
    assert.deepEqual(
      lines.filter((line) => line.message.startsWith('alert:')).map((line) => [line.level, line.message, line.chain]),
      [
        ['warn', 'alert: BTC wallet low', 'BTC'],
        ['error', 'alert: gone', 'BTC'],
      ],
    );
    await alerts.clear('lowBalance', 'wallet:BTC');
    assert.equal(await alerts.acknowledge('lowBalance', 'wallet:BTC'), false, 'cleared already');
    assert.equal(await alerts.acknowledge('fundsLost', 'swap1'), true);
    assert.deepEqual(await storage.alerts.active(), []);
    await alerts.raise(alert);
    assert.deepEqual(counted, ['lowBalance/warn', 'fundsLost/error', 'lowBalance/warn'], 'raised anew once cleared');
    // news (a lost lockup back on chain) is told and kept, but never stays active
    await alerts.raise({ kind: 'lockupFound', severity: 'warn', key: 'swap1', message: 'the lockup is back' });
    assert.deepEqual((await storage.alerts.active()).map((active) => active.kind), ['lowBalance']);
    assert.equal((await storage.alerts.recent(10)).find((recent) => recent.kind === 'lockupFound')?.clearedBy, 'condition');
    assert.ok(lines.some((line) => line.message === 'alert: the lockup is back' && line.level === 'warn'));
  } finally {
    await storage.close();
  }
});

test('the operator webhook gets each alert raised and cleared, signed with its own secret, after retrying a failed call', async () => {
  const secret = 'operator-alerts-secret';
  const received: { body: string; verified: boolean; event: string; data: Record<string, unknown> }[] = [];
  let refuseNext = true;
  const receiver = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (refuseNext) {
        refuseNext = false;
        response.writeHead(503).end();
        return;
      }
      const timestamp = String(request.headers['x-ferry-timestamp']);
      const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'));
      const given = Buffer.from(String(request.headers['x-ferry-signature']));
      const verified = given.length === expected.length && timingSafeEqual(given, expected);
      const parsed = JSON.parse(body) as { event: string; data: Record<string, unknown> };
      received.push({ body, verified, event: parsed.event, data: parsed.data });
      response.writeHead(verified ? 200 : 401).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ferry-alerts`;
  const storage = await storageIn();
  const { lines, logger } = capture();
  const sender = new WebhookSender({ secret, allowPrivate: true, timeoutMs: 5_000 });
  const notifier = new AlertNotifier(storage.alerts, sender, { url, attempts: 5, backoffMs: 50, timeoutMs: 5_000 }, logger);
  const alerts = new StoredAlerts(storage.alerts, logger, notifier);
  notifier.start();
  try {
    await alerts.raise({ kind: 'fundsLost', severity: 'error', key: 'swapA', swapId: 'swapA', chain: 'L-BTC', amount: 99_532, message: 'the user claimed Ferry\'s lockup', details: { txid: 'ab' } });
    await until(() => received.length === 1, 'the raised alert at the receiver');
    assert.ok(lines.some((line) => line.message === 'operator webhook failed, retrying' && line.reason === 'answered 503'), 'the first call failed and was retried');
    assert.equal(received[0].verified, true, 'signed with the alerts secret');
    assert.equal(received[0].event, 'alert.raised');
    assert.deepEqual(
      { ...received[0].data, raisedAt: undefined },
      { kind: 'fundsLost', severity: 'error', key: 'swapA', swapId: 'swapA', chain: 'L-BTC', amount: 99_532, message: "the user claimed Ferry's lockup", details: { txid: 'ab' }, raisedAt: undefined },
    );
    await alerts.raise({ kind: 'fundsLost', severity: 'error', key: 'swapA', message: 'seen again' });
    await alerts.clear('fundsLost', 'swapA');
    await until(() => received.length === 2, 'the cleared alert at the receiver');
    assert.equal(received[1].event, 'alert.cleared', 'the second raise made no call');
    assert.equal(received[1].data.clearedBy, 'condition');
    assert.equal(received[1].verified, true);
    assert.deepEqual(await storage.alerts.dueNotifications(10), [], 'nothing left to call');
  } finally {
    await notifier.stop();
    await new Promise((resolve) => receiver.close(resolve));
    await storage.close();
  }
});

test("an effect the runner gives up raises 'effectFailed' with its kind and reason; the operator's retry clears it", async () => {
  const storage = await storageIn();
  const { logger } = capture();
  const alerts = new StoredAlerts(storage.alerts, logger);
  const runner = new EffectRunner(storage, logger, { retryBaseMs: 5, retryMaxMs: 20, maxAttempts: 3, alerts });
  try {
    await storage.swaps.insert({ id: 'stuck', type: 'chain', pair: 'L-BTC/BTC', status: 'transaction.claim.pending', preimageHash: 'aa'.repeat(32) });
    await storage.swaps.insert({ id: 'doomed', type: 'reverse', pair: 'BTC/BTC', status: 'transaction.mempool', preimageHash: 'bb'.repeat(32) });
    let healed = false;
    let claimed = false;
    runner.register('claimLockup', async () => {
      if (!healed) throw new Error('lockup is unknown to the node');
      claimed = true;
    });
    runner.register('settleInvoice', async () => {
      throw new PermanentEffectError('hold invoice was cancelled before it could be settled');
    });
    runner.enqueue(await storage.effects.add('stuck', [{ kind: 'claimLockup' }]));
    runner.enqueue(await storage.effects.add('doomed', [{ kind: 'settleInvoice' }]));
    await until(async () => (await storage.alerts.active('effectFailed')).length === 2, 'two effectFailed alerts');
    const bySwap = new Map((await storage.alerts.active('effectFailed')).map((alert) => [alert.swapId, alert]));
    const stuck = bySwap.get('stuck')!;
    assert.equal(stuck.severity, 'error');
    assert.equal(stuck.details.effect, 'claimLockup');
    assert.equal(stuck.details.attempts, 3);
    assert.match(String(stuck.details.reason), /gave up after 3 attempts: Error: lockup is unknown to the node/);
    const doomed = bySwap.get('doomed')!;
    assert.equal(doomed.details.effect, 'settleInvoice');
    assert.equal(doomed.details.attempts, undefined, 'given up at once');
    assert.match(String(doomed.details.reason), /hold invoice was cancelled/);

    // the node knows the lockup again and the operator retries the stuck effect: its alert is cleared; the other stays
    healed = true;
    runner.retry(await storage.effects.reopenFailed('stuck'));
    await until(() => claimed, 'the retried effect performed');
    await until(async () => (await storage.alerts.active('effectFailed')).length === 1, 'the retried effect alert cleared');
    assert.equal((await storage.alerts.active('effectFailed'))[0].swapId, 'doomed');
  } finally {
    await runner.stop();
    await storage.close();
  }
});

test('an alerts.webhookUrl that is not an http(s) URL stops start-up with a message naming the key, before anything starts', async () => {
  for (const webhookUrl of ['not a url', 'ftp://ops.example/alerts']) {
    const config = loadConfig({ env: { FERRY_DATA_DIR: mkdtempSync(join(tmpdir(), 'ferry-alerts-conf-')), FERRY_ALERTS_WEBHOOK_URL: webhookUrl } });
    await assert.rejects(startFerry(config, createLogger({ level: 'error', json: true, write: () => {} })), (error: Error) => error instanceof ConfigError && /alerts\.webhookUrl/.test(error.message));
  }
});
