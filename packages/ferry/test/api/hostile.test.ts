// Hostile input against every swap endpoint and every WebSocket message type: missing fields, wrong types, bad
// hex, wrong lengths, huge and negative numbers, unknown and malformed ids, arrays instead of objects, oversized
// bodies. Every answer must be a 4xx (or an error event) with a clear text, never a 5xx or a crash, and input
// that fails the shape checks must never reach the engine.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { test, after, describe, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { hex } from '@scure/base';
import { rest } from '../lightning/helpers.ts';
import { newKeyPair, newPreimage } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { TestSocket, call, recording, startApi, swapId, type TestApi } from './swap-api-harness.ts';

// Real swaps to attack: a submarine swap waiting for its lockup and a reverse swap waiting for its payment.
const world: World = await startWorld();
const engine = recording(world.engine);
const calls = engine.calls;
const api: TestApi = await startApi(engine.service, { webSocket: { maxPayloadBytes: 8192 } });
after(async () => {
  await api.close();
  await world.close();
});
const invoice = await rest<{ payment_request: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 40_000 });
const userKey = hex.encode(newKeyPair().publicKey);
const submarineId = (await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: invoice.body.payment_request, refundPublicKey: userKey })).id;
const reverseId = (
  await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash: newPreimage().preimageHash, claimPublicKey: userKey, invoiceAmount: 50_000 })
).id;
const id = submarineId;
const unknownId = swapId(999);

/** What storage holds for the two swaps: any change (status, data, version) shows up here. */
const records = async () => Promise.all([submarineId, reverseId].map(async (swap) => (await world.storage.swaps.get(swap))!));
const untouched = await records();
const swapCount = await world.storage.swaps.count();

const key = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const nonce = '02' + '11'.repeat(65);
const hash = 'ab'.repeat(32);

/** Raw JSON text for values JSON.stringify cannot produce (1e400 parses to Infinity). */
class Raw {
  constructor(readonly text: string) {}
}
const encode = (body: Record<string, unknown>): string => {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_, value) => {
    if (!(value instanceof Raw)) return value;
    raws.push(value.text);
    return `__raw_${raws.length - 1}__`;
  });
  return text.replace(/"__raw_(\d+)__"/g, (_, i) => raws[Number(i)]);
};

const notStrings = [5, 0, true, false, [], ['BTC'], {}, { value: 'BTC' }, new Raw('1e400')];
const badHex = [...notStrings, '', 'zz', 'abc', '0x00', 'ab cd', 'éé', 'ab\u0000'];
const invalid = {
  string: [...notStrings, ''],
  hex: badHex,
  bytes32: [...badHex, 'ab'.repeat(31), 'ab'.repeat(33), 'ab'.repeat(2000)],
  nonce: [...badHex, 'ab'.repeat(65), 'ab'.repeat(67), key],
  publicKey: [
    ...badHex,
    key.slice(2), // x-only
    '04' + key.slice(2), // wrong prefix
    '02' + 'ff'.repeat(32), // not a field element
    '02' + '00'.repeat(32), // not on the curve
    key + '00',
    '04' + '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' + '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8', // uncompressed
  ],
  amount: [0, -1, -1e15, 1.5, '100000', true, [], {}, 2 ** 53, 1e300, new Raw('1e400'), new Raw('-1e400'), new Raw('1e-400')],
  index: [-1, 1.5, '0', true, [], {}, 2 ** 32, 1e300, new Raw('1e400'), new Raw('-0.5')],
};
type Kind = keyof typeof invalid;

interface Endpoint {
  method: 'POST';
  path: string; // {id} is replaced
  valid: Record<string, unknown>;
  fields: Record<string, Kind>;
  required: string[];
}

