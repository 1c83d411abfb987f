// No route may answer for another one. Every path and method of the reference API (test/fixtures/boltz-v2-openapi.json,
// a copy of shared/reference/boltz-v2-openapi.json) is answered either by Ferry's route for that very template or by
// none (404/405: not implemented), never by a different route, e.g. GET /v2/swap/chain by GET /v2/swap/{id}. And each
// of Ferry's own routes answers for itself: a fixed segment is never taken by a {param} route.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRouter } from '../../src/api/index.ts';
import type { RouteInfo } from '../../src/api/http/router.ts';
import { createLogger } from '../../src/log/index.ts';
import { MemorySwaps } from './swap-api-harness.ts';

interface OpenApi {
  servers: { url: string }[];
  paths: Record<string, Record<string, { parameters?: Parameter[] }> & { parameters?: Parameter[] }>;
}
interface Parameter {
  name: string;
  in: string;
  schema?: { enum?: string[] };
}

const openapi = JSON.parse(readFileSync(new URL('../fixtures/boltz-v2-openapi.json', import.meta.url), 'utf8')) as OpenApi;

// Every route, as the API server registers them when it has a swap service.
const router = createRouter({
  chains: new Map(),
  lightning: {},
  logger: createLogger({ level: 'error', json: true, write: () => {} }),
  maxBodyBytes: 16 * 1024,
  swaps: new MemorySwaps(),
});
const routes = router.list();

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// The reference's paths are relative to its servers' URLs (https://api.boltz.exchange/v2); Ferry registers its v2
// routes with the /v2 prefix written out.
const prefixes = [...new Set(openapi.servers.map((server) => new URL(server.url).pathname.replace(/\/$/, '')))];
const prefix = prefixes[0];

interface Documented {
  method: string;
  template: string; // with the prefix: /v2/swap/{id}
  enums: Record<string, string[]>; // path parameters the reference lists the values of
}

const documented: Documented[] = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((key) => httpMethods.includes(key))
    .map((key) => {
      const enums: Record<string, string[]> = {};
      for (const parameter of [...(item.parameters ?? []), ...(item[key].parameters ?? [])]) {
        if (parameter.in === 'path' && parameter.schema?.enum) enums[parameter.name] = parameter.schema.enum;
      }
      return { method: key.toUpperCase(), template: prefix + path, enums };
    }),
);

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
const segmentsOf = (template: string) => template.split('/').filter(Boolean);
/** Same segments, whatever the parameters are called: /v2/swap/{id} and /v2/swap/{swapId} are one template. */
const shape = (template: string) => '/' + segmentsOf(template).map((s) => (isParam(s) ? '{}' : s)).join('/');

const txid = 'a1'.repeat(32);
const nodeKey = '02' + 'b2'.repeat(32);

/** Plausible values for a path parameter, by its name and the segment before it. */
function samples(name: string, before: string, enums: Record<string, string[]>): string[] {
  if (enums[name]) return enums[name];
  switch (name) {
    case 'currency':
    case 'from':
    case 'to':
    case 'receiving':
      return ['BTC', 'L-BTC'];
    case 'node':
      return [nodeKey];
    case 'invoice':
      return ['lnbcrt500u1pjexample0pp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq'];
    case 'swap_type':
      return ['submarine', 'reverse', 'chain'];
    case 'id':
      if (before === 'transaction') return [txid];
      if (before === 'channel') return ['876543x21x1', '963761465184460801'];
      // a swap id, or (submarine refunds) the preimage hash of one
      return ['Nj3bS6ZqF1xW', 'c3'.repeat(32)];
    default:
      return ['sample'];
  }
}

/** Concrete paths for a template: every combination of the samples of its parameters. */
function pathsFor(template: string, enums: Record<string, string[]> = {}): string[] {
  let paths = [''];
  const segments = segmentsOf(template);
  segments.forEach((segment, i) => {
    const values = isParam(segment) ? samples(segment.slice(1, -1), segments[i - 1] ?? '', enums) : [segment];
    paths = paths.flatMap((path) => values.map((value) => `${path}/${encodeURIComponent(value)}`));
  });
  return paths;
}

const registered = (method: string, template: string): RouteInfo | undefined =>
  routes.find((route) => route.method === method && shape(route.pattern) === shape(template));

test('the reference is served under one prefix, /v2, the prefix Ferry registers its v2 routes with', () => {
  assert.deepEqual(prefixes, ['/v2']);
  assert.ok(documented.length > 50, `only ${documented.length} documented operations`);
  assert.ok(registered('GET', `${prefix}/version`), 'GET /v2/version is registered');
});

test('no documented path is answered by a route registered for another path', (t) => {
  const shadowed: string[] = [];
  const notImplemented: string[] = [];
  for (const { method, template, enums } of documented) {
    const own = registered(method, template);
    if (!own) notImplemented.push(`${method} ${template}`);
    for (const path of pathsFor(template, enums)) {
      const match = router.match(method, path);
      const answeredBy = typeof match === 'string' ? undefined : match.pattern;
      if (answeredBy === own?.pattern) continue; // its own route, or none when Ferry has no route for it
      shadowed.push(`${method} ${template}: ${path} is answered by ${answeredBy ? `${method} ${answeredBy}` : `none (${match})`}`);
    }
  }
  t.diagnostic(`documented operations Ferry does not implement (${notImplemented.length} of ${documented.length}):`);
  for (const line of notImplemented) t.diagnostic(`  ${line}`);
  assert.deepEqual(shadowed, []);
});

test("each of Ferry's routes answers for itself: no fixed segment is taken by a {param} route", () => {
  const wrong: string[] = [];
  for (const route of routes) {
    for (const path of pathsFor(route.pattern)) {
      const match = router.match(route.method, path);
      const answeredBy = typeof match === 'string' ? `none (${match})` : match.pattern;
      if (answeredBy !== route.pattern) wrong.push(`${route.method} ${route.pattern}: ${path} is answered by ${answeredBy}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no route is registered twice (the second one could never answer)', () => {
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const route of routes) {
    const key = `${route.method} ${shape(route.pattern)}`;
    const earlier = seen.get(key);
    if (earlier) twice.push(`${route.method} ${route.pattern} after ${earlier}`);
    else seen.set(key, route.pattern);
  }
  assert.deepEqual(twice, []);
});
