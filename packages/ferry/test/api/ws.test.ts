// The v2 WebSocket over a real socket: message framing, subscriptions, fan-out and connection hygiene.
// The swap service here only stores statuses (transport-level test; swap semantics are tested with the engine).
import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { MemorySwaps, TestSocket, startApi, swapId } from './swap-api-harness.ts';

const swaps = new MemorySwaps();
const api = await startApi(swaps, { webSocket: { maxSubscriptions: 5, maxPayloadBytes: 4096, pingIntervalMs: 150 } });
after(() => api.close());

const a = swapId(1);
const b = swapId(2);
const unknown = swapId(99);
swaps.setStatus(a, { status: 'swap.created' });
swaps.setStatus(b, { status: 'transaction.mempool', transaction: { id: 'ab'.repeat(32), hex: '0200' } });

const isTimestamp = (value: unknown) => typeof value === 'string' && /^\d{13}$/.test(value) && Math.abs(Number(value) - Date.now()) < 60_000;

describe('swap.update', () => {
  test('subscribe: the ack, then one update with the current status of every known id', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    const ack = await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [a, unknown, b] });
    assert.deepEqual({ ...ack, timestamp: undefined }, { event: 'subscribe', channel: 'swap.update', args: [a, unknown, b], timestamp: undefined });
    assert.ok(isTimestamp(ack.timestamp));
    const update = await socket.next();
    assert.equal(update.event, 'update');
    assert.equal(update.channel, 'swap.update');
    assert.ok(isTimestamp(update.timestamp));
    assert.deepEqual(update.args, [
      { id: a, status: 'swap.created' },
      { id: b, status: 'transaction.mempool', transaction: { id: 'ab'.repeat(32), hex: '0200' } },
    ]);
    await socket.nothingPending();
    socket.close();
  });

  test('every later change of a subscribed swap is an update; other swaps are not sent', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [a] });
    await socket.next(); // snapshot
    swaps.setStatus(b, { status: 'transaction.confirmed' });
    swaps.setStatus(a, { status: 'invoice.set' });
    const update = await socket.next();
    assert.deepEqual(update.args, [{ id: a, status: 'invoice.set' }]);
    await socket.nothingPending();
    socket.close();
  });

  test('a swap that did not exist at subscription time is reported once it appears', async () => {
    const later = swapId(50);
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [later] });
    await socket.nothingPending(); // no snapshot: the id was unknown
    swaps.setStatus(later, { status: 'swap.created' });
    assert.deepEqual((await socket.next()).args, [{ id: later, status: 'swap.created' }]);
    socket.close();
  });

  test('unsubscribe answers with both event and op, listing the ids still subscribed; changes stop', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [a, b] });
    await socket.next();
    const reply = await socket.ask({ op: 'unsubscribe', channel: 'swap.update', args: [a, unknown] });
    assert.deepEqual({ ...reply, timestamp: undefined }, {
      event: 'unsubscribe',
      op: 'unsubscribe',
      channel: 'swap.update',
      args: [b],
      timestamp: undefined,
    });
    assert.ok(isTimestamp(reply.timestamp));
    swaps.setStatus(a, { status: 'transaction.mempool' });
    swaps.setStatus(b, { status: 'invoice.pending' });
    assert.deepEqual((await socket.next()).args, [{ id: b, status: 'invoice.pending' }]);
    await socket.nothingPending();
    socket.close();
  });

  test('a change during the snapshot read is never followed by the older status', async () => {
    const racing = swapId(60);
    swaps.setStatus(racing, { status: 'swap.created' });
    let open!: () => void;
    swaps.statusGate = new Promise((resolve) => (open = resolve));
    const socket = await TestSocket.open(api.wsUrl);
    const ack = await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [racing] });
    assert.equal(ack.event, 'subscribe');
    // the read saw swap.created and is stuck at the gate; the engine commits and publishes a newer status
    swaps.setStatus(racing, { status: 'transaction.mempool' });
    swaps.statusGate = undefined;
    open();
    assert.deepEqual((await socket.next()).args, [{ id: racing, status: 'transaction.mempool' }]);
    await socket.nothingPending();
    socket.close();
  });

  test('app-level ping answers pong with a timestamp', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    const pong = await socket.ask({ op: 'ping' });
    assert.equal(pong.event, 'pong');
    assert.ok(isTimestamp(pong.timestamp));
    socket.close();
  });
});

