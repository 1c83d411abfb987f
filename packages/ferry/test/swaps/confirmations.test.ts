// The confirmations a user lockup needs before Ferry acts on it: the tier syntax and its refusals, the built-in
// defaults per chain and network, the pair setting as the configuration loads it, and how a lockup in a block but
// shallower than its amount needs is classified (as an unconfirmed one).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.ts';
import { pairsFromConfig } from '../../src/config/pair.ts';
import {
  DEFAULT_CONFIRMATIONS,
  defaultConfirmations,
  formatConfirmations,
  parseConfirmations,
  requiredConfirmations,
} from '../../src/swaps/confirmations.ts';
import { classifySubmarineLockup, validatePair, DEFAULT_BTC_PAIR, type LockupPolicy } from '../../src/swaps/index.ts';

describe('confirmation tiers', () => {
  test('a number is one tier for every amount; tiers are inclusive upper bounds, the last one "*"', () => {
    assert.deepEqual(parseConfirmations('3'), [{ upTo: Infinity, confirmations: 3 }]);
    assert.deepEqual(parseConfirmations(3), [{ upTo: Infinity, confirmations: 3 }]);
    const tiers = parseConfirmations(' 1000000:2, 10000000:3 ,*:6');
    assert.equal(requiredConfirmations(tiers, 1), 2);
    assert.equal(requiredConfirmations(tiers, 1_000_000), 2, 'up to and including the bound');
    assert.equal(requiredConfirmations(tiers, 1_000_001), 3);
    assert.equal(requiredConfirmations(tiers, 10_000_001), 6);
    assert.equal(requiredConfirmations(tiers, 21e14), 6);
    assert.equal(formatConfirmations(tiers), '1000000:2,10000000:3,*:6');
    assert.equal(formatConfirmations(parseConfirmations(4)), '4');
  });

  for (const [setting, why] of [
    ['', /not a tier/],
    ['0', /blocks must be a whole number ≥ 1, got 0/],
    ['1000000:2', /the last tier must be "\*:BLOCKS"/],
    ['*:2,1000000:3', /"\*" must be the last tier/],
    ['1000000:2,1000000:3,*:4', /amounts must rise/],
    ['2000000:2,1000000:3,*:4', /amounts must rise/],
    ['1000000:3,*:2', /a larger amount must not need fewer blocks \(2 after 3\)/],
    ['1000000:0,*:2', /blocks must be a whole number ≥ 1/],
    ['1e6:2,*:3', /"1e6:2" is not a tier/],
    ['1000000-2,*:3', /is not a tier; expected a number of blocks/],
    ['1.5', /is not a tier/],
  ] as const) {
    test(`"${setting}" is refused, saying why`, () => {
      assert.throws(() => parseConfirmations(setting), why);
    });
  }

  test('the built-in defaults parse, and Bitcoin needs at least 2 blocks for 100,000 sat and more as the amount rises', () => {
    for (const [network, chains] of Object.entries(DEFAULT_CONFIRMATIONS)) {
      for (const [chain, setting] of Object.entries(chains)) assert.doesNotThrow(() => parseConfirmations(setting), `${network} ${chain}`);
    }
    const btc = defaultConfirmations('mainnet', 'BTC');
    assert.deepEqual([100_000, 1_000_000, 5_000_000, 50_000_000, 100_000_000, 500_000_000].map((amount) => requiredConfirmations(btc, amount)), [2, 2, 3, 4, 4, 6]);
    assert.equal(requiredConfirmations(defaultConfirmations('mainnet', 'L-BTC'), 10_000_000_000), 2, "Liquid's 2-block finality");
    const rbtc = defaultConfirmations('mainnet', 'RBTC');
    assert.deepEqual([100_000, 5_000_000, 50_000_000, 500_000_000].map((amount) => requiredConfirmations(rbtc, amount)), [3, 6, 10, 20]);
    for (const network of ['testnet', 'signet'] as const) assert.deepEqual(defaultConfirmations(network, 'BTC'), btc, `${network} rehearses mainnet`);
    for (const chain of ['BTC', 'L-BTC', 'RBTC', 'ANY']) {
      assert.equal(requiredConfirmations(defaultConfirmations('regtest', chain), 21e14), 1, `the devnet: 1 block for ${chain}`);
    }
    assert.deepEqual(defaultConfirmations('mainnet', 'ANY'), rbtc, 'an unknown chain waits like the most cautious one');
  });

  test('validatePair refuses tiers that do not cover every amount', () => {
    assert.doesNotThrow(() => validatePair({ ...DEFAULT_BTC_PAIR, confirmations: parseConfirmations('1000000:2,*:6') }));
    assert.throws(() => validatePair({ ...DEFAULT_BTC_PAIR, confirmations: [{ upTo: 1_000_000, confirmations: 2 }] }), /pair BTC\/BTC: the last tier must cover every amount/);
    assert.throws(() => validatePair({ ...DEFAULT_BTC_PAIR, confirmations: [] }), /the last tier must cover every amount/);
  });
});

