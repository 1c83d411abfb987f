import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ForeignKeyViolation,
  TransactionAborted,
  createRepositories,
  saveTransition,
  type NewSwap,
  type Storage,
} from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

function swap(id: string, status = 'swap.created'): NewSwap {
  return { id, type: 'reverse', pair: 'BTC/BTC', status, preimageHash: `hash-${id}`, data: { step: 0 } };
}

async function snapshot(s: Storage, id: string) {
  const current = await s.swaps.get(id);
  return { status: current?.status, data: current?.data, version: current?.version, effects: await s.effects.listForSwap(id) };
}

onBothDialects('EffectRepository', (h) => {
  test('added effects are pending, in order, with their payloads', async () => {
    const s = await h.storage({ now: () => 42 });
    await s.swaps.insert(swap('a'));
    const added = await s.effects.add('a', [
      { kind: 'createHoldInvoice', payload: { amount: 1000, memo: 'x' } },
      { kind: 'publishStatus' },
    ]);
    assert.deepEqual(
      added.map(({ id: _id, ...rest }) => rest),
      [
        { swapId: 'a', kind: 'createHoldInvoice', payload: { amount: 1000, memo: 'x' }, state: 'pending', attempts: 0, lastError: null, createdAt: 42, updatedAt: 42 },
        { swapId: 'a', kind: 'publishStatus', payload: {}, state: 'pending', attempts: 0, lastError: null, createdAt: 42, updatedAt: 42 },
      ],
    );
    assert.ok(added[0].id < added[1].id);
    assert.deepEqual(await s.effects.get(added[0].id), added[0]);
    assert.equal(await s.effects.get(added[1].id + 1000), undefined);
  });

  test('listPending returns pending effects across swaps in decision order', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    await s.swaps.insert(swap('b'));
    await s.effects.add('a', [{ kind: 'a1' }]);
    await s.effects.add('b', [{ kind: 'b1' }, { kind: 'b2' }]);
    await s.effects.add('a', [{ kind: 'a2' }]);
    const kinds = (list: { kind: string }[]) => list.map((e) => e.kind);
    assert.deepEqual(kinds(await s.effects.listPending()), ['a1', 'b1', 'b2', 'a2']);
    assert.deepEqual(kinds(await s.effects.listPending({ swapId: 'a' })), ['a1', 'a2']);
    assert.deepEqual(kinds(await s.effects.listPending({ limit: 2 })), ['a1', 'b1']);
    assert.deepEqual(kinds(await s.effects.listPending({ swapId: 'b', limit: 1 })), ['b1']);
  });

  test('done, failed and retried effects follow the pending-only rules', async () => {
    let t = 100;
    const s = await h.storage({ now: () => t });
    await s.swaps.insert(swap('a'));
    const [done, failed, retried] = await s.effects.add('a', [{ kind: 'pay' }, { kind: 'broadcast' }, { kind: 'notify' }]);
    t = 200;
    assert.equal(await s.effects.markDone(done.id), true);
    assert.equal(await s.effects.markDone(done.id), false, 'done twice');
    assert.equal(await s.effects.markFailed(failed.id, 'no route'), true);
    assert.equal(await s.effects.markDone(failed.id), false, 'failed is final');
    assert.equal(await s.effects.recordAttempt(retried.id, 'timeout'), true);
    assert.equal(await s.effects.recordAttempt(retried.id, 'timeout again'), true);
    assert.equal(await s.effects.recordAttempt(done.id, 'late'), false);
    assert.equal(await s.effects.markDone(999_999), false);

    assert.deepEqual(await s.effects.get(done.id), { ...done, state: 'done', attempts: 1, updatedAt: 200 });
    assert.deepEqual(await s.effects.get(failed.id), { ...failed, state: 'failed', attempts: 1, lastError: 'no route', updatedAt: 200 });
    assert.deepEqual(await s.effects.get(retried.id), { ...retried, attempts: 2, lastError: 'timeout again', updatedAt: 200 });
    assert.deepEqual((await s.effects.listPending()).map((e) => e.id), [retried.id]);
    assert.deepEqual((await s.effects.listForSwap('a')).map((e) => e.state), ['done', 'failed', 'pending']);
  });

  test('an effect for an unknown swap is a ForeignKeyViolation', async () => {
    const s = await h.storage();
    await assert.rejects(s.effects.add('ghost', [{ kind: 'pay' }]), ForeignKeyViolation);
    assert.deepEqual(await s.effects.listPending(), []);
  });
});

