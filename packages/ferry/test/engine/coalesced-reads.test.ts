// The chain reads swap creations and quotes share: concurrent callers get the one read in flight, a fee estimate is
// kept for its TTL, a height never past its own read, and a failed read is not kept.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedReads } from '../../src/engine/coalesced-reads.ts';

function counted(values: (() => Promise<number>)[]) {
  let calls = 0;
  return { read: () => values[Math.min(calls++, values.length - 1)](), calls: () => calls };
}

test('callers while a read is in flight share it; with no TTL the next caller reads again', async () => {
  const chain = {};
  let answer!: (n: number) => void;
  const source = counted([() => new Promise((resolve) => (answer = resolve)), async () => 101]);
  const reads = new SharedReads<object, number>(source.read, 0);
  const both = Promise.all([reads.get(chain), reads.get(chain)]);
  answer(100);
  assert.deepEqual(await both, [100, 100]);
  assert.equal(source.calls(), 1);
  assert.equal(await reads.get(chain), 101, 'a settled height is not kept');
  assert.equal(source.calls(), 2);
});

test('a value is kept for the TTL, per key; a failed read is forgotten at once', async () => {
  const [a, b] = [{}, {}];
  const source = counted([async () => 1, async () => 2, async () => Promise.reject(new Error('node down')), async () => 4]);
  const reads = new SharedReads<object, number>(source.read, 60_000);
  assert.equal(await reads.get(a), 1);
  assert.equal(await reads.get(a), 1, 'kept');
  assert.equal(await reads.get(b), 2, 'another chain reads its own');
  const failing = new SharedReads<object, number>(source.read, 60_000);
  await assert.rejects(failing.get(a), /node down/);
  assert.equal(await failing.get(a), 4, 'read again after a failure');
});

test('fee reads are remembered for the grace after they are replaced, newest first, then dropped', async () => {
  mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  try {
    const chain = {};
    const source = counted([async () => 1, async () => 2, async () => 3]);
    const reads = new SharedReads<object, number>(source.read, 1_000, 60_000);
    assert.equal(await reads.get(chain), 1);
    mock.timers.tick(30_000);
    assert.equal(await reads.get(chain), 2);
    assert.deepEqual(reads.recent(chain), [2, 1]);
    mock.timers.tick(30_001);
    assert.equal(await reads.get(chain), 3);
    assert.deepEqual(reads.recent(chain), [3, 2], 'the first read is older than the grace');
    assert.deepEqual(new SharedReads<object, number>(source.read, 1_000).recent(chain), [], 'nothing kept without a grace');
  } finally {
    mock.timers.reset();
  }
});