const endpoints: Endpoint[] = [
  {
    method: 'POST',
    path: '/v2/swap/submarine',
    valid: { from: 'BTC', to: 'BTC', invoice: 'lnbcrt1', refundPublicKey: key },
    fields: { from: 'string', to: 'string', invoice: 'string', refundPublicKey: 'publicKey', preimageHash: 'bytes32', pairHash: 'string', referralId: 'string' },
    // refundPublicKey is required of UTXO chains only (an RBTC lockup names its refund address): the engine, which
    // knows the chain, refuses its absence (test/engine/evm-submarine.test.ts and the submarine creation texts).
    required: ['from', 'to', 'invoice'],
  },
  {
    method: 'POST',
    path: '/v2/swap/submarine/{id}/invoice',
    valid: { invoice: 'lnbcrt1' },
    fields: { invoice: 'string', pairHash: 'string' },
    required: ['invoice'],
  },
  {
    method: 'POST',
    path: '/v2/swap/submarine/{id}/claim',
    valid: { pubNonce: nonce, partialSignature: hash },
    fields: { pubNonce: 'nonce', partialSignature: 'bytes32' },
    required: ['pubNonce', 'partialSignature'],
  },
  {
    method: 'POST',
    path: '/v2/swap/submarine/{id}/refund',
    valid: { pubNonce: nonce, transaction: '0200', index: 0 },
    fields: { pubNonce: 'nonce', transaction: 'hex', index: 'index' },
    required: ['pubNonce', 'transaction', 'index'],
  },
  {
    method: 'POST',
    path: '/v2/swap/reverse',
    valid: { from: 'BTC', to: 'BTC', preimageHash: hash, claimPublicKey: key, invoiceAmount: 100_000 },
    fields: {
      from: 'string',
      to: 'string',
      preimageHash: 'bytes32',
      claimPublicKey: 'publicKey',
      invoiceAmount: 'amount',
      onchainAmount: 'amount',
      pairHash: 'string',
      referralId: 'string',
      description: 'string',
    },
    required: ['from', 'to', 'preimageHash', 'claimPublicKey', 'invoiceAmount'],
  },
  {
    method: 'POST',
    path: '/v2/swap/reverse/{id}/claim',
    valid: { preimage: hash },
    fields: { preimage: 'bytes32', pubNonce: 'nonce', transaction: 'hex', index: 'index' },
    required: ['preimage'],
  },
  { method: 'POST', path: '/swapstatus', valid: { id }, fields: { id: 'string' }, required: ['id'] },
];

const getPaths = [
  '/v2/swap/submarine/{id}/transaction',
  '/v2/swap/submarine/{id}/invoice/amount',
  '/v2/swap/submarine/{id}/preimage',
  '/v2/swap/submarine/{id}/claim',
  '/v2/swap/reverse/{id}/transaction',
  '/v2/swap/{id}',
];

/** What the engine was asked to do beyond reading statuses and pairs. */
const engineChanges = () => calls.filter((c) => !['status', 'submarinePairs', 'reversePairs', 'chainPairs', 'onStatus'].includes(c.method));

