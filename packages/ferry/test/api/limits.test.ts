// The API's limits on a real Ferry over real sockets: per-address request buckets (429 + Retry-After), creation
// stricter than reads, X-Forwarded-For only from a trusted proxy, WebSocket caps that close with a code and a
// reason, slow-header and silent sockets closed, maxConnections, and an aborted body that logs no error.
// Ferry trusts 127.0.0.1 as a proxy here, so each test floods from its own X-Forwarded-For address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { limitsFromConfig } from '../../src/api/limits/from-config.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { startV1World, type V1World } from './v1-support.ts';

let world: V1World;
let port: number;
before(async () => {
  world = await startV1World({}, (config) => {
    Object.assign(config.limits, {
      readBurst: 30,
      readPerSecond: 2,
      createBurst: 3,
      createPerSecond: 0.05,
      trustedProxies: '127.0.0.1',
      maxConnections: 100,
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      wsConnectionsPerIp: 5,
      wsConnections: 30,
      wsMessagesPerMinute: 120,
      wsSubscriptionsPerConnection: 50,
      wsSubscriptions: 250,
    });
  });
  port = Number(new URL(world.ferry.apiUrl).port);
});
after(() => world.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** One request over a fresh socket, from a chosen local address and with chosen headers. */
function send(method: string, path: string, options: { from?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, localAddress: options.from, agent: false, headers: { 'content-type': 'application/json', ...options.headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const as = (address: string) => ({ headers: { 'x-forwarded-for': address } });

async function flood(n: number, call: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < n; i++) answers.push(await call());
  return answers;
}

test('reads: a burst per address, then 429 with Retry-After and an error body; other addresses are untouched', async () => {
  const answers = await flood(45, () => send('GET', '/version', as('203.0.113.1')));
  assert.deepEqual(answers.slice(0, 30).map((a) => a.status), Array(30).fill(200));
  const refused = answers.filter((a) => a.status !== 200);
  assert.ok(refused.length >= 10, `${refused.length} refused`); // 2/s refill lets a few through at most
  for (const answer of refused) {
    assert.equal(answer.status, 429);
    assert.ok(Number(answer.headers['retry-after']) >= 1);
    assert.match(answer.json.error, /^too many requests: try again in \d+ s$/);
  }
  assert.equal((await send('GET', '/version', as('203.0.113.2'))).status, 200);
});

test('the SSE stream and unknown paths count as reads: alone they spend an address\'s bucket', async () => {
  // Their own address and a whole burst of them, so no refill between two requests can make the test pass or fail.
  const paths = ['/streamswapstatus?id=x', '/nowhere'];
  let sent = 0;
  const asked: string[] = [];
  const answers = await flood(45, () => {
    const path = paths[sent++ % paths.length];
    asked.push(path);
    return send('GET', path, as('203.0.113.4'));
  });
  assert.ok(answers.slice(0, 30).every((a) => a.status !== 429), 'the burst is answered');
  const refused = asked.filter((_, i) => answers[i].status === 429);
  assert.ok(refused.length >= 10, `${refused.length} refused`);
  for (const path of paths) assert.ok(refused.includes(path), `${path} refused once the bucket is spent`);
});

test('creation calls have their own, stricter bucket; reads from the same address still pass', async () => {
  const client = as('203.0.113.3');
  const creations = [
    () => send('POST', '/v2/swap/submarine', { ...client, body: '{}' }),
    () => send('POST', '/v2/swap/reverse', { ...client, body: '{}' }),
    () => send('POST', '/createswap', { ...client, body: '{}' }),
    () => send('POST', '/v2/swap/chain', { ...client, body: '{}' }),
  ];
  const answers: Answer[] = [];
  for (const create of creations) answers.push(await create());
  // three invalid requests reach validation (400), the fourth is refused before its body is read
  assert.deepEqual(answers.map((a) => a.status), [400, 400, 400, 429]);
  assert.match(answers[3].json.error, /^too many requests/);
  assert.equal((await send('GET', '/v2/swap/submarine', client)).status, 200);
  // a call on an existing swap is no creation
  assert.equal((await send('POST', '/v2/swap/submarine/AAAAAAAAAAAA/refund', { ...client, body: '{}' })).status, 400);
});

test('X-Forwarded-For from an untrusted peer is ignored: changing it does not buy a fresh bucket', async () => {
  const answers = await flood(45, () => send('GET', '/version', { from: '127.0.0.2', headers: { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250)}` } }));
  assert.ok(answers.filter((a) => a.status === 429).length >= 10);
});

/** A WebSocket client that keeps what it receives and how it was closed. */
class Client {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(data.toString())));
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }
  static open(address: string): Promise<Client> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v2/ws`, { headers: { 'x-forwarded-for': address } });
    const client = new Client(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }
  async until(count: number, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }
  async shut(): Promise<void> {
    this.ws.close();
    await this.closed;
  }
}

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `Limit${String(from + i).padStart(7, 'a')}`);
const subscribe = (args: string[]) => JSON.stringify({ op: 'subscribe', channel: 'swap.update', args });
const unsubscribe = (args: string[]) => JSON.stringify({ op: 'unsubscribe', channel: 'swap.update', args });

test('20 clients subscribing and unsubscribing quickly within the rate get every answer and stay open', async () => {
  const clients = await Promise.all(Array.from({ length: 20 }, (_, i) => Client.open(`192.0.2.${i + 1}`)));
  // each pair subscribes ten swaps and unsubscribes them again: at most 10 per client, 200 of the 250 in all
  for (const client of clients) for (let i = 0; i < 50; i++) client.ws.send((i % 2 ? unsubscribe : subscribe)(ids(i >> 1, 10)));
  await Promise.all(clients.map((client) => client.until(50)));
  for (const client of clients) {
    assert.equal(client.messages.length, 50);
    assert.ok(client.messages.every((m) => m.event === 'subscribe' || m.event === 'unsubscribe'));
    assert.equal(client.ws.readyState, WebSocket.OPEN);
  }
  await Promise.all(clients.map((client) => client.shut()));
});

test('20 clients flooding messages are closed with 1008 and a reason', async () => {
  const clients = await Promise.all(Array.from({ length: 20 }, (_, i) => Client.open(`192.0.2.${i + 101}`)));
  for (const client of clients) for (let i = 0; i < 300; i++) client.ws.send(i % 2 ? unsubscribe(ids(0, 10)) : subscribe(ids(0, 10)));
  for (const client of clients) {
    assert.deepEqual(await client.closed, { code: 1008, reason: 'too many messages: at most 120 per minute' });
    assert.ok(client.messages.length <= 120);
  }
});

test('WebSocket connections per address and in all are capped, with a close code and reason', async () => {
  const mine = await Promise.all(Array.from({ length: 5 }, () => Client.open('192.0.2.200')));
  const sixth = await Client.open('192.0.2.200');
  assert.deepEqual(await sixth.closed, { code: 1008, reason: 'too many connections from your address: at most 5' });
  const others = await Promise.all(Array.from({ length: 25 }, (_, i) => Client.open(`192.0.2.${201 + (i % 5)}`)));
  const over = await Client.open('192.0.2.250');
  assert.deepEqual(await over.closed, { code: 1013, reason: 'server busy: too many connections, try again later' });
  await Promise.all([...mine, ...others].map((client) => client.shut()));
  // freed slots are usable again
  const again = await Client.open('192.0.2.250');
  again.ws.send(JSON.stringify({ op: 'ping' }));
  await again.until(1);
  assert.equal(again.messages[0].event, 'pong');
  await again.shut();
});

test('subscriptions per connection and in all are capped with an error event; the connection stays', async () => {
  const clients = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => Client.open(`192.0.2.${50 + n}`)));
  const [one, last] = [clients[0], clients[5]];
  one.ws.send(subscribe(ids(0, 50)));
  one.ws.send(subscribe(ids(50, 1)));
  await one.until(2);
  assert.deepEqual(one.messages.map((m) => m.error ?? m.event), ['subscribe', 'too many subscriptions: at most 50 swaps per connection']);
  for (const [n, client] of clients.slice(1, 5).entries()) {
    client.ws.send(subscribe(ids(100 * (n + 1), 50)));
    await client.until(1);
    assert.equal(client.messages[0].event, 'subscribe');
  }
  last.ws.send(subscribe(ids(900, 1))); // 5 × 50 = 250 held already
  await last.until(1);
  assert.equal(last.messages[0].error, 'too many subscriptions on this server: try again later');
  // closing a connection returns its share
  await one.shut();
  last.ws.send(subscribe(ids(900, 50)));
  await last.until(2);
  assert.equal(last.messages[1].event, 'subscribe');
  await Promise.all(clients.slice(1).map((client) => client.shut()));
});

/** Resolves when the server closes the socket (read it: a paused socket never sees the end). */
const closedByServer = (socket: Socket) =>
  new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.resume();
  });

