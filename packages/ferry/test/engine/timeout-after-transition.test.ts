// A swap that reaches a status with a `timeout` row after its chain's block at or past its timeout was checked is
// timed out at once, not at the next block: Ferry's lockup recorded (after a slow or retried send) when the
// timeout block had already been handled gets its refund requested straight away. Real SQLite storage, the real
// chain-swap machine and swap store, and the chain event router's own block check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../src/db/storage.ts';
import { ChainEventRouter } from '../../src/engine/chain-events.ts';
import type { EngineContext } from '../../src/engine/context.ts';
import { NamedLocks } from '../../src/engine/locks.ts';
import { SwapStore } from '../../src/engine/swap-store.ts';
import { silentLogger } from '../../src/log/index.ts';

const TIMEOUT = 500;

const side = (chain: string, timeoutBlockHeight: number) => ({
  chain,
  lockupScript: '00',
  address: 'a',
  swapTree: {},
  claimPublicKey: '02',
  refundPublicKey: '03',
  timeoutBlockHeight,
  amount: 100_000,
  startHeight: timeoutBlockHeight - 100,
});

async function world() {
  const storage = await openStorage(join(mkdtempSync(join(tmpdir(), 'ferry-timeout-after-')), 'ferry.sqlite'));
  const effects: string[] = [];
  const swaps = new SwapStore(storage, new NamedLocks(), (added) => effects.push(...added.map((effect) => effect.kind)), silentLogger);
  const ctx = { storage, swaps, logger: silentLogger } as unknown as EngineContext;
  const router = new ChainEventRouter(ctx);
  swaps.onTransition((swap) => router.timeoutIfPassed(swap));
  // A chain swap BTC → L-BTC whose user lockup is confirmed and whose lockup Ferry decided to send: the timeout's
  // guard refuses until that lockup is seen.
  await storage.swaps.insert({
    id: 'c1',
    type: 'chain',
    pair: 'L-BTC/BTC',
    status: 'transaction.confirmed',
    preimageHash: 'aa'.repeat(32),
    data: { user: side('BTC', 900), server: side('L-BTC', TIMEOUT), serverLockupRequested: true },
  });
  return { storage, swaps, router, effects };
}

const serverLockup = { txid: 'bb'.repeat(32), vout: 0, value: 99_000, hex: '00', confirmed: false };

test("Ferry's lockup recorded after its timeout block was checked: the refund is requested at once", async () => {
  const { storage, swaps, router, effects } = await world();
  await router.timeouts(TIMEOUT, 'L-BTC');
  assert.equal((await storage.swaps.get('c1'))!.data.refundRequested, undefined, 'the lockup being sent: no timeout yet');

  // The timeout is queued behind the transition's lock: the swap store applies it without another block.
  const refundRequested = new Promise<void>((resolve) => swaps.onTransition((swap) => swap.data.refundRequested === true && resolve()));
  await swaps.dispatch('c1', { type: 'server.sent', data: { serverLockup } });
  await refundRequested;
  const swap = (await storage.swaps.get('c1'))!;
  assert.equal(swap.status, 'transaction.server.mempool');
  assert.equal(swap.data.refundRequested, true);
  assert.deepEqual(effects, ['refundLockup'], 'one refund, not one per transition');
});

test('before its timeout block, the same transition times nothing out', async () => {
  const { storage, swaps, router, effects } = await world();
  await router.timeouts(TIMEOUT - 1, 'L-BTC');
  await swaps.dispatch('c1', { type: 'server.sent', data: { serverLockup } });
  await swaps.dispatch('c1', { type: 'server.confirmed', data: { serverLockup: { ...serverLockup, confirmed: true } } });
  const swap = (await storage.swaps.get('c1'))!;
  assert.equal(swap.status, 'transaction.server.confirmed');
  assert.equal(swap.data.refundRequested, undefined);
  assert.deepEqual(effects, []);
  // and the next block's check does it, as before
  await router.timeouts(TIMEOUT, 'L-BTC');
  assert.equal((await storage.swaps.get('c1'))!.data.refundRequested, true);
  assert.deepEqual(effects, ['refundLockup']);
});
