// v1 server-sent events GET /streamswapstatus?id= over a real socket: framing, first status, changes,
// keep-alive comments and clean-up. The swap service only stores statuses (transport-level test).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { MemorySwaps, call, openStream as open, startApi, swapId } from './swap-api-harness.ts';

const swaps = new MemorySwaps();
const api = await startApi(swaps, { statusStream: { keepAliveMs: 100 } });
after(() => api.close());
const openStream = (path: string) => open(api.url + path);

const id = swapId(1);
swaps.setStatus(id, { status: 'invoice.set' });

test('the first event is the current status, then one event per change', async () => {
  const stream = await openStream(`/streamswapstatus?id=${id}`);
  assert.equal(stream.response.statusCode, 200);
  assert.match(String(stream.response.headers['content-type']), /^text\/event-stream/);
  assert.equal(stream.response.headers['cache-control'], 'no-cache');
  await stream.until(/^data: .*\n\n/);
  assert.deepEqual(stream.events(), [{ status: 'invoice.set' }]);

  swaps.setStatus(swapId(2), { status: 'swap.created' }); // another swap: not on this stream
  swaps.setStatus(id, { status: 'transaction.mempool', zeroConfRejected: true, transaction: { id: 'ab'.repeat(32) } });
  swaps.setStatus(id, { status: 'transaction.confirmed' });
  await stream.until(/transaction\.confirmed/);
  assert.deepEqual(stream.events(), [
    { status: 'invoice.set' },
    { status: 'transaction.mempool', zeroConfRejected: true, transaction: { id: 'ab'.repeat(32) } },
    { status: 'transaction.confirmed' },
  ]);
  // every block is exactly one data line followed by a blank line
  for (const block of stream.text().split('\n\n').filter(Boolean)) assert.match(block, /^(data: \{.*\}|: keep-alive)$/);
  stream.close();
});

test('keep-alive comments flow while nothing changes', async () => {
  const stream = await openStream(`/streamswapstatus?id=${id}`);
  await stream.until(/\n\n: keep-alive\n\n: keep-alive\n\n/);
  assert.equal(stream.events().length, 1);
  stream.close();
});

/** Waits until the server has processed earlier disconnects: the feed holds `count` listeners. */
async function listenersSettle(count: number): Promise<void> {
  for (let i = 0; i < 100 && api.feed.size !== count; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(api.feed.size, count);
}

test('a disconnected client leaves no listener and no stream behind', async () => {
  await listenersSettle(0); // the streams of the tests above were closed by their clients
  const stream = await openStream(`/streamswapstatus?id=${id}`);
  await stream.until(/^data: /);
  assert.equal(api.feed.size, 1);
  stream.close();
  await listenersSettle(0);
});

test('missing id 400, unknown or malformed id 404, other methods 405, all as JSON', async () => {
  assert.deepEqual(await call(api, 'GET', '/streamswapstatus'), { status: 400, json: { error: 'undefined parameter: id' } });
  assert.deepEqual(await call(api, 'GET', '/streamswapstatus?id='), { status: 400, json: { error: 'undefined parameter: id' } });
  const unknown = swapId(77);
  assert.deepEqual(await call(api, 'GET', `/streamswapstatus?id=${unknown}`), {
    status: 404,
    json: { error: `could not find swap with id: ${unknown}` },
  });
  assert.deepEqual(await call(api, 'GET', '/streamswapstatus?id=0O0O0O'), {
    status: 404,
    json: { error: 'could not find swap with id: 0O0O0O' },
  });
  assert.deepEqual(await call(api, 'GET', `/streamswapstatus?id=${'a'.repeat(5000)}`), {
    status: 400,
    json: { error: 'invalid parameter: id' },
  });
  const post = await call(api, 'POST', `/streamswapstatus?id=${id}`, {});
  assert.equal(post.status, 405);
  assert.equal(api.errors.length, 0, api.errors.join('\n'));
  // the refused requests left nothing subscribed
  assert.equal(api.feed.size, 0);
});

test('closing the API server ends open streams instead of hanging', async () => {
  const other = await startApi(swaps);
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${other.url}/streamswapstatus?id=${id}`, resolve).on('error', reject),
  );
  response.resume();
  const ended = new Promise<void>((resolve) => response.on('close', () => resolve()));
  await other.close();
  await ended;
});