onBothDialects('saveTransition', (h) => {
  test('writes the new status and its effects together', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    const result = await s.saveTransition(
      { id: 'a', expectedStatus: 'swap.created', status: 'transaction.mempool', data: { step: 1 } },
      [{ kind: 'sendLockup', payload: { sats: 5000 } }, { kind: 'publishStatus', payload: { status: 'transaction.mempool' } }],
    );
    assert.equal(result.applied, true);
    assert.ok(result.applied);
    assert.equal(result.swap.status, 'transaction.mempool');
    assert.deepEqual(result.effects.map((e) => e.kind), ['sendLockup', 'publishStatus']);
    const after = await snapshot(s, 'a');
    assert.equal(after.status, 'transaction.mempool');
    assert.deepEqual(after.data, { step: 1 });
    assert.deepEqual(after.effects, result.effects);
  });

  test('writes nothing when the swap has moved on', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a', 'transaction.mempool'));
    const before = await snapshot(s, 'a');
    const result = await s.saveTransition({ id: 'a', expectedStatus: 'swap.created', status: 'x' }, [{ kind: 'pay' }]);
    assert.deepEqual(result, { applied: false });
    assert.deepEqual(await snapshot(s, 'a'), before);
  });

  test('a failure after the status update leaves neither the status nor any effect', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    const before = await snapshot(s, 'a');
    // The second effect violates NOT NULL on kind, after the swap row and the first effect are written.
    const bad = { kind: null as unknown as string };
    await assert.rejects(
      s.saveTransition({ id: 'a', expectedStatus: 'swap.created', status: 'transaction.mempool' }, [{ kind: 'pay' }, bad]),
    );
    assert.deepEqual(await snapshot(s, 'a'), before);
    assert.deepEqual(await s.effects.listPending(), []);
  });

  test('inside a caller transaction it commits or rolls back with the rest of that transaction', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    await s.swaps.insert(swap('b'));
    const before = await snapshot(s, 'a');
    await assert.rejects(
      s.transaction(async (repos) => {
        const r = await repos.saveTransition({ id: 'a', expectedStatus: 'swap.created', status: 'paid' }, [{ kind: 'settle' }]);
        assert.equal(r.applied, true);
        assert.equal((await repos.swaps.get('a'))?.status, 'paid', 'visible inside the transaction');
        throw new Error('crash before commit');
      }),
      /crash before commit/,
    );
    assert.deepEqual(await snapshot(s, 'a'), before);

    await s.database.transaction(async (tx) => {
      await saveTransition(tx, { id: 'a', expectedStatus: 'swap.created', status: 'paid' }, [{ kind: 'settle' }]);
      await createRepositories(tx).swaps.update({ id: 'b', expectedStatus: 'swap.created', status: 'paid' });
    });
    assert.equal((await s.swaps.get('a'))?.status, 'paid');
    assert.equal((await s.swaps.get('b'))?.status, 'paid');
    assert.deepEqual((await s.effects.listPending()).map((e) => [e.swapId, e.kind]), [['a', 'settle']]);
  });

  test('a swallowed failure inside the caller transaction still rolls everything back', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    const before = await snapshot(s, 'a');
    await assert.rejects(
      s.transaction(async (repos) => {
        await repos.saveTransition({ id: 'a', expectedStatus: 'swap.created', status: 'paid' }, [{ kind: 'settle' }]);
        await repos.effects.add('ghost', [{ kind: 'x' }]).catch(() => {});
      }),
      TransactionAborted,
    );
    assert.deepEqual(await snapshot(s, 'a'), before);
  });

  test('concurrent transitions from one status: one applies, the others write nothing', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap('a'));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        s.saveTransition({ id: 'a', expectedStatus: 'swap.created', status: `next.${i}` }, [{ kind: `effect.${i}` }]),
      ),
    );
    const winners = results.flatMap((r, i) => (r.applied ? [i] : []));
    assert.equal(winners.length, 1);
    const after = await snapshot(s, 'a');
    assert.equal(after.status, `next.${winners[0]}`);
    assert.deepEqual(after.effects.map((e) => e.kind), [`effect.${winners[0]}`]);
  });
});
