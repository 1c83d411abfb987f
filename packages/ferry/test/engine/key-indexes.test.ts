// Swap key indexes come from the storage counter a block at a time: never one index twice, within a process, across
// two processes on one database, and after a restart (which skips the rest of its block).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRepositories, SWAP_KEY_INDEX } from '../../src/db/index.ts';
import { KeyIndexes } from '../../src/engine/key-indexes.ts';
import { Harness } from '../db/harness.ts';

const harness = new Harness('sqlite');
after(() => harness.cleanup());

test('concurrent takes get distinct indexes, one counter write per block', async () => {
  const storage = await harness.storage();
  const indexes = new KeyIndexes(storage, 8);
  const taken = await Promise.all(Array.from({ length: 20 }, () => indexes.take()));
  assert.deepEqual([...taken].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
  assert.equal(await storage.counters.peek(SWAP_KEY_INDEX), 24, 'three blocks of 8 taken');
});

test('two processes on one database, and a restart, never hand out an index twice', async () => {
  const url = await harness.freshUrl();
  const a = new KeyIndexes(createRepositories(await harness.open(url)), 4);
  const b = new KeyIndexes(createRepositories(await harness.open(url)), 4);
  const taken = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).take()));
  assert.equal(new Set(taken).size, 30);
  const restarted = new KeyIndexes(createRepositories(await harness.open(url)), 4);
  assert.ok((await restarted.take()) >= 32, 'a new process starts after every block taken before');
});