describe('the pair setting `confirmations`', () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'ferry-confirmations-')), 'ferry.toml');
    writeFileSync(path, text);
    return path;
  };

  test('unset: each chain defaults for the network; set in [pair] or a [[pairs]] entry as a string or a number', () => {
    assert.equal(loadConfig({ env: {} }).pair.confirmations, '');
    assert.equal(pairsFromConfig(loadConfig({ env: {} }))[0].confirmations, undefined);
    const tiers = pairsFromConfig(loadConfig({ file: file(`[pair]\nconfirmations = "${DEFAULT_CONFIRMATIONS.mainnet.BTC}"\n`), env: {} }));
    assert.deepEqual(tiers[0].confirmations, defaultConfirmations('mainnet', 'BTC'));
    const listed = pairsFromConfig(loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\nconfirmations = 3\n[[pairs]]\nid = "L-BTC/BTC"\n'), env: {} }));
    assert.deepEqual(listed.map((pair) => pair.confirmations), [[{ upTo: Infinity, confirmations: 3 }], undefined]);
  });

  test('maximalZeroConf unset: 0-conf up to 1,000,000 sat on regtest, off on mainnet (full RBF); a set value is kept', () => {
    const zeroConf = (text: string) => pairsFromConfig(loadConfig({ file: file(text), env: {} })).map((pair) => [pair.id, pair.limits.maximalZeroConf]);
    assert.deepEqual(zeroConf(''), [['BTC/BTC', 1_000_000], ['L-BTC/BTC', 1_000_000], ['RBTC/BTC', 0]]);
    assert.deepEqual(zeroConf('network = "mainnet"\n[[pairs]]\nid = "BTC/BTC"\n[[pairs]]\nid = "L-BTC/BTC"\n'), [['BTC/BTC', 0], ['L-BTC/BTC', 0]]);
    assert.deepEqual(zeroConf('network = "mainnet"\n[pair]\nmaximalZeroConf = 50000\n')[0], ['BTC/BTC', 50_000]);
    assert.deepEqual(zeroConf('network = "testnet"\n[[pairs]]\nid = "BTC/BTC"\nmaximalZeroConf = 0\n'), [['BTC/BTC', 0]]);
  });

  test('a bad setting stops start-up with the key and the reason', () => {
    assert.throws(() => loadConfig({ file: file('[pair]\nconfirmations = "1000000:2"\n'), env: {} }), /config key pair\.confirmations: .*the last tier must be/);
    assert.throws(() => loadConfig({ file: file('[[pairs]]\nid = "BTC/BTC"\nconfirmations = 0\n'), env: {} }), /config key pairs\[0\]\.confirmations: .*≥ 1/);
    assert.throws(() => loadConfig({ file: file('[pair]\nconfirmations = true\n'), env: {} }), /config key pair\.confirmations must be a number of blocks or a string of tiers/);
  });
});

describe('a lockup shallower than its amount needs', () => {
  const policy: LockupPolicy = { maximalZeroConf: 1_000_000, minZeroConfFeeRate: 1.6, overpaymentTolerancePercent: 2, confirmations: 2 };
  const seen = { txid: 'aa'.repeat(32), vout: 1, value: 100_000, hex: '02', confirmations: 1, signalsRbf: true };

  test('in one block of two needed: judged as unconfirmed (refused for 0-conf when it does not qualify)', () => {
    const event = classifySubmarineLockup({ expectedAmount: 100_000 }, seen, policy);
    assert.equal(event?.type, 'lockup.mempool');
    assert.deepEqual(event?.data?.lockup, { txid: seen.txid, vout: 1, value: 100_000, hex: '02', confirmed: false, zeroConf: false, zeroConfRejected: true });
  });

  test('the 0-conf rules are unchanged: a lockup that qualifies is accepted unconfirmed', () => {
    const event = classifySubmarineLockup({ expectedAmount: 100_000 }, { ...seen, confirmations: 0, signalsRbf: false, feeRate: 2 }, policy);
    assert.equal(event?.type, 'lockup.zeroConf');
  });

  test('the recorded lockup counts as confirmed once it is as deep as needed, not before', () => {
    const lockup = classifySubmarineLockup({ expectedAmount: 100_000 }, seen, policy)!.data!.lockup as object;
    assert.equal(classifySubmarineLockup({ lockup }, seen, policy), undefined, 'one block: still waiting');
    const confirmed = classifySubmarineLockup({ lockup }, { ...seen, confirmations: 2 }, policy);
    assert.equal(confirmed?.type, 'lockup.confirmed');
    assert.deepEqual(confirmed?.data?.lockup, { ...lockup, confirmed: true });
    assert.equal(classifySubmarineLockup({}, { ...seen, confirmations: 3 }, policy)?.type, 'lockup.confirmed', 'first seen deep enough');
  });

  test('a wrong amount is refused whatever its depth', () => {
    assert.equal(classifySubmarineLockup({ expectedAmount: 200_000 }, seen, policy)?.type, 'lockup.rejected');
  });
});
