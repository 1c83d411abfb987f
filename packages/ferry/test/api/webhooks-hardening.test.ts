// Audit of webhook delivery against the hostile receivers the reference backend hardened against in 2026: a
// redirect is never followed, a private address is refused at call time (also when the URL is an IP literal,
// which Node connects to without any lookup), a receiver that trickles or floods its answer is cut off at the
// deadline or the size cap, and the signature binds timestamp and body together. Real sockets, Ferry's sender.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookSender, signature } from '../../src/webhooks/sender.ts';

const SECRET = 'audit-secret';
const servers: Server[] = [];
after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

interface Seen {
  paths: string[];
  closedAt: number[];
}

/** A receiver on 127.0.0.1 answering with `handle`; records paths and when each connection closed. */
async function receiver(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { paths: [], closedAt: [] };
  const server = createServer((req, res) => {
    seen.paths.push(req.url ?? '');
    req.socket.on('close', () => seen.closedAt.push(Date.now()));
    req.resume();
    req.on('end', () => handle(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const sender = (options: Partial<{ allowPrivate: boolean; timeoutMs: number }> = {}) => new WebhookSender({ secret: SECRET, allowPrivate: true, timeoutMs: 2_000, ...options });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = JSON.stringify({ event: 'swap.update', data: { id: 'audit', status: 'swap.created' } });

test('a redirect is not followed: the target is never called, the call counts as failed (and is retried at the same URL)', async () => {
  const target = await receiver((_req, res) => res.writeHead(200).end());
  const redirector = await receiver((_req, res) => res.writeHead(302, { location: `${target.url}/stolen` }).end());
  assert.equal(await sender().send(`${redirector.url}/hook`, event), 'answered 302');
  await sleep(100);
  assert.deepEqual(redirector.seen.paths, ['/hook']);
  assert.deepEqual(target.seen.paths, []);
});

test('a private IP literal is refused at call time, not only at registration', async () => {
  const inside = await receiver((_req, res) => res.writeHead(200).end());
  void sender({ allowPrivate: false }).send(`${inside.url}/literal`, event);
  void sender({ allowPrivate: false }).send(`${inside.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')}/mapped`, event);
  void sender({ allowPrivate: true }).send(`${inside.url}/allowed`, event);
  await sleep(300);
  assert.deepEqual(inside.seen.paths, ['/allowed']);
});

test('a receiver that trickles its answer is cut off at the deadline, not kept alive byte by byte', async () => {
  const slow = await receiver((_req, res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write('.'), 50); // never idle long enough for a socket idle timeout
    res.on('close', () => clearInterval(timer));
  });
  const started = Date.now();
  void sender({ timeoutMs: 400 }).send(`${slow.url}/slow`, event);
  while (slow.seen.closedAt.length === 0 && Date.now() - started < 5_000) await sleep(20);
  assert.equal(slow.seen.closedAt.length, 1, 'Ferry closed the connection');
  assert.ok(slow.seen.closedAt[0] - started < 1_500, `closed after ${slow.seen.closedAt[0] - started} ms`);
});

test('a receiver that floods its answer is cut off at the size cap', async () => {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const flood = await receiver((_req, res) => {
    res.writeHead(200);
    const push = () => {
      while (sent < 1024 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', push);
    };
    push();
  });
  const started = Date.now();
  void sender({ timeoutMs: 10_000 }).send(`${flood.url}/flood`, event);
  while (flood.seen.closedAt.length === 0 && Date.now() - started < 8_000) await sleep(20);
  assert.equal(flood.seen.closedAt.length, 1, 'Ferry closed the connection');
  assert.ok(sent < 64 * 1024 * 1024, `read ${sent} bytes before closing`);
});

test('the signature covers timestamp and body: changing either breaks it', async () => {
  const calls: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (data) => (body += data));
    req.on('end', () => {
      calls.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  void sender().send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/signed`, event);
  while (calls.length === 0) await sleep(20);
  const { headers, body } = calls[0];
  const timestamp = headers['x-ferry-timestamp'] as string;
  assert.equal(headers['x-ferry-signature'], signature(SECRET, timestamp, body));
  assert.notEqual(headers['x-ferry-signature'], signature(SECRET, String(Number(timestamp) + 1), body), 'replayed at another time');
  assert.notEqual(headers['x-ferry-signature'], signature(SECRET, timestamp, body.replace('swap.created', 'transaction.claimed')));
  // "<timestamp>.<body>" cannot be re-split: a timestamp is digits only, so the first dot is the separator
  assert.match(timestamp, /^\d+$/);
});
