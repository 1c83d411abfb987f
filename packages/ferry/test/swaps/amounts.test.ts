// Fee and amount arithmetic, pair bodies and their hash, swap ids and the lockup classifier.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  DEFAULT_BTC_PAIR,
  SWAP_ID_ALPHABET,
  classifySubmarineLockup,
  generateSwapId,
  isSwapId,
  limitViolation,
  minerFee,
  minerFeesFor,
  pairHash,
  percentageFee,
  reverseInvoiceAmount,
  reverseOnchainAmount,
  reversePairBody,
  submarineExpectedAmount,
  submarineInvoiceAmount,
  submarinePairBody,
  validatePair,
  type LockupPolicy,
} from '../../src/swaps/index.ts';

describe('fees', () => {
  test('percentage fees round up and never suffer float noise', () => {
    assert.equal(percentageFee(100_000, 0.1), 100);
    assert.equal(percentageFee(100_001, 0.1), 101);
    assert.equal(percentageFee(100_000, 0.25), 250);
    assert.equal(percentageFee(1, 0.25), 1);
    assert.equal(percentageFee(0, 0.25), 0);
    // 0.1 × 3 in floats is 0.30000000000000004; 300 000 × 0.3% must still be exactly 900
    assert.equal(percentageFee(300_000, 0.1 * 3), 900);
  });

  test('miner fees are ceil(sat/vbyte × vsize) with the reference vsizes', () => {
    assert.equal(minerFee(1.1, 110), 121);
    assert.equal(minerFee(2.001, 100), 201);
    assert.deepEqual(minerFeesFor(2), { normal: 302, reverse: { lockup: 308, claim: 222 } });
    assert.deepEqual(minerFeesFor(1.5), { normal: 227, reverse: { lockup: 231, claim: 167 } });
  });
});

describe('reverse amounts', () => {
  test('onchain = floor(invoice × rate − ceil(pct × invoice × rate) − lockup fee)', () => {
    assert.equal(reverseOnchainAmount(100_000, 1, 0.25, 308), 100_000 - 250 - 308);
    assert.equal(reverseOnchainAmount(100_001, 1, 0.25, 308), 100_001 - 251 - 308);
  });

  test('invoice = ceil(((onchain + lockup fee) / rate) / (1 − pct))', () => {
    // (99442 + 308) / 0.9975 = 100000 exactly
    assert.equal(reverseInvoiceAmount(99_442, 1, 0.25, 308), 100_000);
    assert.equal(reverseInvoiceAmount(99_443, 1, 0.25, 308), 100_002);
  });

  test('an invoice computed from an onchain amount pays for at least that amount less a satoshi of rounding', () => {
    for (let onchain = 10_000; onchain < 10_400; onchain += 7) {
      const invoice = reverseInvoiceAmount(onchain, 1, 0.25, 308);
      const back = reverseOnchainAmount(invoice, 1, 0.25, 308);
      assert.ok(back >= onchain - 1 && back <= onchain + 1, `${onchain} → ${invoice} → ${back}`);
    }
  });
});

describe('submarine amounts', () => {
  test('expected = invoice + ceil(pct × invoice) + miner fee', () => {
    assert.equal(submarineExpectedAmount(100_000, 1, 0.1, 302), 100_402);
    assert.equal(submarineExpectedAmount(100_001, 1, 0.1, 302), 100_001 + 101 + 302);
  });

  test('the invoice amount for a lockup is the largest whose expected amount fits', () => {
    for (let locked = 20_000; locked < 20_600; locked += 13) {
      const invoice = submarineInvoiceAmount(locked, 1, 0.1, 302);
      assert.ok(submarineExpectedAmount(invoice, 1, 0.1, 302) <= locked);
      assert.ok(submarineExpectedAmount(invoice + 1, 1, 0.1, 302) > locked);
    }
    assert.equal(submarineInvoiceAmount(100_402, 1, 0.1, 302), 100_000);
    assert.equal(submarineInvoiceAmount(100, 1, 0.1, 302), 0);
  });

  test('limits use the reference texts', () => {
    assert.equal(limitViolation(9_999, DEFAULT_BTC_PAIR.limits), '9999 is less than minimal of 10000');
    assert.equal(limitViolation(10_000_001, DEFAULT_BTC_PAIR.limits), '10000001 is exceeds maximal of 10000000');
    assert.equal(limitViolation(10_000, DEFAULT_BTC_PAIR.limits), undefined);
    assert.equal(limitViolation(10_000_000, DEFAULT_BTC_PAIR.limits), undefined);
  });
});

