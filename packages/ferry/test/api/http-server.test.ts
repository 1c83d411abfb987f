import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createHttpServer, listen, stopServer } from '../../src/api/http/server.ts';
import { Router } from '../../src/api/http/router.ts';
import { badRequest } from '../../src/api/http/errors.ts';
import { bodyObject, requireHex } from '../../src/api/http/validate.ts';
import { silentLogger } from '../../src/log/index.ts';

const router = new Router()
  .get('/items/{id}', ({ params, query }) => ({ body: { id: params.id, q: query.get('q') } }))
  .post('/echo', ({ body }) => ({ status: 201, body: { hex: requireHex(bodyObject(body), 'hex') } }))
  .get('/fail', () => {
    throw badRequest('nope', { extra: 1 });
  })
  .get('/crash', () => {
    throw new Error('secret internals');
  });
const server = createHttpServer({ router, logger: silentLogger, maxBodyBytes: 1024 });
const address = await listen(server, 0, '127.0.0.1');
after(() => server.close());

async function call(method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const response = await fetch(`http://127.0.0.1:${address.port}${path}`, {
    method,
    body,
    headers: body ? { 'content-type': 'application/json' } : {},
  });
  return { status: response.status, json: await response.json() };
}

test('routes with params and query', async () => {
  assert.deepEqual(await call('GET', '/items/ab%20c?q=1'), { status: 200, json: { id: 'ab c', q: '1' } });
  assert.deepEqual(await call('POST', '/echo', '{"hex":"AB01"}'), { status: 201, json: { hex: 'ab01' } });
});

test('unknown route 404 JSON, wrong method 405 JSON', async () => {
  const missing = await call('GET', '/nothing/here');
  assert.equal(missing.status, 404);
  assert.match(missing.json.error, /not found/);
  const method = await call('DELETE', '/echo');
  assert.equal(method.status, 405);
  assert.equal(typeof method.json.error, 'string');
});

test('malformed JSON 400, missing and invalid parameters 400 with the reference texts', async () => {
  const malformed = await call('POST', '/echo', '{"hex":');
  assert.equal(malformed.status, 400);
  assert.match(malformed.json.error, /invalid JSON body/);
  assert.deepEqual(await call('POST', '/echo', '{}'), { status: 400, json: { error: 'undefined parameter: hex' } });
  assert.deepEqual(await call('POST', '/echo', '{"hex":"xyz"}'), { status: 400, json: { error: 'could not parse hex string: hex' } });
  assert.deepEqual(await call('POST', '/echo', '{"hex":5}'), { status: 400, json: { error: 'invalid parameter: hex' } });
  assert.deepEqual(await call('POST', '/echo', '[1]'), { status: 400, json: { error: 'request body must be a JSON object' } });
  assert.deepEqual(await call('POST', '/echo'), { status: 400, json: { error: 'request body is missing' } });
});

test('HttpError extras ride along; a crash answers 500 without internals', async () => {
  assert.deepEqual(await call('GET', '/fail'), { status: 400, json: { error: 'nope', extra: 1 } });
  assert.deepEqual(await call('GET', '/crash'), { status: 500, json: { error: 'internal error' } });
});

test('oversized bodies answer 413, declared or streamed', async () => {
  const declared = await call('POST', '/echo', JSON.stringify({ hex: 'ab'.repeat(2000) }));
  assert.equal(declared.status, 413);
  assert.match(declared.json.error, /larger than 1024 bytes/);

  // chunked upload without content-length: the limit is enforced while streaming
  const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: address.port, path: '/echo', method: 'POST' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (let i = 0; i < 10; i++) req.write('x'.repeat(500));
    req.end();
  });
  assert.equal(streamed.status, 413);
  assert.match(JSON.parse(streamed.body).error, /larger than/);
});

test('a fixed segment beats a parameter whatever the registration order', async () => {
  const r = new Router().get('/swap/{id}', () => ({ body: 'param' })).get('/swap/status', () => ({ body: 'fixed' }));
  const matched = r.match('GET', '/swap/status');
  assert.ok(typeof matched === 'object');
  assert.equal(((await matched.handler({} as never)) as { body: string }).body, 'fixed');
  const other = r.match('GET', '/swap/abc');
  assert.ok(typeof other === 'object');
  assert.deepEqual(other.params, { id: 'abc' });
});

test('an unparsable request target answers 400 JSON', async () => {
  const { connect } = await import('node:net');
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(address.port, '127.0.0.1', () => socket.write('GET //[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    let data = '';
    socket.on('data', (c) => (data += c));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400/);
  assert.match(answer, /invalid request target/);
});

test('cross-origin: every answer allows any origin, errors too; a preflight answers 204 with the methods and the headers asked for', async () => {
  const origin = { origin: 'http://wallet.example' };
  const ok = await fetch(`http://127.0.0.1:${address.port}/items/1`, { headers: origin });
  assert.equal(ok.headers.get('access-control-allow-origin'), '*');
  const refused = await fetch(`http://127.0.0.1:${address.port}/echo`, { method: 'POST', headers: { ...origin, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(refused.status, 400);
  assert.equal(refused.headers.get('access-control-allow-origin'), '*', 'a page can read why it was refused');
  const missing = await fetch(`http://127.0.0.1:${address.port}/nothing`, { headers: origin });
  assert.equal(missing.headers.get('access-control-allow-origin'), '*');

  const preflight = await fetch(`http://127.0.0.1:${address.port}/echo`, {
    method: 'OPTIONS',
    headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-custom' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(await preflight.text(), '');
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
  assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type,x-custom');
  assert.equal(preflight.headers.get('access-control-allow-credentials'), null, 'no cookies ride along');
});

/** A server whose GET /slow answers when the test says so; `entered` resolves when a request is being answered. */
async function slowServer() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  const slow = createHttpServer({
    router: new Router().get('/slow', async () => {
      entered();
      await released;
      return { body: { answered: true } };
    }),
    logger: silentLogger,
    maxBodyBytes: 1024,
  });
  const at = await listen(slow, 0, '127.0.0.1');
  return { slow, url: `http://127.0.0.1:${at.port}`, release, inHandler };
}

test('stopping answers the requests in flight (connection: close), refuses new connections, then closes', async () => {
  const { slow, url, release, inHandler } = await slowServer();
  // an idle keep-alive connection besides: closed at once, it does not hold the stop
  assert.equal((await fetch(`${url}/nothing`)).status, 404);
  const answer = fetch(`${url}/slow`);
  await inHandler;
  let stopped = false;
  const stopping = stopServer(slow, 600_000).then(() => (stopped = true));
  await assert.rejects(fetch(`${url}/slow`, { headers: { connection: 'close' } }), /fetch failed/, 'no new connection while stopping');
  assert.equal(stopped, false, 'the stop waits for the request in flight');
  release();
  const response = await answer;
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { answered: true });
  assert.equal(response.headers.get('connection'), 'close');
  await stopping;
  assert.equal(slow.listening, false);
});

test('stopping cuts a request still unanswered after the grace period', async () => {
  const { slow, url, release, inHandler } = await slowServer();
  const answer = fetch(`${url}/slow`).then(
    (response) => response.status,
    (error: Error) => error,
  );
  await inHandler;
  await stopServer(slow, 50);
  assert.ok((await answer) instanceof Error, 'the client sees its connection cut');
  release();
});
