// The clnrest contract checker (cln.ts) catches what the real node would refuse or a client could not read — a
// method neither lightningd nor the hold plugin has (the old `injectinvoice`), a parameter not in the schema, a
// missing required one, an answer missing a required field — and passes a conforming exchange. The devnet's table
// of lightningd's parameter names is the vendored schemas', and Ferry's hold.proto is the plugin's, field by field.
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { loadSync } from '@grpc/proto-loader';
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import { LIGHTNINGD_PARAMS } from '@ferry/devnet/lightning/clnrest/param-names.js';
import { checkClnrest, clnContract } from './cln.ts';
import { checkHoldGrpc } from './hold-grpc.ts';

const exchange = (method: string, request: unknown, response: unknown, status = 201): NodeExchange => ({
  face: 'clnrest',
  node: 'cln',
  method,
  path: '',
  query: {},
  request,
  status,
  response,
});

const PUBKEY = `02${'ab'.repeat(32)}`;
const goodInfo = {
  id: PUBKEY,
  alias: 'cln',
  color: '3399ff',
  num_peers: 1,
  num_pending_channels: 0,
  num_active_channels: 1,
  num_inactive_channels: 0,
  address: [],
  binding: [{ type: 'ipv4', address: '127.0.0.1', port: 9735 }],
  version: 'v26.06.6',
  blockheight: 101,
  network: 'regtest',
  fees_collected_msat: 0,
  'lightning-dir': '/tmp/l/regtest',
  our_features: { init: '08', node: '08', channel: '', invoice: '02' },
};

test('clnrest contract: a method neither lightningd nor the hold plugin registers is flagged (injectinvoice)', () => {
  const { violations } = checkClnrest(exchange('injectinvoice', { invoice: 'lni1x', min_cltv: 80 }, {}));
  assert.equal(violations.length, 1);
  assert.match(violations[0], /injectinvoice: neither lightningd .* nor the hold plugin/);
  assert.deepEqual(checkClnrest(exchange('injectholdinvoice', { invoice: 'lni1x', min_cltv: 80 }, {})).violations, []);
  // refused as the real node refuses it: the devnet conforms
  const refused = checkClnrest(exchange('injectinvoice', { invoice: 'lni1x' }, { code: -32601, message: "Unknown command 'injectinvoice'" }, 404));
  assert.deepEqual(refused.violations, []);
});

test('clnrest contract: a parameter not in the request schema, and a missing required one, are flagged', () => {
  // finding 3: the plugin's RPC holdinvoice has no expiry or CLTV delta
  const hold = checkClnrest(exchange('holdinvoice', { payment_hash: '11'.repeat(32), amount: 1000, expiry: 600, min_final_cltv_expiry: 144 }, { bolt11: 'lnbcrt1' }));
  assert.deepEqual(
    hold.violations.map((v) => /parameter (\w+) is not/.exec(v)?.[1]),
    ['expiry', 'min_final_cltv_expiry'],
  );
  const missing = checkClnrest(exchange('injectonionmessage', { message: 'ab' }, {}));
  assert.deepEqual(missing.violations, ['injectonionmessage: required parameter path_key is missing']);
  // lightningd's refusal of the same call conforms
  const refused = checkClnrest(exchange('injectonionmessage', { message: 'ab' }, { code: -32602, message: 'missing required parameter: path_key' }, 500));
  assert.deepEqual(refused.violations, []);
  assert.match(checkClnrest(exchange('listsendpays', { payment_hash: '11'.repeat(32), groupid: 1 }, { payments: [] })).violations[0], /groupid is not in its request schema/);
});