describe('pairs', () => {
  test('the hash is sha256 of JSON.stringify({rate, fees, limits}) in that order', () => {
    const body = submarinePairBody(DEFAULT_BTC_PAIR, minerFeesFor(2));
    const json =
      '{"rate":1,"fees":{"percentage":0.1,"minerFees":302},' +
      '"limits":{"maximal":10000000,"minimal":10000,"maximalZeroConf":1000000}}';
    assert.equal(body.hash, createHash('sha256').update(json).digest('hex'));
    assert.deepEqual(Object.keys(body), ['hash', 'rate', 'limits', 'fees']);
    assert.equal(pairHash({ limits: body.limits, fees: body.fees, rate: body.rate }), body.hash);
  });

  test('reverse bodies carry lockup and claim miner fees', () => {
    const body = reversePairBody(DEFAULT_BTC_PAIR, minerFeesFor(2));
    assert.deepEqual(body.fees, { percentage: 0.25, minerFees: { lockup: 308, claim: 222 } });
    assert.deepEqual(body.limits, { maximal: 10_000_000, minimal: 10_000 });
    const json = '{"rate":1,"fees":{"percentage":0.25,"minerFees":{"lockup":308,"claim":222}},"limits":{"maximal":10000000,"minimal":10000}}';
    assert.equal(body.hash, createHash('sha256').update(json).digest('hex'));
  });

  test('a changed fee estimate changes the hash', () => {
    assert.notEqual(submarinePairBody(DEFAULT_BTC_PAIR, minerFeesFor(2)).hash, submarinePairBody(DEFAULT_BTC_PAIR, minerFeesFor(3)).hash);
  });

  test('invalid configurations are refused', () => {
    validatePair(DEFAULT_BTC_PAIR);
    assert.throws(() => validatePair({ ...DEFAULT_BTC_PAIR, limits: { ...DEFAULT_BTC_PAIR.limits, maximal: 5 } }), /maximal/);
    assert.throws(() => validatePair({ ...DEFAULT_BTC_PAIR, rate: 0 }), /rate/);
    assert.throws(() => validatePair({ ...DEFAULT_BTC_PAIR, timeouts: { ...DEFAULT_BTC_PAIR.timeouts, swapMaximal: 10 } }), /swapMaximal/);
  });
});

describe('swap ids', () => {
  test('12 characters of the reference alphabet, all characters used', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = generateSwapId();
      assert.equal(id.length, 12);
      assert.ok(isSwapId(id));
      for (const c of id) seen.add(c);
    }
    assert.equal(seen.size, SWAP_ID_ALPHABET.length);
    assert.ok(!isSwapId('O0Il'));
  });
});

describe('lockup classification', () => {
  const policy: LockupPolicy = { maximalZeroConf: 1_000_000, minZeroConfFeeRate: 1.6, overpaymentTolerancePercent: 2 };
  const seen = { txid: 'aa'.repeat(32), vout: 1, value: 100_402, hex: '02', confirmations: 0, feeRate: 2, signalsRbf: false };

  test('an exact unconfirmed lockup under the 0-conf limit with a good fee and no RBF is accepted', () => {
    const event = classifySubmarineLockup({ expectedAmount: 100_402 }, seen, policy);
    assert.equal(event?.type, 'lockup.zeroConf');
    assert.deepEqual(event?.data?.lockup, {
      txid: seen.txid,
      vout: 1,
      value: 100_402,
      hex: '02',
      confirmed: false,
      zeroConf: true,
      zeroConfRejected: false,
    });
  });

  for (const [why, change] of [
    ['RBF signalling', { signalsRbf: true }],
    ['a fee below 80% of the estimate', { feeRate: 1.5 }],
    ['an unknown fee', { feeRate: undefined }],
    ['an amount above maximalZeroConf', { value: 1_000_001 }],
  ] as const) {
    test(`${why} makes an unconfirmed lockup wait for a confirmation`, () => {
      const event = classifySubmarineLockup({}, { ...seen, ...change }, policy);
      assert.equal(event?.type, 'lockup.mempool');
      assert.equal((event?.data?.lockup as { zeroConfRejected: boolean }).zeroConfRejected, true);
    });
  }

  test('0-conf is off when maximalZeroConf is 0', () => {
    assert.equal(classifySubmarineLockup({}, seen, { ...policy, maximalZeroConf: 0 })?.type, 'lockup.mempool');
  });

  test('wrong amounts are rejected with the reference texts and details', () => {
    const less = classifySubmarineLockup({ expectedAmount: 100_403 }, seen, policy);
    assert.equal(less?.type, 'lockup.rejected');
    assert.equal(less?.data?.failureReason, 'locked 100402 is less than expected 100403');
    assert.deepEqual(less?.data?.failureDetails, { expected: 100_403, actual: 100_402 });
    const more = classifySubmarineLockup({ expectedAmount: 90_000 }, seen, policy);
    assert.equal(more?.data?.failureReason, 'locked 100402 is more than expected 90000');
    assert.equal(classifySubmarineLockup({ expectedAmount: 98_500 }, seen, policy)?.type, 'lockup.zeroConf', 'within 2%');
  });

  test('a lockup the watcher refuses (another asset) fails with its reason, with or without an invoice', () => {
    for (const data of [{}, { expectedAmount: 100_402 }]) {
      const event = classifySubmarineLockup(data, { ...seen, confirmations: 1, refusal: 'lockup is not L-BTC' }, policy);
      assert.equal(event?.type, 'lockup.rejected');
      assert.equal(event?.data?.failureReason, 'lockup is not L-BTC');
    }
  });

  test('a confirmed lockup is confirmed, and a known lockup only changes when it confirms', () => {
    assert.equal(classifySubmarineLockup({}, { ...seen, confirmations: 1 }, policy)?.type, 'lockup.confirmed');
    const lockup = { txid: seen.txid, vout: 1, value: 100_402, hex: '02', confirmed: false, zeroConf: false, zeroConfRejected: true };
    assert.equal(classifySubmarineLockup({ lockup }, seen, policy), undefined);
    const confirmed = classifySubmarineLockup({ lockup }, { ...seen, confirmations: 1 }, policy);
    assert.equal(confirmed?.type, 'lockup.confirmed');
    assert.deepEqual(confirmed?.data?.lockup, { ...lockup, confirmed: true });
    assert.equal(classifySubmarineLockup({ lockup: { ...lockup, confirmed: true } }, { ...seen, confirmations: 2 }, policy), undefined);
    assert.equal(classifySubmarineLockup({ lockup }, { ...seen, txid: 'bb'.repeat(32), confirmations: 1 }, policy), undefined, 'a second lockup is ignored');
  });
});
