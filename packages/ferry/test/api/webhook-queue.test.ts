// The webhook delivery queue over a real database and real HTTP: a failing call is retried with backoff and given
// up after its attempts; the retries outlive the process that queued them (a second queue on the same database, as
// after a restart or a takeover, delivers them); two queues on one database never make the same call twice at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { WebhookQueue } from '../../src/webhooks/queue.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';

const dir = mkdtempSync(join(tmpdir(), 'ferry-webhook-queue-'));
const servers: Server[] = [];
const storages: Storage[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  for (const storage of storages) await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sender = new WebhookSender({ secret: 'queue-test', allowPrivate: true, timeoutMs: 1_000 });

/** A receiver answering `status()` and counting calls per path. */
async function receiver(status: () => number) {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push(req.url ?? '');
      res.writeHead(status()).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

async function storageAt(name: string): Promise<Storage> {
  const storage = await openStorage(`sqlite://${join(dir, name)}`);
  storages.push(storage);
  return storage;
}

async function until(condition: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, 'timed out');
    await sleep(20);
  }
}

test('a failing call is retried with backoff, then given up after its attempts; the table is left empty', async () => {
  const storage = await storageAt('give-up.sqlite');
  const failing = await receiver(() => 503);
  const queue = new WebhookQueue(storage, sender, { attempts: 3, backoffMs: 100, timeoutMs: 1_000 }, silentLogger);
  queue.start();
  const started = Date.now();
  await queue.enqueue(`${failing.url}/down`, { event: 'swap.update', data: { id: 'a', status: 'swap.created' } });
  await until(async () => failing.calls.length === 3 && (await storage.webhookDeliveries.count()) === 0);
  assert.ok(Date.now() - started >= 100 + 200, 'waited 100 ms, then 200 ms between the calls');
  await sleep(400);
  assert.equal(failing.calls.length, 3, 'no call after giving up');
  await queue.stop();
});

test('retries outlive their queue: a second queue on the same database delivers what the first could not', async () => {
  let up = false;
  const flaky = await receiver(() => (up ? 200 : 500));
  const first = new WebhookQueue(await storageAt('restart.sqlite'), sender, { attempts: 10, backoffMs: 300, timeoutMs: 1_000 }, silentLogger);
  first.start();
  await first.enqueue(`${flaky.url}/later`, { event: 'swap.update', data: { id: 'b', status: 'invoice.set' } });
  await until(() => flaky.calls.length === 1);
  await first.stop(); // the process is gone, its retry still due

  up = true;
  const storage = await storageAt('restart.sqlite');
  assert.equal(await storage.webhookDeliveries.count(), 1, 'the retry is in the database');
  const second = new WebhookQueue(storage, sender, { attempts: 10, backoffMs: 300, timeoutMs: 1_000 }, silentLogger);
  second.start();
  await until(async () => flaky.calls.length === 2 && (await storage.webhookDeliveries.count()) === 0);
  await second.stop();
});

test('two queues on one database: each call is made once', async () => {
  const slowOk = await receiver(() => 200);
  const a = await storageAt('shared.sqlite');
  const b = await storageAt('shared.sqlite');
  const queues = [a, b].map((storage) => new WebhookQueue(storage, sender, { attempts: 5, backoffMs: 50, timeoutMs: 1_000 }, silentLogger));
  for (let i = 0; i < 20; i++) await a.webhookDeliveries.add(`${slowOk.url}/call-${i}`, '{}');
  for (const queue of queues) queue.start();
  await until(async () => (await a.webhookDeliveries.count()) === 0);
  await Promise.all(queues.map((queue) => queue.stop()));
  assert.equal(slowOk.calls.length, 20);
  assert.equal(new Set(slowOk.calls).size, 20, 'no call twice');
});
