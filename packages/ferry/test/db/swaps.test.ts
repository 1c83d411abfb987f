import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UniqueViolation, type NewSwap, type Storage } from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

function swap(n: number, overrides: Partial<NewSwap> = {}): NewSwap {
  return {
    id: `swap${n}`,
    type: 'submarine',
    pair: 'BTC/BTC',
    status: 'swap.created',
    preimageHash: n.toString(16).padStart(64, '0'),
    invoice: `lnbcrt${n}`,
    keyIndex: n,
    timeoutBlockHeight: 1000 + n,
    lockupAddress: `bcrt1q${n}`,
    data: { expectedAmount: 100_000 + n, nested: { list: [1, 'two', null] } },
    ...overrides,
  };
}

/** A clock the test moves by hand, so timestamps are exact. */
function manualClock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function conflict(promise: Promise<unknown>): Promise<UniqueViolation> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof UniqueViolation, `expected UniqueViolation, got ${String(error)}`);
  return error;
}

onBothDialects('SwapRepository', (h) => {
  test('insert returns the stored swap and get reads it back', async () => {
    const clock = manualClock();
    const s = await h.storage(clock);
    const inserted = await s.swaps.insert(swap(1));
    const expected = {
      ...swap(1),
      version: 1,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
    assert.deepEqual(inserted, expected);
    assert.deepEqual(await s.swaps.get('swap1'), expected);
    assert.equal(await s.swaps.get('nope'), undefined);
  });

  test('optional columns default to null and data to an empty object', async () => {
    const s = await h.storage();
    const stored = await s.swaps.insert({
      id: 'bare',
      type: 'reverse',
      pair: 'L-BTC/BTC',
      status: 'swap.created',
      preimageHash: 'ab'.repeat(32),
    });
    assert.equal(stored.invoice, null);
    assert.equal(stored.keyIndex, null);
    assert.equal(stored.timeoutBlockHeight, null);
    assert.equal(stored.lockupAddress, null);
    assert.deepEqual(stored.data, {});
  });

  test('finds swaps by preimage hash, invoice and lockup address', async () => {
    const s = await h.storage();
    for (const n of [1, 2, 3]) await s.swaps.insert(swap(n));
    assert.equal((await s.swaps.getByPreimageHash(swap(2).preimageHash))?.id, 'swap2');
    assert.equal((await s.swaps.getByInvoice('lnbcrt3'))?.id, 'swap3');
    assert.equal((await s.swaps.getByLockupAddress('bcrt1q1'))?.id, 'swap1');
    assert.equal(await s.swaps.getByPreimageHash('00'), undefined);
    assert.equal(await s.swaps.getByInvoice('lnbcrt9'), undefined);
    assert.equal(await s.swaps.getByLockupAddress('bcrt1q9'), undefined);
  });

  test('duplicate id, preimage hash or invoice is a UniqueViolation naming the column', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap(1));
    const byId = await conflict(s.swaps.insert(swap(2, { id: 'swap1' })));
    assert.equal(byId.column, 'id');
    assert.equal(byId.table, 'swaps');
    const byHash = await conflict(s.swaps.insert(swap(2, { preimageHash: swap(1).preimageHash })));
    assert.equal(byHash.column, 'preimage_hash');
    const byInvoice = await conflict(s.swaps.insert(swap(2, { invoice: 'lnbcrt1' })));
    assert.equal(byInvoice.column, 'invoice');
    assert.equal(await s.swaps.count(), 1);
  });

  test('any number of swaps may have no invoice yet', async () => {
    const s = await h.storage();
    for (const n of [1, 2, 3]) await s.swaps.insert(swap(n, { invoice: null }));
    assert.equal(await s.swaps.count(), 3);
  });

  test('lists by status oldest first, with a limit, and counts', async () => {
    const clock = manualClock();
    const s = await h.storage(clock);
    const statuses = ['swap.created', 'invoice.set', 'swap.created', 'transaction.mempool', 'swap.created'];
    for (const [i, status] of statuses.entries()) {
      await s.swaps.insert(swap(i, { status }));
      clock.advance(1000);
    }
    const ids = (list: { id: string }[]) => list.map((x) => x.id);
    assert.deepEqual(ids(await s.swaps.listByStatus(['swap.created'])), ['swap0', 'swap2', 'swap4']);
    assert.deepEqual(ids(await s.swaps.listByStatus(['invoice.set', 'transaction.mempool'])), ['swap1', 'swap3']);
    assert.deepEqual(ids(await s.swaps.listByStatus(['swap.created'], { limit: 2 })), ['swap0', 'swap2']);
    assert.deepEqual(await s.swaps.listByStatus(['swap.expired']), []);
    assert.deepEqual(await s.swaps.listByStatus([]), []);
    assert.equal(await s.swaps.count(), 5);
    assert.equal(await s.swaps.count(['swap.created']), 3);
    assert.equal(await s.swaps.count(['swap.created', 'invoice.set']), 4);
    assert.equal(await s.swaps.count([]), 0);
  });

  test('update applies only while the expected status holds', async () => {
    const clock = manualClock();
    const s = await h.storage(clock);
    await s.swaps.insert(swap(1, { invoice: null }));
    clock.advance(5000);
    assert.equal(await s.swaps.update({ id: 'swap1', expectedStatus: 'invoice.set', status: 'transaction.mempool' }), false);
    assert.deepEqual(await s.swaps.get('swap1'), { ...swap(1, { invoice: null }), version: 1, createdAt: clock.now() - 5000, updatedAt: clock.now() - 5000 });

    assert.equal(
      await s.swaps.update({
        id: 'swap1',
        expectedStatus: 'swap.created',
        status: 'invoice.set',
        invoice: 'lnbcrt-late',
        data: { replaced: true },
      }),
      true,
    );
    const updated = await s.swaps.get('swap1');
    assert.equal(updated?.status, 'invoice.set');
    assert.equal(updated?.invoice, 'lnbcrt-late');
    assert.deepEqual(updated?.data, { replaced: true });
    assert.equal(updated?.version, 2);
    assert.equal(updated?.updatedAt, clock.now());
    assert.equal(updated?.createdAt, clock.now() - 5000);
    assert.equal(updated?.lockupAddress, 'bcrt1q1');
    assert.equal((await s.swaps.getByInvoice('lnbcrt-late'))?.id, 'swap1');
  });

  test('update of an unknown swap changes nothing', async () => {
    const s = await h.storage();
    assert.equal(await s.swaps.update({ id: 'ghost', expectedStatus: 'swap.created', status: 'x' }), false);
    assert.equal(await s.swaps.count(), 0);
  });

  test('the version guard catches a change that kept the status', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap(1));
    const seen = (await s.swaps.get('swap1'))!;
    assert.ok(await s.swaps.update({ id: 'swap1', expectedStatus: seen.status, data: { lockupTx: 'aa' } }));
    const stale = { id: 'swap1', expectedStatus: seen.status, expectedVersion: seen.version, data: { lockupTx: 'bb' } };
    assert.equal(await s.swaps.update(stale), false);
    assert.deepEqual((await s.swaps.get('swap1'))?.data, { lockupTx: 'aa' });
    assert.ok(await s.swaps.update({ ...stale, expectedVersion: seen.version + 1 }));
    assert.deepEqual((await s.swaps.get('swap1'))?.data, { lockupTx: 'bb' });
  });

  test('of concurrent updates expecting the same status exactly one wins', async () => {
    const s = await h.storage();
    await s.swaps.insert(swap(1));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.swaps.update({ id: 'swap1', expectedStatus: 'swap.created', status: `winner.${i}` }),
      ),
    );
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true);
    assert.equal((await s.swaps.get('swap1'))?.status, `winner.${winner}`);
  });

  test('a unique conflict on update is typed too', async () => {
    const s: Storage = await h.storage();
    await s.swaps.insert(swap(1));
    await s.swaps.insert(swap(2));
    const error = await conflict(s.swaps.update({ id: 'swap2', expectedStatus: 'swap.created', invoice: 'lnbcrt1' }));
    assert.equal(error.column, 'invoice');
    assert.equal((await s.swaps.get('swap2'))?.invoice, 'lnbcrt2');
  });
});
