import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SWAP_KEY_INDEX, createRepositories, type CheckpointStore } from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

const HASH_A = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const HASH_B = '3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5';

onBothDialects('CheckpointRepository', (h) => {
  test('round-trips each chain independently and overwrites on set', async () => {
    const s = await h.storage();
    const store: CheckpointStore = s.checkpoints;
    assert.equal(await store.get('BTC'), undefined);
    await store.set('BTC', { height: 0, hash: HASH_A });
    await store.set('L-BTC', { height: 1_234_567, hash: HASH_B });
    assert.deepEqual(await store.get('BTC'), { height: 0, hash: HASH_A });
    await store.set('BTC', { height: 101, hash: HASH_B });
    assert.deepEqual(await store.get('BTC'), { height: 101, hash: HASH_B });
    assert.deepEqual(await store.get('L-BTC'), { height: 1_234_567, hash: HASH_B });
  });

  test('survives a re-open', async () => {
    const url = await h.freshUrl();
    const first = await h.open(url);
    await createRepositories(first).checkpoints.set('BTC', { height: 850_000, hash: HASH_A });
    await first.close();
    const second = createRepositories(await h.open(url));
    assert.deepEqual(await second.checkpoints.get('BTC'), { height: 850_000, hash: HASH_A });
  });
});

onBothDialects('CounterRepository', (h) => {
  test('hands out 0, 1, 2, ... per name, and peek does not consume', async () => {
    const s = await h.storage();
    assert.equal(await s.counters.peek(SWAP_KEY_INDEX), 0);
    assert.equal(await s.counters.nextSwapKeyIndex(), 0);
    assert.equal(await s.counters.nextSwapKeyIndex(), 1);
    assert.equal(await s.counters.peek(SWAP_KEY_INDEX), 2);
    assert.equal(await s.counters.next('other'), 0);
    assert.equal(await s.counters.next(SWAP_KEY_INDEX), 2);
  });

  test('50 concurrent increments get 50 distinct values', async () => {
    const s = await h.storage();
    const values = await Promise.all(Array.from({ length: 50 }, () => s.counters.nextSwapKeyIndex()));
    assert.deepEqual([...values].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
    assert.equal(await s.counters.peek(SWAP_KEY_INDEX), 50);
  });

  test('two handles on one database never hand out the same value', async () => {
    const url = await h.freshUrl();
    const a = createRepositories(await h.open(url));
    const b = createRepositories(await h.open(url));
    const values = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).counters.nextSwapKeyIndex()),
    );
    assert.equal(new Set(values).size, 40);
    assert.equal(Math.max(...values), 39);
  });

  test('a block of values is taken in one statement and follows the values handed out before it', async () => {
    const s = await h.storage();
    assert.equal(await s.counters.nextSwapKeyIndexes(16), 0);
    assert.equal(await s.counters.nextSwapKeyIndex(), 16);
    assert.equal(await s.counters.nextSwapKeyIndexes(4), 17);
    assert.equal(await s.counters.peek(SWAP_KEY_INDEX), 21);
    const firsts = await Promise.all(Array.from({ length: 10 }, () => s.counters.nextSwapKeyIndexes(3)));
    assert.deepEqual([...firsts].sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => 21 + 3 * i), 'concurrent blocks never overlap');
  });

  test('values handed out in committed transactions are never reused after a re-open', async () => {
    const url = await h.freshUrl();
    const first = createRepositories(await h.open(url));
    await first.counters.nextSwapKeyIndex();
    await first.transaction((repos) => repos.counters.nextSwapKeyIndex());
    await first.close();
    const second = createRepositories(await h.open(url));
    assert.equal(await second.counters.nextSwapKeyIndex(), 2);
  });
});

onBothDialects('KvRepository', (h) => {
  test('set, overwrite, get and delete', async () => {
    const s = await h.storage();
    assert.equal(await s.kv.get('leader'), undefined);
    await s.kv.set('leader', 'node-1');
    await s.kv.set('other', '{"a":1}');
    assert.equal(await s.kv.get('leader'), 'node-1');
    await s.kv.set('leader', 'node-2');
    assert.equal(await s.kv.get('leader'), 'node-2');
    assert.equal(await s.kv.delete('leader'), true);
    assert.equal(await s.kv.delete('leader'), false);
    assert.equal(await s.kv.get('leader'), undefined);
    assert.equal(await s.kv.get('other'), '{"a":1}');
  });
});