describe('errors and limits', () => {
  const cases: [string, unknown, RegExp][] = [
    ['unparsable JSON', '{"op": "subscribe"', /^could not parse message/],
    ['a JSON array', '[1,2]', /^could not parse message: not a JSON object$/],
    ['a JSON string', '"subscribe"', /^could not parse message: not a JSON object$/],
    ['no op', { channel: 'swap.update', args: [] }, /^undefined parameter: op$/],
    ['a non-string op', { op: 5 }, /^invalid parameter: op$/],
    ['an unknown op', { op: 'dance' }, /^unknown operation: dance$/],
    ['an unknown channel', { op: 'subscribe', channel: 'swap.gossip', args: [] }, /^unknown channel: swap.gossip$/],
    ['a missing channel', { op: 'subscribe', args: [a] }, /^undefined parameter: channel$/],
    ['a non-string channel', { op: 'subscribe', channel: ['swap.update'], args: [a] }, /^invalid parameter: channel$/],
    ['a BOLT12 subscription to no offer', { op: 'subscribe', channel: 'invoice.request', args: [{ offer: 'lno1', signature: 'ab' }] }, /^invalid offer subscription 0/],
    ['a BOLT12 invoice answer to no request', { op: 'invoice', id: 'x', invoice: 'lni1' }, /^unknown invoice request id: x$/],
    ['a BOLT12 invoice error for no request', { op: 'invoice.error', id: 'x', error: 'no' }, /^unknown invoice request id: x$/],
    ['missing args', { op: 'subscribe', channel: 'swap.update' }, /^undefined parameter: args$/],
    ['args as a string', { op: 'subscribe', channel: 'swap.update', args: a }, /^invalid parameter: args/],
    ['args as an object', { op: 'unsubscribe', channel: 'swap.update', args: { id: a } }, /^invalid parameter: args/],
    ['a numeric id', { op: 'subscribe', channel: 'swap.update', args: [a, 5] }, /swap ids must be strings/],
    ['a null id', { op: 'unsubscribe', channel: 'swap.update', args: [null] }, /swap ids must be strings/],
    ['an overlong id', { op: 'subscribe', channel: 'swap.update', args: ['x'.repeat(65)] }, /not a swap id/],
    ['101 ids', { op: 'subscribe', channel: 'swap.update', args: Array.from({ length: 101 }, (_, i) => swapId(i)) }, /^too many args: 101/],
  ];
  for (const [name, message, expected] of cases) {
    test(`${name} gets an error event and the connection stays usable`, async () => {
      const socket = await TestSocket.open(api.wsUrl);
      const answer = await socket.ask(message);
      assert.equal(answer.event, 'error');
      assert.match(answer.error, expected);
      assert.ok(isTimestamp(answer.timestamp));
      await socket.nothingPending();
      socket.close();
    });
  }

  test('subscriptions per connection are limited; a refused message subscribes nothing', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    const ids = [1, 2, 3, 4].map((n) => swapId(200 + n));
    assert.equal((await socket.ask({ op: 'subscribe', channel: 'swap.update', args: ids })).event, 'subscribe');
    // re-subscribing known ids does not count twice
    assert.equal((await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [ids[0], swapId(205)] })).event, 'subscribe');
    const refused = await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [swapId(206), swapId(207)] });
    assert.deepEqual([refused.event, refused.error], ['error', 'too many subscriptions: at most 5 swaps per connection']);
    const reply = await socket.ask({ op: 'unsubscribe', channel: 'swap.update', args: [] });
    assert.deepEqual(reply.args, [...ids.slice(1), ids[0], swapId(205)]);
    socket.close();
  });

  test('an oversized message closes the connection with 1009; the server keeps serving', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    socket.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: ['x'.repeat(5000)] }));
    assert.equal((await socket.closed).code, 1009);
    const fresh = await TestSocket.open(api.wsUrl);
    assert.equal((await fresh.ask({ op: 'ping' })).event, 'pong');
    fresh.close();
  });

  test('upgrades on other paths are refused with 404', async () => {
    for (const path of ['/v2/wss', '/v2/ws/x', '/ws', '/']) {
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${api.port}${path}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => reject(new Error('opened ' + path)));
        ws.on('error', () => {});
      });
      assert.equal(status, 404, path);
    }
    // a query string is fine on the real path
    const socket = await TestSocket.open(api.wsUrl + '?client=test');
    assert.equal((await socket.ask({ op: 'ping' })).event, 'pong');
    socket.close();
  });
});

describe('connection hygiene', () => {
  /** Waits until the server has processed earlier disconnects: the feed holds `count` listeners. */
  async function listenersSettle(count: number): Promise<void> {
    for (let i = 0; i < 100 && api.feed.size !== count; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(api.feed.size, count);
  }

  test('a closed connection leaves no listener behind', async () => {
    await listenersSettle(0); // every test above closed its socket
    const socket = await TestSocket.open(api.wsUrl);
    await socket.ask({ op: 'subscribe', channel: 'swap.update', args: [a, b, unknown] });
    await socket.next();
    assert.equal(api.feed.size, 3);
    socket.close();
    await socket.closed;
    await listenersSettle(0);
  });

  test('a peer that does not answer protocol pings is dropped; a live one stays', async () => {
    const live = await TestSocket.open(api.wsUrl);
    // a raw TCP peer that completes the handshake and then ignores every frame
    const dead = connect(api.port, '127.0.0.1');
    const key = randomBytes(16).toString('base64');
    dead.write(
      `GET /v2/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    let handshake = '';
    dead.on('data', (chunk) => (handshake += chunk.toString('latin1')));
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('dead peer still connected')), 3000);
      dead.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    assert.match(handshake, /^HTTP\/1\.1 101/);
    // ping interval 150 ms: dropped after missing one round, well within a second
    assert.ok(Date.now() - started < 2000);
    assert.equal((await live.ask({ op: 'ping' })).event, 'pong');
    live.close();
  });

  test('closing the API server ends open WebSocket connections instead of hanging', async () => {
    const other = await startApi(new MemorySwaps());
    const socket = await TestSocket.open(other.wsUrl);
    const closed = other.close();
    assert.notEqual((await socket.closed).code, undefined);
    await closed;
  });
});
