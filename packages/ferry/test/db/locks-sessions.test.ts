// Leases and MuSig2 signing sessions in the database, on both dialects: what lets several instances share swaps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRepositories } from '../../src/db/index.ts';
import { NamedLocks } from '../../src/engine/locks.ts';
import { onBothDialects } from './harness.ts';

onBothDialects('locks and signing sessions', (h) => {
  test('a lease has one holder until it is released or expires; its holder may take it again', async () => {
    let now = 1_000;
    const db = await h.open();
    const locks = createRepositories(db, { now: () => now }).locks;
    assert.equal(await locks.tryAcquire('swap-1', 'a', 10_000), true);
    assert.equal(await locks.tryAcquire('swap-1', 'b', 10_000), false, 'held by a');
    assert.equal(await locks.tryAcquire('swap-2', 'b', 10_000), true, 'another name is free');
    assert.equal(await locks.tryAcquire('swap-1', 'a', 10_000), true, 'a restarted holder takes its own lease back');
    now += 10_001;
    assert.equal(await locks.renew('swap-1', 'a', 10_000), true);
    assert.equal(await locks.tryAcquire('swap-1', 'b', 10_000), false, 'renewed');
    now += 10_001;
    assert.equal(await locks.tryAcquire('swap-1', 'b', 10_000), true, 'expired: taken over');
    assert.equal(await locks.renew('swap-1', 'a', 10_000), false, 'a lost it');
    await locks.release('swap-1', 'a');
    assert.equal(await locks.tryAcquire('swap-1', 'a', 10_000), false, 'releasing what one no longer holds frees nothing');
    await locks.release('swap-1', 'b');
    assert.equal(await locks.tryAcquire('swap-1', 'a', 10_000), true);
  });

  test('two instances on one database never run the same swap at the same time', async () => {
    const url = await h.freshUrl();
    const first = new NamedLocks(createRepositories(await h.open(url)).locks, { owner: 'first', retryMs: 5 });
    const second = new NamedLocks(createRepositories(await h.open(url)).locks, { owner: 'second', retryMs: 5 });
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const work = (locks: NamedLocks, who: string) =>
      locks.run('swap-x', async () => {
        inside++;
        most = Math.max(most, inside);
        order.push(who);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inside--;
      });
    await Promise.all([work(first, 'first'), work(second, 'second'), work(first, 'first'), work(second, 'second')]);
    assert.equal(most, 1, 'never two at once');
    assert.equal(order.length, 4);
  });

  test('a signing session is used at most once, whoever asks', async () => {
    const s = await h.storage();
    await s.swaps.insert({ id: 'sw', type: 'submarine', pair: 'BTC/BTC', status: 'transaction.claim.pending', preimageHash: 'h', data: {} });
    const session = { swapId: 'sw', purpose: 'claim', publicNonce: 'aa', sealedSecretNonce: 'bb', message: 'cc', transactionHex: 'dd' };
    await s.signingSessions.open(session);
    assert.equal((await s.signingSessions.get('sw', 'claim'))?.used, false);
    const claims = await Promise.all([1, 2, 3].map(() => s.signingSessions.markUsed('sw', 'claim', 'aa')));
    assert.deepEqual(claims.filter(Boolean).length, 1, 'exactly one caller may sign');
    assert.equal((await s.signingSessions.get('sw', 'claim'))?.used, true);
    await s.signingSessions.open({ ...session, publicNonce: 'ee' });
    assert.equal(await s.signingSessions.markUsed('sw', 'claim', 'aa'), false, 'the replaced nonce signs nothing');
    assert.equal(await s.signingSessions.markUsed('sw', 'claim', 'ee'), true, 'the new session is open');
  });
});
