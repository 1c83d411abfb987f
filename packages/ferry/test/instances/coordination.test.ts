// The PostgreSQL pieces several instances coordinate with, on a fresh schema of the test database and without a
// devnet: the leader advisory lock changes hands when the holder's session ends, an instance id cannot be used twice
// at once, a new leader frees only the leases of instances that are gone, and the swap trigger's notices arrive in
// commit order and reach a status feed once per status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { Harness } from '../db/harness.ts';
import type { Storage } from '../../src/db/index.ts';
import { PostgresDatabase } from '../../src/db/postgres.ts';
import { silentLogger } from '../../src/log/index.ts';
import { StatusFeed } from '../../src/events/index.ts';
import { LeaderLock } from '../../src/instances/leader.ts';
import { freeLeasesOfGoneInstances } from '../../src/instances/leases.ts';
import { instanceKey, leaderKey, swapChannel } from '../../src/instances/names.ts';
import { installSwapTrigger, type SwapNotice } from '../../src/instances/notify-trigger.ts';
import { StatusRelay } from '../../src/instances/status-relay.ts';
import { SwapNotices } from '../../src/instances/swap-notices.ts';

const harness = new Harness('postgres');
let storage: Storage;
let db: PostgresDatabase;
let schema: string;

before(async () => {
  storage = await harness.storage();
  db = storage.database as PostgresDatabase;
  schema = (await db.query<{ schema: string }>('SELECT current_schema() AS schema'))[0].schema;
  await installSwapTrigger(db, schema);
});
after(() => harness.cleanup());

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

function lockFor(instance: string, events: string[]) {
  let session: pg.Client | undefined;
  const lock = new LeaderLock({
    connect: () => db.dedicatedClient(),
    leaderKey: leaderKey(schema),
    instanceKey: instanceKey(schema, instance),
    logger: silentLogger,
    retryMs: 50,
    onLeader: async (client) => {
      session = client;
      events.push(`${instance} leads`);
    },
    onLost: (reason) => events.push(`${instance} lost: ${reason.split(':')[0]}`),
  });
  return { lock, session: () => session };
}

describe('instances on PostgreSQL', () => {
  test('one leader at a time; when its session ends another takes over and the old one is told', async () => {
    const events: string[] = [];
    const a = lockFor('a', events);
    const b = lockFor('b', events);
    await a.lock.start();
    await b.lock.start();
    assert.deepEqual([a.lock.role, b.lock.role], ['leader', 'standby']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(b.lock.role, 'standby', 'the standby keeps trying without taking a held lock');

    const pid = (await a.session()!.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const ended = Date.now();
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('b leads', () => b.lock.role === 'leader');
    process.stdout.write(`# leader lock changed hands ${Date.now() - ended} ms after the session ended\n`);
    await until('a is told', () => events.length === 3);
    // Which of the two is heard first is up to PostgreSQL and the sockets: both happen, once.
    assert.deepEqual([events[0], ...events.slice(1).sort()], ['a leads', 'a lost: leader lock connection lost', 'b leads']);
    await Promise.all([a.lock.stop(), b.lock.stop()]);
  });

  test('a standby stopped while it takes the lock: halt waits for the start under way, and a failed start is no lost lock', async () => {
    const events: string[] = [];
    const a = lockFor('holder', events);
    await a.lock.start();
    // b's start of leading waits on us, as an engine start takes its time, then fails (its pool was ended).
    let starting!: () => void;
    const started = new Promise<void>((resolve) => (starting = resolve));
    let finish!: (error?: Error) => void;
    const finished = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
    const b = new LeaderLock({
      connect: () => db.dedicatedClient(),
      leaderKey: leaderKey(schema),
      instanceKey: instanceKey(schema, 'stopping'),
      logger: silentLogger,
      retryMs: 50,
      onLeader: async () => {
        events.push('stopping starts leading');
        starting();
        await finished;
      },
      onLost: (reason) => events.push(`stopping lost: ${reason}`),
    });
    await b.start();
    assert.equal(b.role, 'standby');
    await a.lock.stop(); // the lock is free: b's next attempt takes it
    await started;
    let halted = false;
    const halting = b.halt().then(() => (halted = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(halted, false, 'halt waits for the start under way');
    finish(new Error('Cannot use a pool after calling end on the pool'));
    await halting;
    assert.deepEqual(events, ['holder leads', 'stopping starts leading'], 'a start that failed during the stop is not reported as a lost lock');
    await b.stop();
  });

  test('a second live process with the same instance id is refused', async () => {
    const first = lockFor('same', []);
    await first.lock.start();
    const second = lockFor('same', []);
    await assert.rejects(second.lock.start(), /another live Ferry instance uses this instance id/);
    await first.lock.stop();
    await second.lock.stop();
  });

  test('a new leader frees the swap lock leases of gone instances only', async () => {
    const alive = lockFor('alive', []);
    await alive.lock.start(); // holds its liveness lock (and leads)
    await storage.locks.tryAcquire('swap-of-alive', 'alive', 60_000);
    await storage.locks.tryAcquire('swap-of-gone', 'gone', 60_000);
    const client = await db.dedicatedClient();
    try {
      assert.deepEqual(await freeLeasesOfGoneInstances(db, client, schema, 'me'), ['gone']);
    } finally {
      await client.end();
    }
    assert.equal(await storage.locks.tryAcquire('swap-of-gone', 'me', 60_000), true, 'the gone instance’s lease was freed');
    assert.equal(await storage.locks.tryAcquire('swap-of-alive', 'me', 60_000), false, 'the live instance keeps its lease');
    await alive.lock.stop();
  });

  test('swap notices come in commit order; the relay publishes each status once, with its body', async () => {
    const notices: SwapNotice[] = [];
    const feed = new StatusFeed();
    const relay = new StatusRelay((id) => storage.swaps.get(id), feed, silentLogger);
    const listener = new SwapNotices({
      connect: () => db.dedicatedClient(),
      channel: swapChannel(schema),
      logger: silentLogger,
      onNotice: (notice) => {
        notices.push(notice);
        relay.handle(notice);
      },
      onReconnect: () => {},
    });
    await listener.start();
    const heard: string[] = [];
    feed.subscribe('n1', (_, body) => heard.push(body.status));
    try {
      await storage.swaps.insert({ id: 'n1', type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', preimageHash: '11'.repeat(32) });
      const steps: [string, string][] = [
        ['swap.created', 'swap.created'], // data only: no status change
        ['swap.created', 'transaction.mempool'],
        ['transaction.mempool', 'transaction.confirmed'],
      ];
      for (const [version, [from, to]] of steps.entries()) {
        await storage.saveTransition({ id: 'n1', expectedStatus: from, expectedVersion: version + 1, status: to, data: { step: version } }, []);
      }
      await until('four notices', () => notices.length === 4);
      assert.deepEqual(
        notices.map((n) => [n.status, n.version, n.changed]),
        [['swap.created', 1, true], ['swap.created', 2, false], ['transaction.mempool', 3, true], ['transaction.confirmed', 4, true]],
      );
      await until('three statuses relayed', () => heard.length === 3);
      assert.deepEqual(heard, ['swap.created', 'transaction.mempool', 'transaction.confirmed'], 'each status once, in order, none skipped');
      // A rolled-back write is never announced.
      await assert.rejects(
        storage.transaction(async (repos) => {
          await repos.saveTransition({ id: 'n1', expectedStatus: 'transaction.confirmed', status: 'invoice.settled' }, []);
          throw new Error('abort');
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(notices.length, 4);
    } finally {
      await listener.stop();
    }
  });
});