test('slow-header and silent sockets are closed; a normal request still works meanwhile', async () => {
  const silent = Array.from({ length: 20 }, () => connect(port, '127.0.0.1'));
  const trickling = Array.from({ length: 20 }, () => connect(port, '127.0.0.1'));
  for (const socket of [...silent, ...trickling]) socket.on('error', () => {});
  const header = 'GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(200);
  let sent = 0;
  const trickle = setInterval(() => {
    for (const socket of trickling) if (!socket.destroyed) socket.write(header[sent % header.length]);
    sent++;
  }, 100);
  const started = Date.now();
  assert.equal((await send('GET', '/version')).status, 200);
  await Promise.all([...silent, ...trickling].map(closedByServer));
  clearInterval(trickle);
  // headersTimeoutMs 1 s (checked every 250 ms): closed within seconds, where Node's defaults take up to 90 s
  assert.ok(Date.now() - started < 10_000, `closed after ${Date.now() - started} ms`);
});

test('maxConnections: sockets beyond it are dropped at once; freed sockets serve again', async () => {
  const held = Array.from({ length: 100 }, () => connect(port, '127.0.0.1'));
  for (const socket of held) socket.on('error', () => {});
  await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  await new Promise((r) => setTimeout(r, 100)); // let the server count them
  await assert.rejects(send('GET', '/version'));
  for (const socket of held) socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await send('GET', '/version')).status, 200);
});

test('a client aborting its request body is no error in the log', async () => {
  const before = world.log.length;
  for (let i = 0; i < 5; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('POST /v2/swap/reverse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"from":');
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(world.log.slice(before), []);
  assert.equal((await send('GET', '/version')).status, 200);
});

test('limits.trustedProxies takes addresses and CIDR ranges; anything else stops start-up', () => {
  const limits = (proxies: string) => limitsFromConfig(loadConfig({ env: { FERRY_LIMITS_TRUSTED_PROXIES: proxies } }));
  assert.deepEqual(limits('10.0.0.1, 172.16.0.0/12,::1').trustedProxies, ['10.0.0.1', '172.16.0.0/12', '::1']);
  assert.deepEqual(limits('').trustedProxies, []);
  for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.0/x']) assert.throws(() => limits(bad), ConfigError, bad);
  // the defaults: limits on, reads looser than creations
  const defaults = limitsFromConfig(loadConfig({ env: {} }));
  assert.ok(defaults.createBurst < defaults.readBurst && defaults.createPerSecond < defaults.readPerSecond);
});