test('clnrest contract: an answer that does not validate against the response schema is flagged; a good one passes', () => {
  const good = checkClnrest(exchange('getinfo', {}, goodInfo));
  assert.deepEqual(good, { operation: 'clnrest getinfo', violations: [] });
  const { address: _dropped, ...noAddress } = goodInfo;
  assert.match(checkClnrest(exchange('getinfo', {}, noAddress)).violations[0], /getinfo: the answer does not match .*must have required property 'address'/);
  assert.match(checkClnrest(exchange('getinfo', {}, { ...goodInfo, id: 'not-a-key' })).violations[0], /\/id must match pattern/);
  // a u64 past 2^53 (read losslessly, so a bigint) is an integer like any other
  const sendpay = {
    created_index: 1,
    id: 1,
    groupid: 18_000_000_000_000_000_001n,
    payment_hash: '22'.repeat(32),
    status: 'complete',
    amount_sent_msat: 1000,
    created_at: 1_700_000_000,
    payment_preimage: '33'.repeat(32),
  };
  assert.deepEqual(checkClnrest(exchange('listsendpays', { payment_hash: '22'.repeat(32) }, { payments: [sendpay] })).violations, []);
  assert.match(checkClnrest(exchange('listsendpays', {}, { payments: [{ ...sendpay, status: 'done' }] })).violations[0], /status must be equal to one of the allowed values/);
  // an error answer is lightningd's JSON-RPC error object
  assert.deepEqual(checkClnrest(exchange('pay', { bolt11: 'lnbcrt1' }, { code: 205, message: 'Failed' }, 500)).violations, []);
  assert.match(checkClnrest(exchange('pay', { bolt11: 'lnbcrt1' }, { error: 'x' }, 500)).violations[0], /JSON-RPC error/);
});

test("the devnet's lightningd parameter names are the vendored schemas' request properties", () => {
  for (const [method, names] of Object.entries(LIGHTNINGD_PARAMS)) {
    assert.deepEqual([...names], clnContract().get(method)?.params, method);
  }
});

test("Ferry's hold.proto is the hold plugin's (v0.3.3): every message, field, number, type and rpc the same", () => {
  const options = { keepCase: true, longs: String, enums: String, defaults: false, oneofs: true };
  const ours = loadSync(fileURLToPath(import.meta.resolve('@ferry/sdk/lightning/hold/hold.proto')), options);
  const theirs = loadSync(join(import.meta.dirname, '..', 'fixtures', 'hold', 'hold.proto'), options);
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort(), 'the same messages, enums and services');
  for (const name of Object.keys(theirs)) {
    const [a, b] = [ours[name] as Record<string, unknown>, theirs[name] as Record<string, unknown>];
    if ('type' in b) {
      // a message or enum: its descriptor without source positions
      const strip = (d: unknown) => JSON.parse(JSON.stringify(d, (k, v: unknown) => (k === 'sourceCodeInfo' ? undefined : v)));
      assert.deepEqual(strip(a.type), strip(b.type), name);
    } else {
      // a service: each rpc's path, streaming and message types
      const rpcs = (s: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(s).map(([rpc, m]) => {
            const d = m as { path: string; requestStream: boolean; responseStream: boolean; requestType: { type: { name: string } }; responseType: { type: { name: string } } };
            return [rpc, [d.path, d.requestStream, d.responseStream, d.requestType.type.name, d.responseType.type.name]];
          }),
        );
      assert.deepEqual(rpcs(a), rpcs(b), name);
    }
  }
  assert.match(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'hold', 'hold.proto'), 'utf8'), /service Hold/);
});

test('hold-grpc contract: an rpc the plugin does not serve, or a field its message lacks, is flagged; a good exchange passes', () => {
  const grpc = (method: string, request: unknown, response: unknown, status = 0): NodeExchange => ({ face: 'hold-grpc', node: 'cln', method, path: '', query: {}, request, status, response });
  const hash = Buffer.alloc(32, 1);
  assert.deepEqual(checkHoldGrpc(grpc('Invoice', { payment_hash: hash, amount_msat: '1000', memo: 'x', description: 'memo', min_final_cltv_expiry: '80' }, { bolt11: 'lnbcrt1' })), {
    operation: 'hold-grpc Invoice',
    violations: [],
  });
  assert.match(checkHoldGrpc(grpc('InjectInvoice', {}, {})).violations[0], /no such rpc/);
  assert.deepEqual(checkHoldGrpc(grpc('Invoice', { payment_hash: hash, amount_msat: '1', cltv: '80' }, { bolt11: 'x', expiry: 1 })).violations, [
    'Invoice: request field cltv is not in InvoiceRequest',
    'Invoice: answer field expiry is not in InvoiceResponse',
  ]);
  const invoice = { id: 1, payment_hash: hash, invoice: 'lnbcrt1', state: 'UNPAID', created_at: 1, htlcs: [{ id: 1, state: 'ACCEPTED', msat: 1, cltv: 5 }] };
  assert.deepEqual(checkHoldGrpc(grpc('List', {}, { invoices: [invoice] })).violations, ['List: answer field invoices[0].htlcs[0].cltv is not in ListResponse']);
});
