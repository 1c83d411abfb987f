// GET /v2/swagger.json, Ferry's own API document: it lists exactly the routes the server has (every route is in it,
// every documented path and method is routed to that very template), and the request schemas it shows are the ones
// the routes validate with — a body the served schema refuses is refused by the route with a 400.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { createRouter } from '../../src/api/index.ts';
import { createLogger } from '../../src/log/index.ts';
import { startWorld, type World } from '../engine/world.ts';
import { call, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;
let document: { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: object } } }; deprecated?: boolean }>> };

before(async () => {
  world = await startWorld();
  api = await startApi(world.engine, { lightning: { BTC: world.ferryNode } });
  const answer = await call(api, 'GET', '/v2/swagger.json');
  assert.equal(answer.status, 200);
  document = answer.json;
});
after(async () => {
  await api?.close();
  await world?.close();
});

const router = () =>
  createRouter({ chains: new Map(), lightning: { BTC: world.ferryNode }, logger: createLogger({ level: 'error', json: true, write: () => {} }), maxBodyBytes: 1024, swaps: world.engine });
const operations = () => Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })));

test('every route is in the document and every documented path is routed to itself', () => {
  assert.equal(document.openapi, '3.0.3');
  const routes = router().list().map(({ method, pattern }) => `${method} ${pattern}`).sort();
  assert.deepEqual(operations().map(({ method, path }) => `${method} ${path}`).sort(), routes);
  const r = router();
  for (const { method, path } of operations()) {
    const match = r.match(method, path.replace(/\{[^}]+\}/g, 'x'));
    assert.ok(typeof match !== 'string' && match.pattern === path, `${method} ${path} is answered by ${typeof match === 'string' ? match : match.pattern}`);
  }
  for (const path of ['/v2/swap/restore', '/v2/swap/rescue', '/v2/swap/restore/index', '/v2/swap/{id}/metadata', '/v2/lightning/{currency}/channel/{id}', '/v2/referral/fees']) {
    assert.ok(document.paths[path], `${path} is documented`);
  }
  assert.equal(document.paths['/v2/swap/rescue'].post.deprecated, true);
});

test('the served request schemas are the ones the routes validate with', async () => {
  const ajv = new Ajv({ strict: false });
  const withBodies = operations().filter(({ operation }) => operation.requestBody !== undefined);
  assert.ok(withBodies.length >= 4);
  for (const { method, path, operation } of withBodies) {
    const validate = ajv.compile(operation.requestBody!.content['application/json'].schema);
    const concrete = path.replace('{id}', 'NoSuchSwap12');
    for (const body of [{ unexpected: 1 }, { metadata: 'zz' }, { publicKey: 'not hex' }, { xpub: 5 }]) {
      if (validate(body)) continue;
      const answer = await call(api, method, concrete, body);
      assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`);
    }
    // And what the served schema accepts passes validation (the engine may still refuse it: not a 400 of shape).
    const good = path.endsWith('metadata') ? { metadata: 'ab' } : { publicKey: '02' + '11'.repeat(32) };
    if (validate(good)) assert.notEqual((await call(api, method, concrete, good)).json.error?.startsWith('invalid parameter'), true);
  }
});
