// Swap status webhooks on a real Ferry: a reverse swap created with `webhook` calls a receiver on every status,
// signed; hashSwapId and the status filter; failed calls are retried with backoff; a bad webhook is a 400 and
// creates no swap. SSRF: private, loopback, link-local and mapped addresses are refused, at registration and
// again in the socket's lookup when the call is made.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { parseWebhook } from '../../src/webhooks/hook.ts';
import { isPublicAddress } from '../../src/webhooks/address-guard.ts';
import { WebhookSender, signature } from '../../src/webhooks/sender.ts';
import { HttpError } from '../../src/api/http/errors.ts';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { startV1World, type V1World } from './v1-support.ts';

const SECRET = 'test-webhook-secret';

interface Call {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records every call; answers 500 to the first `failFirst` calls of a path. */
class Receiver {
  readonly calls: Call[] = [];
  private readonly failures = new Map<string, number>();
  server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        this.calls.push({ path: req.url ?? '', headers: req.headers, body });
        const left = this.failures.get(req.url ?? '') ?? 0;
        this.failures.set(req.url ?? '', left - 1);
        res.writeHead(left > 0 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  failFirst(path: string, n: number): void {
    this.failures.set(path, n);
  }

  async until(path: string, count: number, timeoutMs = 10_000): Promise<Call[]> {
    const deadline = Date.now() + timeoutMs;
    const of = () => this.calls.filter((call) => call.path === path);
    while (of().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return of();
  }
}

const receiver = new Receiver();
let world: V1World;
before(async () => {
  await receiver.start();
  world = await startV1World({ FERRY_WEBHOOKS_SECRET: SECRET, FERRY_WEBHOOKS_ALLOW_HTTP: 'true', FERRY_WEBHOOKS_ALLOW_PRIVATE: 'true' }, (config) => {
    config.webhooks.backoffMs = 50;
  });
});
after(async () => {
  await world.close();
  await new Promise((resolve) => receiver.server.close(resolve));
});

const reverse = (webhook: unknown) =>
  world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 50_000,
    preimageHash: hex.encode(newPreimage().preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
    webhook,
  });

const payload = (call: Call) => JSON.parse(call.body) as { event: string; data: { id: string; status: string } };

test('every status of the swap reaches the webhook, signed over timestamp and body', async () => {
  const created = await reverse({ url: `${receiver.url}/all` });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const first = (await receiver.until('/all', 1))[0];
  assert.deepEqual(payload(first), { event: 'swap.update', data: { id: created.json.id, status: 'swap.created' } });
  const timestamp = first.headers['x-ferry-timestamp'] as string;
  assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60);
  assert.equal(first.headers['x-ferry-signature'], signature(SECRET, timestamp, first.body));
  assert.notEqual(first.headers['x-ferry-signature'], signature('another secret', timestamp, first.body));

  world.pay('alice', created.json.invoice).catch(() => {}); // held until settled; fails when Ferry stops
  await world.waitForStatus(created.json.id, ['transaction.mempool']);
  const calls = await receiver.until('/all', 2);
  assert.ok(calls.some((call) => payload(call).data.status === 'transaction.mempool'), JSON.stringify(calls.map(payload)));
});

test('hashSwapId sends SHA256 of the id; the status filter keeps only the statuses asked for', async () => {
  const created = await reverse({ url: `${receiver.url}/hashed`, hashSwapId: true, status: ['transaction.mempool'] });
  assert.equal(created.status, 201);
  world.pay('alice', created.json.invoice).catch(() => {});
  await world.waitForStatus(created.json.id, ['transaction.mempool']);
  const calls = await receiver.until('/hashed', 1);
  assert.deepEqual(calls.map(payload), [
    { event: 'swap.update', data: { id: createHash('sha256').update(created.json.id).digest('hex'), status: 'transaction.mempool' } },
  ]);
});

test('a failed call is retried with backoff until the receiver takes it', async () => {
  receiver.failFirst('/flaky', 2);
  const created = await reverse({ url: `${receiver.url}/flaky` });
  const calls = await receiver.until('/flaky', 3);
  assert.equal(calls.length, 3);
  assert.ok(calls.every((call) => payload(call).data.id === created.json.id && payload(call).data.status === 'swap.created'));
});

test('a bad webhook is a 400 naming it, and no swap is created', async () => {
  const count = await world.ferry.storage.swaps.count();
  for (const [webhook, error] of [
    ['https://example.com', 'invalid parameter: webhook'],
    [{}, 'undefined parameter: webhook.url'],
    [{ url: 5 }, 'invalid parameter: webhook.url'],
    [{ url: 'not a url' }, 'invalid parameter: webhook.url'],
    [{ url: 'ftp://example.com/x' }, 'invalid parameter: webhook.url (only http and https URLs are allowed)'],
    [{ url: 'http://user:pw@127.0.0.1/' }, 'invalid parameter: webhook.url (no credentials in the URL)'],
    [{ url: receiver.url, hashSwapId: 'yes' }, 'invalid parameter: webhook.hashSwapId'],
    [{ url: receiver.url, status: 'swap.created' }, 'invalid parameter: webhook.status'],
  ] as const) {
    assert.deepEqual(await reverse(webhook), { status: 400, json: { error } }, JSON.stringify(webhook));
  }
  assert.equal(await world.ferry.storage.swaps.count(), count);
});

const strict = { allowHttp: false, allowPrivate: false };
const refusal = async (url: string) => {
  try {
    await parseWebhook({ url }, strict);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof HttpError && error.status === 400);
    return error.message;
  }
};

test('SSRF: private, loopback, link-local, reserved and mapped addresses are refused; public ones pass', async () => {
  for (const url of [
    'https://127.0.0.1/',
    'https://localhost/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://2130706433/', // 127.0.0.1 as one number: the URL parser normalizes it
  ]) {
    assert.match((await refusal(url)) ?? 'accepted', /is not a public address|resolves to a non-public address/, url);
  }
  assert.equal(await refusal('http://8.8.8.8/'), 'invalid parameter: webhook.url (only https URLs are allowed)');
  assert.equal(await refusal('https://8.8.8.8/hook'), undefined);
  assert.equal(await refusal('https://[2606:4700::1111]/hook'), undefined);
  assert.ok(isPublicAddress('1.1.1.1') && !isPublicAddress('::ffff:10.0.0.1') && !isPublicAddress('not an ip'));
});

test('SSRF at call time: the socket lookup refuses a name that resolves to a private address', async () => {
  const sender = (allowPrivate: boolean) => new WebhookSender({ secret: SECRET, allowPrivate, timeoutMs: 2_000 });
  const port = new URL(receiver.url).port;
  // registered when "localhost" was allowed, called after the policy forbids it: refused before connecting
  const body = JSON.stringify({ event: 'swap.update', data: { id: 'x', status: 'y' } });
  assert.match((await sender(false).send(`http://localhost:${port}/rebound`, body)) ?? 'delivered', /non-public address/);
  void sender(true).send(`http://localhost:${port}/allowed`, body);
  assert.equal((await receiver.until('/allowed', 1)).length, 1);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await receiver.until('/rebound', 1, 0)).length, 0);
});