function assertRefused(answer: { status: number; json: any }, what: string, status?: number): void {
  assert.ok(answer.status >= 400 && answer.status < 500, `${what}: got ${answer.status} ${JSON.stringify(answer.json)}`);
  if (status) assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.json)}`);
  assert.equal(typeof answer.json.error, 'string', what);
  assert.ok(answer.json.error.length > 0 && answer.json.error.length < 300, `${what}: unclear error ${answer.json.error}`);
}

/** A path with a swap of the right type in it (or the given id). */
const fill = (path: string, swap = path.includes('/reverse/') ? reverseId : submarineId) => path.replace('{id}', swap);

beforeEach(() => {
  calls.length = 0;
});

after(() => assert.deepEqual(api.errors, [], 'no request may fail with a logged internal error'));

describe('REST bodies', () => {
  for (const endpoint of endpoints) {
    const path = fill(endpoint.path);
    test(`${endpoint.method} ${endpoint.path}: every malformed field is a 400 that never reaches the engine`, async () => {
      for (const [field, kind] of Object.entries(endpoint.fields)) {
        const values: unknown[] = [...invalid[kind]];
        if (endpoint.required.includes(field)) values.push(undefined, null);
        for (const value of values) {
          const body = { ...endpoint.valid, [field]: value };
          if (value === undefined) delete body[field];
          const what = `${path} ${field}=${value instanceof Raw ? value.text : JSON.stringify(value)}`;
          const answer = await call(api, endpoint.method, path, encode(body));
          assertRefused(answer, what, 400);
          assert.deepEqual(calls, [], `${what} reached the engine`);
        }
      }
    });

    test(`${endpoint.method} ${endpoint.path}: bodies that are not JSON objects are 4xx`, async () => {
      const bodies = ['', '[]', encode(endpoint.valid).replace(/^/, '[') + ']', '"text"', '5', 'null', 'true', '{', '{"a":}', '\u0000', '{"a":1}garbage'];
      for (const body of bodies) {
        assertRefused(await call(api, endpoint.method, path, body), `${path} body ${JSON.stringify(body)}`, 400);
      }
      const oversized = encode({ ...endpoint.valid, padding: 'x'.repeat(20_000) });
      assertRefused(await call(api, endpoint.method, path, oversized), `${path} oversized`, 413);
      assert.deepEqual(calls, []);
    });
  }

  test('a __proto__ key in a body does not leak into the request', async () => {
    const answer = await call(api, 'POST', '/v2/swap/submarine', '{"__proto__":{"invoice":"lnbcrt1"},"from":"BTC","to":"BTC","refundPublicKey":"' + key + '"}');
    assertRefused(answer, 'proto', 400);
    assert.equal(answer.json.error, 'undefined parameter: invoice');
    assert.equal(({} as Record<string, unknown>).invoice, undefined);
  });

  test('submarine creation texts: preimage hash length, missing invoice and hash', async () => {
    const base = { from: 'BTC', to: 'BTC', refundPublicKey: key };
    const short = await call(api, 'POST', '/v2/swap/submarine', { ...base, preimageHash: 'ab'.repeat(20) });
    assert.deepEqual(short.json, { error: 'invalid preimage hash length: 20' });
    const none = await call(api, 'POST', '/v2/swap/submarine', base);
    assert.deepEqual(none.json, { error: 'undefined parameter: invoice' });
  });

  test('reverse creation texts: both amounts, no amount, overlong description', async () => {
    const base = { from: 'BTC', to: 'BTC', preimageHash: hash, claimPublicKey: key };
    assert.deepEqual((await call(api, 'POST', '/v2/swap/reverse', { ...base, invoiceAmount: 1, onchainAmount: 1 })).json, {
      error: 'invoice and onchain amount were specified',
    });
    assert.deepEqual((await call(api, 'POST', '/v2/swap/reverse', base)).json, { error: 'no amount was specified' });
    const long = await call(api, 'POST', '/v2/swap/reverse', { ...base, invoiceAmount: 1, description: 'é'.repeat(320) });
    assert.deepEqual(long, { status: 400, json: { error: 'invalid parameter: description' } });
    assert.deepEqual(calls, []);
  });

  test('a partial cooperative reverse claim names the first missing part', async () => {
    const answer = await call(api, 'POST', `/v2/swap/reverse/${id}/claim`, { preimage: hash, pubNonce: nonce, index: 0 });
    assert.deepEqual(answer, { status: 400, json: { error: 'undefined parameter: transaction' } });
    assert.deepEqual(calls, []);
  });
});

describe('REST ids', () => {
  const malformed: [string, number, RegExp | string][] = [
    ['short', 404, /^could not find swap with id: short$/],
    ['0OOOOOOOOOOl', 404, /^could not find swap with id: 0OOOOOOOOOOl$/],
    [`${id}x`, 404, /^could not find swap with id: /],
    ['a'.repeat(200), 400, /^invalid parameter: id$/],
    ['%01%02', 404, 'could not find swap with id: \u0001\u0002'], // control characters, echoed JSON-escaped
    ['%E0%A4%A', 404, /^not found: /], // undecodable: no route matches
    ['a%2Fb', 404, /^could not find swap with id: a\/b$/],
    ['%20', 404, /^could not find swap with id: {2}$/],
  ];

  for (const path of [...getPaths, ...endpoints.filter((e) => e.path.includes('{id}')).map((e) => e.path)]) {
    const endpoint = endpoints.find((e) => e.path === path);
    const method = endpoint ? 'POST' : 'GET';
    test(`${method} ${path}: unknown and malformed ids`, async () => {
      const unknown = await call(api, method, fill(path, unknownId), endpoint?.valid);
      assert.deepEqual(unknown, { status: 404, json: { error: `could not find swap with id: ${unknownId}` } });
      assert.deepEqual(engineChanges().filter((c) => c.args[0] !== unknownId), []);
      calls.length = 0;
      for (const [swap, status, text] of malformed) {
        const answer = await call(api, method, fill(path, swap), endpoint?.valid);
        assertRefused(answer, `${path} id=${swap.slice(0, 20)}`, status);
        if (typeof text === 'string') assert.equal(answer.json.error, text);
        else assert.match(answer.json.error, text);
      }
      assert.deepEqual(calls, [], 'malformed ids never reach the engine');
    });
  }

  test('v1 /swapstatus with malformed ids', async () => {
    for (const value of ['short', 'a'.repeat(200), '', `${id} `]) {
      assertRefused(await call(api, 'POST', '/swapstatus', { id: value }), `swapstatus ${value.slice(0, 20)}`);
    }
    assert.deepEqual(calls, []);
  });

  test('GET /v2/swap/status with hostile queries', async () => {
    const queries = ['', '?ids=', '?ids=short', `?ids=${'a'.repeat(500)}`, `?ids=${id}&ids=`, '?ids[]=' + id, '?id=' + id, '?ids=%E0%A4%A'];
    for (const query of queries) {
      assertRefused(await call(api, 'GET', '/v2/swap/status' + query), `status${query.slice(0, 30)}`);
    }
    const many = (n: number) => Array.from({ length: n }, () => `ids=${id}`).join('&');
    assertRefused(await call(api, 'GET', `/v2/swap/status?${many(200)}`), 'status with 200 ids', 400);
    // beyond Node's header limit the HTTP parser itself answers 431, before any route runs
    assert.equal((await fetch(`${api.url}/v2/swap/status?${many(1000)}`)).status, 431);
    assert.deepEqual(calls, []);
  });

  test('unparsable request targets and unknown routes are 4xx JSON', async () => {
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(api.port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      });
    for (const target of ['//[', 'http://[', '//x:99999/']) {
      const answer = await raw(target);
      assert.match(answer, /^HTTP\/1\.1 4\d\d /, target);
    }
    assertRefused(await call(api, 'GET', '/v2/swap/submarine/x/y/z'), 'deep path', 404);
    assertRefused(await call(api, 'DELETE', `/v2/swap/${id}`), 'delete', 405);
    assertRefused(await call(api, 'PUT', '/v2/swap/submarine', {}), 'put', 405);
  });
});

describe('WebSocket messages', () => {
  const messageTypes: Record<string, unknown>[] = [
    { op: 'subscribe', channel: 'swap.update', args: [id] },
    { op: 'unsubscribe', channel: 'swap.update', args: [id] },
    { op: 'ping' },
    { op: 'invoice', id: 'x', invoice: 'lni1' },
    { op: 'invoice.error', id: 'x', error: 'no' },
    { op: 'subscribe', channel: 'invoice.request', args: [{ offer: 'lno1', signature: 'ab' }] },
  ];
  const hostileValues = [undefined, null, 5, -1, 1e300, true, [], {}, '', 'x'.repeat(200), [[[[]]]], { op: 'ping' }];

  test('every message type with every field replaced by hostile values answers an error event or a plain reply', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    for (const message of messageTypes) {
      for (const field of ['op', 'channel', 'args']) {
        for (const value of hostileValues) {
          const hostile = { ...message, [field]: value };
          if (value === undefined) delete hostile[field];
          const answer = await socket.ask(hostile);
          const what = JSON.stringify(hostile).slice(0, 120);
          if (answer.event === 'error') {
            assert.ok(typeof answer.error === 'string' && answer.error.length > 0 && answer.error.length < 300, what);
          } else {
            // only a well-formed variant gets a regular reply
            assert.ok(['subscribe', 'unsubscribe', 'pong'].includes(answer.event), `${what}: ${JSON.stringify(answer)}`);
            if (answer.event === 'subscribe') {
              const snapshot = (hostile.args as unknown[]).includes(id);
              if (snapshot) assert.equal((await socket.next()).event, 'update');
            }
          }
          assert.equal(typeof answer.timestamp, 'string');
        }
      }
    }
    assert.deepEqual(engineChanges(), []);
    socket.close();
  });

  test('messages that are not JSON objects, and binary frames, get error events', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    const texts = ['', ' ', 'null', '[]', '[{"op":"ping"}]', '"ping"', '5', '{', '{"op":"ping"', '\u0000', '[['.repeat(2000) + ']]'.repeat(2000)];
    for (const text of texts) {
      const answer = await socket.ask(text);
      assert.equal(answer.event, 'error', JSON.stringify(text).slice(0, 50));
      assert.match(answer.error, /^could not parse message/);
    }
    socket.ws.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
    assert.equal((await socket.next()).event, 'error');
    socket.ws.send(Buffer.from(JSON.stringify({ op: 'ping' })), { binary: true });
    assert.equal((await socket.next()).event, 'pong');
    socket.close();
  });

  test('a flood of messages is answered in order, and the server keeps serving others', async () => {
    const socket = await TestSocket.open(api.wsUrl);
    for (let i = 0; i < 300; i++) socket.send(i % 2 ? { op: 'ping' } : { op: 'subscribe', channel: 'swap.update', args: [unknownId] });
    for (let i = 0; i < 300; i++) assert.equal((await socket.next()).event, i % 2 ? 'pong' : 'subscribe');
    const other = await TestSocket.open(api.wsUrl);
    assert.equal((await other.ask({ op: 'ping' })).event, 'pong');
    other.close();
    socket.close();
  });

  test('after all of that the HTTP API still answers and no swap changed', async () => {
    assert.deepEqual(await call(api, 'GET', `/v2/swap/${submarineId}`), { status: 200, json: { status: 'invoice.set' } });
    assert.deepEqual(await call(api, 'GET', `/v2/swap/${reverseId}`), { status: 200, json: { status: 'swap.created' } });
    assert.deepEqual(await records(), untouched);
    assert.equal(await world.storage.swaps.count(), swapCount, 'no swap was created');
  });
});
