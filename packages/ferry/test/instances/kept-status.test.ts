// GET /v2/swap/{id} answers a kept status body (src/engine/status-cache.ts); with several instances on PostgreSQL a
// kept body must never outlive a write another instance made. Instance A (a standby serving the API, as `ferry start`
// wires it through startInstances) keeps a swap's body; instance B's storage writes the row. A's answers are read over
// HTTP at the moment A's own WebSocket/SSE feed announces the change, and while A cannot hear notices at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { SwapKeys } from '@ferry/sdk/keys/index.js';
import { Harness } from '../db/harness.ts';
import { createRepositories, type Storage } from '../../src/db/index.ts';
import { PostgresDatabase } from '../../src/db/postgres.ts';
import { SwapEngine } from '../../src/engine/index.ts';
import { StatusFeed } from '../../src/events/index.ts';
import { startInstances, type Instances } from '../../src/instances/index.ts';
import { leaderKey, swapChannel } from '../../src/instances/names.ts';
import { createApiServer } from '../../src/api/index.ts';
import { listen, stopServer } from '../../src/api/http/server.ts';
import { silentLogger } from '../../src/log/index.ts';
import { generateSwapId } from '../../src/swaps/ids.ts';

const harness = new Harness('postgres');
let storageA: Storage;
let storageB: Storage;
let engineA: SwapEngine;
let feedA: StatusFeed;
let instanceA: Instances;
let leader: pg.Client;
let server: Server;
let api: string;
let schema: string;

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

before(async () => {
  const url = await harness.freshUrl();
  storageA = createRepositories(await harness.open(url));
  storageB = createRepositories(await harness.open(url));
  const db = storageA.database as PostgresDatabase;
  schema = (await db.query<{ schema: string }>('SELECT current_schema() AS schema'))[0].schema;
  // Another instance leads: A stays a standby serving the API, as the second `ferry start` on a database does.
  leader = await db.dedicatedClient();
  await leader.query('SELECT pg_advisory_lock($1::bigint)', [leaderKey(schema)]);
  engineA = new SwapEngine({
    storage: storageA,
    chains: new Map(),
    lightning: new Map(),
    pairs: [],
    keys: SwapKeys.fromMnemonic(generateMnemonic(wordlist, 256), 'regtest'),
    instanceId: 'instance-a',
    standby: true,
  });
  feedA = new StatusFeed();
  instanceA = await startInstances({ storage: storageA, engine: engineA, instanceId: 'instance-a', feed: feedA, logger: silentLogger, onLost: () => {} });
  server = createApiServer({ chains: new Map(), lightning: {}, logger: silentLogger, maxBodyBytes: 10_000, swaps: engineA, statusFeed: feedA });
  const address = await listen(server, 0, '127.0.0.1');
  api = `http://127.0.0.1:${(address as AddressInfo).port}`;
});

after(async () => {
  await stopServer(server);
  await instanceA?.close();
  await leader?.end();
  await harness.cleanup();
});

async function statusAtA(id: string): Promise<string> {
  const response = await fetch(`${api}/v2/swap/${id}`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { status: string }).status;
}

/**
 * A swap B inserts, returned once A heard of the insert: its notice reaches A at its own pace, and one arriving late
 * would drop a body A kept meanwhile and be announced on A's feed in the middle of a test.
 */
async function newSwap(): Promise<string> {
  const id = generateSwapId();
  let heard!: () => void;
  const announced = new Promise<void>((resolve) => (heard = resolve));
  const stop = feedA.subscribe(id, (_, body) => {
    if (body.status === 'swap.created') heard();
  });
  try {
    await storageB.swaps.insert({ id, type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', preimageHash: randomBytes(32).toString('hex') });
    await announced;
  } finally {
    stop();
  }
  return id;
}

test("a transition instance B commits is answered by A's GET as soon as A's feed announces it", async () => {
  const id = await newSwap();
  assert.equal(await statusAtA(id), 'swap.created');
  assert.equal(engineA.keptStatusText(id), '{"status":"swap.created"}', 'A keeps the body it answered');

  // What A answers at the very moment its own WebSocket and SSE clients are told of each change.
  const answered: [string, string][] = [];
  const stop = feedA.subscribe(id, (_, body) => {
    void statusAtA(id).then((status) => answered.push([body.status, status]));
  });
  try {
    await storageB.saveTransition({ id, expectedStatus: 'swap.created', status: 'transaction.mempool' }, []);
    await until('A announced transaction.mempool', () => answered.length === 1);
    await storageB.saveTransition({ id, expectedStatus: 'transaction.mempool', status: 'transaction.failed', data: { failureReason: 'bench of a failure' } }, []);
    await until('A announced transaction.failed', () => answered.length === 2);
  } finally {
    stop();
  }
  assert.deepEqual(answered, [
    ['transaction.mempool', 'transaction.mempool'],
    ['transaction.failed', 'transaction.failed'],
  ]);
  const body = await (await fetch(`${api}/v2/swap/${id}`)).json();
  assert.deepEqual(body, { status: 'transaction.failed', failureReason: 'bench of a failure' }, 'the data a status shows is read again too');
});

test('a write that leaves the status as it was (data only) drops the kept body as well', async () => {
  const id = await newSwap();
  await storageB.saveTransition({ id, expectedStatus: 'swap.created', status: 'transaction.failed', data: { failureReason: 'first' } }, []);
  await until('A answers the failure', async () => (await statusAtA(id)) === 'transaction.failed');
  await until('A keeps it', () => engineA.keptStatusText(id) !== undefined);
  await storageB.saveTransition({ id, expectedStatus: 'transaction.failed', data: { failureReason: 'second' } }, []);
  await until('A drops it', () => engineA.keptStatusText(id) === undefined);
  assert.deepEqual(await (await fetch(`${api}/v2/swap/${id}`)).json(), { status: 'transaction.failed', failureReason: 'second' });
});

test("while A cannot hear notices it keeps nothing and answers B's writes from the database; listening again, it keeps again", async () => {
  const id = await newSwap();
  assert.equal(await statusAtA(id), 'swap.created');
  assert.ok(engineA.keptStatusText(id) !== undefined);

  const { rows } = await leader.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN "${swapChannel(schema)}"`]);
  assert.equal(rows.length, 1, "A's notice connection");
  await leader.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
  await until('A forgets what it kept', () => engineA.keptStatusText(id) === undefined);
  await storageB.saveTransition({ id, expectedStatus: 'swap.created', status: 'transaction.mempool' }, []);
  assert.equal(await statusAtA(id), 'transaction.mempool', 'unheard write, answered from the database');

  // Listening again (after its reconnect pause): reads are kept once more, and writes heard again.
  await until('A keeps a read again', async () => (await statusAtA(id)) === 'transaction.mempool' && engineA.keptStatusText(id) !== undefined);
  await storageB.saveTransition({ id, expectedStatus: 'transaction.mempool', status: 'transaction.confirmed' }, []);
  await until('A answers the heard write', async () => (await statusAtA(id)) === 'transaction.confirmed');
});

test('unknown and malformed ids answer as before: 404 and 400, nothing kept', async () => {
  const unknown = generateSwapId();
  const response = await fetch(`${api}/v2/swap/${unknown}`);
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), { error: `could not find swap with id: ${unknown}` });
  assert.equal(engineA.keptStatusText(unknown), undefined);
  assert.equal((await fetch(`${api}/v2/swap/${'a'.repeat(500)}`)).status, 400);
});
