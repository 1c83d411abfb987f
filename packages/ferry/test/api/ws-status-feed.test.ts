// The in-process status fan-out behind the WebSocket and SSE: per-swap delivery, isolation of a failing
// listener, unsubscribing while a change is delivered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusFeed } from '../../src/events/index.ts';
import { MemorySwaps } from './swap-api-harness.ts';

test('changes reach the listeners of that swap only, in order', () => {
  const swaps = new MemorySwaps();
  const feed = new StatusFeed();
  const stopFeeding = feed.connect(swaps);
  const heard: string[] = [];
  feed.subscribe('A', (id, s) => heard.push(`1:${id}:${s.status}`));
  feed.subscribe('A', (id, s) => heard.push(`2:${id}:${s.status}`));
  feed.subscribe('B', (id, s) => heard.push(`3:${id}:${s.status}`));
  swaps.setStatus('A', { status: 'swap.created' });
  swaps.setStatus('C', { status: 'swap.created' });
  swaps.setStatus('A', { status: 'invoice.set' });
  assert.deepEqual(heard, ['1:A:swap.created', '2:A:swap.created', '1:A:invoice.set', '2:A:invoice.set']);
  stopFeeding();
  swaps.setStatus('A', { status: 'invoice.paid' });
  assert.equal(heard.length, 4);
  assert.equal(swaps.listenerCount, 0);
});

test('a throwing listener is reported and does not starve the others', () => {
  const failures: string[] = [];
  const feed = new StatusFeed((error, id) => failures.push(`${id}:${(error as Error).message}`));
  const heard: string[] = [];
  feed.subscribe('A', () => {
    throw new Error('broken');
  });
  feed.subscribe('A', (_, s) => heard.push(s.status));
  feed.publish('A', { status: 'swap.created' });
  assert.deepEqual(heard, ['swap.created']);
  assert.deepEqual(failures, ['A:broken']);
});

test('unsubscribing during delivery is safe, and the feed forgets empty swaps', () => {
  const feed = new StatusFeed();
  const heard: string[] = [];
  const stops: (() => void)[] = [];
  stops.push(feed.subscribe('A', () => {
    heard.push('first');
    for (const stop of stops) stop();
  }));
  stops.push(feed.subscribe('A', () => heard.push('second')));
  feed.publish('A', { status: 'swap.created' });
  // the change was already on its way to both
  assert.deepEqual(heard, ['first', 'second']);
  feed.publish('A', { status: 'invoice.set' });
  assert.deepEqual(heard, ['first', 'second']);
  assert.equal(feed.size, 0);
  stops[0](); // twice is harmless
  assert.equal(feed.size, 0);
});
