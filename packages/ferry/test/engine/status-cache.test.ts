// The kept status bodies: a read that a write overtook keeps nothing (it may have read the row before the write), a
// suspended cache keeps nothing, and the oldest body goes first past the capacity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusCache } from '../../src/engine/status-cache.ts';

/** A read that answers `text` when told to. */
function pendingRead(text: string | undefined) {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  return { read: async () => (await answered, text), answer };
}

test('a read is kept, and answered from then on without reading', async () => {
  const cache = new StatusCache();
  let reads = 0;
  const read = async () => (reads++, '{"status":"swap.created"}');
  assert.equal(await cache.read('a', read), '{"status":"swap.created"}');
  assert.equal(await cache.read('a', read), '{"status":"swap.created"}');
  assert.equal(cache.text('a'), '{"status":"swap.created"}');
  assert.equal(reads, 1);
  cache.drop('a');
  assert.equal(cache.text('a'), undefined);
  assert.equal(await cache.read('a', read), '{"status":"swap.created"}');
  assert.equal(reads, 2);
});

test('an unknown swap is not kept', async () => {
  const cache = new StatusCache();
  assert.equal(await cache.read('x', async () => undefined), undefined);
  assert.equal(cache.size, 0);
});

test('a read under way when its swap is dropped answers but keeps nothing; a read begun after the drop is kept', async () => {
  const cache = new StatusCache();
  const old = pendingRead('{"status":"swap.created"}');
  const reading = cache.read('a', old.read);
  cache.drop('a'); // the row is written while the read is in flight
  const fresh = pendingRead('{"status":"transaction.mempool"}');
  const second = cache.read('a', fresh.read);
  fresh.answer();
  assert.equal(await second, '{"status":"transaction.mempool"}');
  old.answer();
  assert.equal(await reading, '{"status":"swap.created"}');
  assert.equal(cache.text('a'), '{"status":"transaction.mempool"}', 'the older read did not replace the newer one');
});

test('suspended, nothing is kept and reads in flight are not kept when they end; resumed, reads are kept again', async () => {
  const cache = new StatusCache();
  await cache.read('a', async () => '{"status":"swap.created"}');
  const inFlight = pendingRead('{"status":"swap.created"}');
  const reading = cache.read('b', inFlight.read);
  cache.suspend();
  assert.equal(cache.text('a'), undefined);
  inFlight.answer();
  await reading;
  await cache.read('c', async () => '{"status":"swap.created"}');
  assert.equal(cache.size, 0);
  cache.resume();
  await cache.read('c', async () => '{"status":"swap.created"}');
  assert.equal(cache.text('c'), '{"status":"swap.created"}');
});

test('past its capacity the body kept longest goes first', async () => {
  const cache = new StatusCache(true, 2);
  for (const id of ['a', 'b', 'c']) await cache.read(id, async () => `{"id":"${id}"}`);
  assert.deepEqual(['a', 'b', 'c'].map((id) => cache.text(id)), [undefined, '{"id":"b"}', '{"id":"c"}']);
});
