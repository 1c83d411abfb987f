// `ferry admin` as an operator runs it: the real command in its own process, talking to a real Ferry over the
// admin unix socket (0600, in the 0700 data directory), never over the public API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { hex } from '@scure/base';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { startV1World, type V1World } from '../api/v1-support.ts';

let world: V1World;
let env: Record<string, string | undefined>;
before(async () => {
  world = await startV1World();
  env = { ...process.env, FERRY_ADMIN_SOCKET: world.ferry.adminSocket };
});
after(() => world.close());

const admin = async (...args: string[]) => {
  const { code, stdout, stderr } = await ferryCommand(env, 'admin', ...args);
  return { code, json: code === 0 ? JSON.parse(stdout) : undefined, stderr };
};

async function reverseSwap(): Promise<{ id: string; invoice: string }> {
  const created = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 50_000,
    preimageHash: hex.encode(newPreimage().preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(created.status, 201);
  return created.json;
}

test('the admin socket is the operator account\'s only; the public API has no admin routes', async () => {
  const socket = world.ferry.adminSocket!;
  assert.ok(statSync(socket).isSocket());
  assert.equal((statSync(socket).mode & 0o777).toString(8), '600');
  for (const path of ['/swaps', '/balances', '/admin/swaps']) assert.equal((await world.call('GET', path)).status, 404, path);
});

test('swaps lists the latest swaps, --status filters, swap ID shows data and effect log', async () => {
  const swap = await reverseSwap();
  const listed = await admin('swaps');
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    { ...listed.json[0], createdAt: undefined, updatedAt: undefined },
    { id: swap.id, type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', createdAt: undefined, updatedAt: undefined },
  );
  assert.equal((await admin('swaps', '--status', 'invoice.settled')).json.length, 0);
  assert.equal((await admin('swaps', '--status', 'swap.created', '--limit', '1')).json.length, 1);
  const shown = await admin('swap', swap.id);
  assert.equal(shown.json.id, swap.id);
  assert.ok(Array.isArray(shown.json.effects));
  const unknown = await admin('swap', 'AAAAAAAAAAAA');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /could not find swap with id: AAAAAAAAAAAA/);
  assert.equal((await admin('swaps', '--limit', '0')).code, 1);
  assert.equal((await admin('frobnicate')).code, 2);
});

test('balances: the operator wallets per chain and the Lightning channels', async () => {
  const { code, json, stderr } = await admin('balances');
  assert.equal(code, 0, stderr);
  assert.ok(json.chains.BTC > 0, JSON.stringify(json));
  assert.ok(json.chains['L-BTC'] > 0, JSON.stringify(json));
  assert.ok(json.lightning.BTC.channels > 0 && json.lightning.BTC.capacity > 0, JSON.stringify(json));
});

test('retry puts a swap\'s failed effects back in the queue, and they run', async () => {
  // paid, so Ferry locks: the lockup is an effect (sent at most once, whatever runs it again)
  const swap = await reverseSwap();
  world.pay('alice', swap.invoice).catch(() => {}); // held until settled; fails when Ferry stops
  await world.waitForStatus(swap.id, ['transaction.mempool']);
  await world.ferry.swaps!.whenIdle(swap.id);
  const effects = await world.ferry.storage.effects.listForSwap(swap.id);
  assert.ok(effects.length > 0);
  // as a permanent failure (PermanentEffectError) leaves an effect: the repository only fails pending ones, and
  // this one is done, so the state is written directly (effect handlers are idempotent: running one again is safe)
  await world.ferry.storage.database.execute("UPDATE swap_effects SET state = 'failed', last_error = 'node unreachable' WHERE id = $1", [effects[0].id]);
  const { code, json, stderr } = await admin('retry', swap.id);
  assert.equal(code, 0, stderr);
  assert.deepEqual(json, { id: swap.id, reopened: 1 });
  await world.ferry.swaps!.whenIdle(swap.id);
  assert.equal((await world.ferry.storage.effects.get(effects[0].id))!.state, 'done');
  assert.deepEqual((await admin('retry', swap.id)).json, { id: swap.id, reopened: 0 });
});

test('refund never refunds before the timeout; a submarine swap has nothing of Ferry\'s to refund', async () => {
  const swap = await reverseSwap();
  const { code, json, stderr } = await admin('refund', swap.id);
  assert.equal(code, 0, stderr);
  assert.equal(json.before, 'swap.created');
  assert.equal(json.status, 'swap.created');
  assert.ok(json.heights.BTC < json.timeoutBlockHeight, JSON.stringify(json));
  const { invoice } = await world.invoice('bob', 40_000);
  const submarine = await world.call('POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(newKeyPair().publicKey) });
  assert.equal(submarine.status, 201, JSON.stringify(submarine.json));
  const refused = await admin('refund', submarine.json.id);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /submarine swap: its lockup is the client's/);
});

test('without a running Ferry the command says so', async () => {
  const { code, stderr } = await ferryCommand({ ...process.env, FERRY_ADMIN_SOCKET: '/tmp/no-ferry-here.sock' }, 'admin', 'swaps');
  assert.equal(code, 1);
  assert.match(stderr, /no Ferry answers on \/tmp\/no-ferry-here\.sock/);
});
