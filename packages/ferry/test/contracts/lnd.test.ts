// The lnd-rest contract checker catches what LND's REST contract does not allow — Ferry's old unpadded base64url in
// a path, a path LND does not serve, a body field its request message lacks, an answer field of the wrong JSON type
// — and passes an exchange that conforms. Exchanges here are written by hand, so each case has one known fault.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import { checkLndExchange } from './lnd.ts';
import { CHECKERS } from './checkers.ts';

const hash = Buffer.alloc(32, 0xfb); // base64 "+/v7..." — its two alphabets differ
const urlSafe = (b: Buffer): string => b.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

const payment = {
  payment_hash: hash.toString('hex'),
  value: '1000',
  creation_date: '1700000000',
  fee: '0',
  payment_preimage: '00'.repeat(32),
  value_sat: '1000',
  value_msat: '1000000',
  payment_request: 'lnbcrt10u1...',
  status: 'IN_FLIGHT',
  fee_sat: '0',
  fee_msat: '0',
  creation_time_ns: '1700000000000000000',
  htlcs: [],
  payment_index: '1',
  failure_reason: 'FAILURE_REASON_NONE',
  first_hop_custom_records: {},
};

const exchange = (over: Partial<NodeExchange>): NodeExchange => ({
  face: 'lnd-rest',
  node: 'ferry',
  method: 'GET',
  path: `/v2/router/track/${encodeURIComponent(urlSafe(hash))}`,
  query: {},
  request: undefined,
  status: 200,
  response: { result: payment },
  stream: true,
  ...over,
});

describe('lnd-rest contract checker', () => {
  test('is the checker registered for the lnd-rest face', () => {
    assert.equal(CHECKERS['lnd-rest'], checkLndExchange);
  });

  test('passes a conforming stream message, unary answer and error', () => {
    const tracked = checkLndExchange(exchange({}));
    assert.deepEqual(tracked, { operation: 'GET /v2/router/track/{payment_hash}', violations: [] });
    const hold = checkLndExchange(
      exchange({
        method: 'POST',
        path: '/v2/invoices/hodl',
        request: { hash: hash.toString('base64'), value_msat: '1000', memo: '', expiry: 600, cltv_expiry: '40' },
        response: { payment_request: 'lnbcrt...', add_index: '3', payment_addr: hash.toString('base64') },
        stream: undefined,
      }),
    );
    assert.deepEqual(hold.violations, []);
    const lookup = checkLndExchange(
      exchange({
        path: '/v2/invoices/lookup',
        query: { payment_hash: [urlSafe(hash)] },
        status: 404,
        response: { code: 5, message: 'unable to locate invoice', details: [] },
        stream: undefined,
      }),
    );
    assert.deepEqual(lookup, { operation: 'GET /v2/invoices/lookup', violations: [] });
  });

  test('flags the unpadded base64url Ferry used to send, in a path and in a query', () => {
    const inPath = checkLndExchange(exchange({ path: `/v2/invoices/subscribe/${hash.toString('base64url')}` }));
    assert.equal(inPath.operation, 'GET /v2/invoices/subscribe/{r_hash}');
    assert.match(inPath.violations.join('\n'), /r_hash=.* is not padded base64 .*illegal base64 data at input byte 40/);
    const inQuery = checkLndExchange(
      exchange({ path: '/v2/invoices/lookup', query: { payment_hash: [hash.toString('base64url')] }, stream: undefined, response: { code: 3, message: 'x', details: [] }, status: 400 }),
    );
    assert.match(inQuery.violations.join('\n'), /payment_hash=.* is not padded base64/);
    const hex = checkLndExchange(exchange({ path: `/v2/router/track/${hash.toString('hex')}` }));
    assert.deepEqual(hex.violations, [], 'hex is valid (if useless) base64: runtime.Bytes takes it, LND then refuses its length');
  });

  test('flags a path LND does not serve, a method it does not take there, and an undeclared query parameter', () => {
    const unknown = checkLndExchange(exchange({ path: '/v2/router/elsewhere' }));
    assert.equal(unknown.operation, undefined);
    assert.match(unknown.violations[0], /GET \/v2\/router\/elsewhere is not an operation/);
    assert.match(checkLndExchange(exchange({ method: 'POST', path: '/v1/getinfo', stream: undefined })).violations[0], /not an operation/);
    const extra = checkLndExchange(exchange({ query: { timeout: ['5'] } }));
    assert.deepEqual(extra.violations, ['query parameter timeout is not one GET /v2/router/track/{payment_hash} declares']);
  });

  test('flags a body field the request message lacks, and one of the wrong type', () => {
    const send = (request: unknown) =>
      checkLndExchange(exchange({ method: 'POST', path: '/v2/router/send', request }));
    assert.deepEqual(send({ payment_request: 'lnbcrt...', timeout_seconds: 30, fee_limit_msat: '1000' }).violations, []);
    assert.match(send({ payment_request: 'lnbcrt...', max_fee: 5 }).violations.join('\n'), /additional properties \(max_fee\)/);
    assert.match(send({ payment_request: 'lnbcrt...', no_inflight_updates: 'false' }).violations.join('\n'), /no_inflight_updates must be boolean/);
  });

  test('flags an answer field of the wrong JSON type, a missing one and one the swagger lacks', () => {
    const wrongType = checkLndExchange(exchange({ response: { result: { ...payment, value_msat: 1000000 } } }));
    assert.match(wrongType.violations.join('\n'), /stream result\/value_msat must be string/);
    const { fee_msat: _omitted, ...withoutFee } = payment;
    assert.match(checkLndExchange(exchange({ response: { result: withoutFee } })).violations.join('\n'), /must have required property 'fee_msat'/);
    const invented = checkLndExchange(exchange({ response: { result: { ...payment, colour: 'red' } } }));
    assert.match(invented.violations.join('\n'), /additional properties \(colour\)/);
    const badEnum = checkLndExchange(exchange({ response: { result: { ...payment, status: 2 } } }));
    assert.match(badEnum.violations.join('\n'), /status must be string/);
    const badError = checkLndExchange(exchange({ status: 404, response: { error: { code: 5, message: 'x' } } }));
    assert.match(badError.violations.join('\n'), /must have required property 'details'/);
  });

  test('a probe (a test\'s deliberate breach) is judged by its answer only', () => {
    const refused = exchange({ path: `/v2/invoices/subscribe/${hash.toString('base64url')}`, status: 400, stream: undefined, probe: 'old URL', response: { code: 3, message: 'type mismatch', details: [] } });
    assert.deepEqual(checkLndExchange(refused).violations, []);
    assert.notDeepEqual(checkLndExchange({ ...refused, response: { error: 'no' } }).violations, []);
  });
});
