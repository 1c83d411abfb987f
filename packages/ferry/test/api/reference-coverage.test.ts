// Coverage of the reference API (test/fixtures/boltz-v2-openapi.json): every method and path of a chain Ferry has —
// all but Ark's and the EVM token quotes — is routed by Ferry to that very template, and the answer
// it gives to a real request against the running service (devnet Bitcoin, Liquid and Lightning) has a status the
// reference documents for it and a body that validates against the reference's schema for that status (ajv).
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { hex } from '@scure/base';
import { createRouter } from '../../src/api/index.ts';
import { createLogger } from '../../src/log/index.ts';
import { newKeyPair } from '../engine/client.ts';
import { startService, type Service } from '../client/support.ts';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: unknown } } }>;
}
const openapi = JSON.parse(readFileSync(new URL('../fixtures/boltz-v2-openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const methods = ['get', 'post', 'put', 'patch', 'delete'];
const notFerrys = (path: string) => path.endsWith('/ark') || path.startsWith('/quote/');
const entries = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.keys(item).filter((m) => methods.includes(m)).map((method) => ({ method: method.toUpperCase(), path, operation: item[method] })),
);

// OpenAPI 3.0 keywords (discriminator, example, formats like int64) are not JSON Schema's: ignore, do not fail on them.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...openapi, $id: 'reference' });
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

let service: Service;
const ids: Record<string, string> = {};
let ferryNode = '';
let channel = '';

before(async () => {
  service = await startService();
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${service.apiUrl}/v2${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await response.json()) as { id: string };
    assert.ok(response.ok, `${path}: ${JSON.stringify(json)}`);
    return json;
  };
  const { invoice } = await service.invoice('alice', 30_000);
  ids.submarine = (await post('/swap/submarine', { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(newKeyPair().publicKey) })).id;
  ids.reverse = (await post('/swap/reverse', { from: 'BTC', to: 'BTC', invoiceAmount: 30_000, preimageHash: '22'.repeat(32), claimPublicKey: hex.encode(newKeyPair().publicKey) })).id;
  const key = hex.encode(newKeyPair().publicKey);
  ids.chain = (await post('/swap/chain', { from: 'BTC', to: 'L-BTC', userLockAmount: 100_000, preimageHash: '33'.repeat(32), claimPublicKey: key, refundPublicKey: key })).id;
  ferryNode = (await service.ferryNode.getInfo()).publicKey;
  const channels = (await (await fetch(`${service.apiUrl}/v2/lightning/BTC/channels/${ferryNode}`)).json()) as { shortChannelId: string }[];
  channel = channels[0].shortChannelId;
});
after(async () => {
  await service?.close();
});

/** The concrete request for each reference entry: path parameters filled, a body, headers. */
function requestFor(method: string, path: string): { path: string; body?: unknown; headers?: Record<string, string> } {
  const key = hex.encode(newKeyPair().publicKey);
  const swapType = /^\/swap\/(submarine|reverse|chain)\//.exec(path)?.[1];
  const filled = path
    .replace('{id}', path.startsWith('/lightning/') ? channel : (ids[swapType ?? 'submarine'] ?? ids.submarine))
    .replace('{currency}', path.startsWith('/asset/') ? 'L-BTC' : 'BTC')
    .replace('{node}', ferryNode)
    .replace('{invoice}', 'lnbcrt1notours')
    .replace('{swap_type}', 'reverse')
    .replace('{from}', 'BTC')
    .replace('{to}', 'BTC')
    .replace('{receiving}', 'lno1offer');
  const bodies: Record<string, unknown> = {
    'POST /swap/submarine': { from: 'BTC', to: 'BTC', preimageHash: hex.encode(newKeyPair().publicKey.subarray(1)), refundPublicKey: key },
    'POST /swap/reverse': { from: 'BTC', to: 'BTC', invoiceAmount: 25_000, preimageHash: hex.encode(newKeyPair().publicKey.subarray(1)), claimPublicKey: key },
    'POST /swap/chain': { from: 'L-BTC', to: 'BTC', userLockAmount: 100_000, preimageHash: hex.encode(newKeyPair().publicKey.subarray(1)), claimPublicKey: key, refundPublicKey: key },
    'PATCH /swap/{id}/metadata': { metadata: 'abcd' },
    'POST /swap/submarine/{id}/invoice': { invoice: 'lnbcrt1' },
    'POST /swap/submarine/{id}/refund': { pubNonce: '02'.repeat(66), transaction: '00', index: 0 },
    'POST /swap/submarine/{id}/claim': { pubNonce: '02'.repeat(66), partialSignature: '11'.repeat(32) },
    'POST /swap/reverse/{id}/claim': { preimage: '44'.repeat(32) },
    'POST /swap/chain/{id}/claim': { preimage: '44'.repeat(32) },
    'POST /swap/chain/{id}/refund': { pubNonce: '02'.repeat(66), transaction: '00', index: 0 },
    'POST /swap/chain/{id}/quote': { amount: 1000 },
    'POST /swap/rescue': { publicKey: key },
    'POST /swap/restore': { publicKey: key },
    'POST /swap/restore/index': { publicKey: key },
    'POST /chain/{currency}/transaction': { hex: '00' },
    // BTC takes no commitments (an EVM chain does): the documented 400.
    'POST /commitment/{currency}': { swapId: ids.submarine, signature: `0x${'11'.repeat(65)}`, transactionHash: `0x${'22'.repeat(32)}` },
    'POST /commitment/{currency}/refund': { transactionHash: `0x${'22'.repeat(32)}`, refundAddressSignature: `0x${'11'.repeat(65)}` },
  };
  const body = method === 'GET' || method === 'DELETE' ? undefined : (bodies[`${method} ${path}`] ?? {});
  const query = path === '/swap/status' ? `?ids=${ids.submarine}` : path.endsWith('/search') ? '?alias=alice' : '';
  const headers: Record<string, string> = path.includes('/stats/') ? { referral: 'pro' } : {};
  return { path: `/v2${filled.replace('{id}', 'x')}${query}`, body, headers };
}

test('every non-Ark, non-token reference entry is routed to its own template', () => {
  const router = createRouter({ chains: new Map(), lightning: {}, logger: createLogger({ level: 'error', json: true, write: () => {} }), maxBodyBytes: 1024, swaps: {} as never });
  const missing = entries
    .filter(({ path }) => !notFerrys(path))
    .filter(({ method, path }) => {
      const match = router.match(method, `/v2${path.replace(/\{[^}]+\}/g, 'x')}`);
      return typeof match === 'string' || match.pattern !== `/v2${path}`;
    })
    .map(({ method, path }) => `${method} ${path}`);
  assert.deepEqual(missing, []);
});

test("each answer has a documented status and validates against the reference's schema for it", async () => {
  const failures: string[] = [];
  let checked = 0;
  for (const { method, path, operation } of entries) {
    if (notFerrys(path)) continue;
    const request = requestFor(method, path);
    const response = await fetch(service.apiUrl + request.path, {
      method,
      headers: { ...request.headers, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const text = await response.text();
    const where = `${method} ${path} → ${response.status} ${text.slice(0, 160)}`;
    const documented = operation.responses[String(response.status)];
    if (documented === undefined) {
      failures.push(`${where}: status not documented (${Object.keys(operation.responses).join(', ')})`);
      continue;
    }
    checked++;
    // COVERAGE_LOG=1 prints what each entry answered, to see at a glance how deep the check went.
    if (process.env.COVERAGE_LOG) console.log(where.slice(0, 150));
    if (documented.content?.['application/json']?.schema === undefined) continue;
    const validate = ajv.getSchema(`reference#/${pointer('paths', path, method.toLowerCase(), 'responses', String(response.status), 'content', 'application/json', 'schema')}`)!;
    if (!validate(JSON.parse(text))) failures.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  assert.deepEqual(failures, []);
  assert.ok(checked >= 55, `only ${checked} entries checked`);
});
