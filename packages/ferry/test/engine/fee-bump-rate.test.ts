// The fee rate a bump of Ferry's stuck transaction pays: the estimate when it is higher, a quarter more than what is
// stuck within twice the estimate, and never less than the 1 sat/vbyte more a replacement must pay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bumpedFeeRate } from '../../src/engine/legs/fee-bump.ts';

test('a bump pays the estimate when the market moved up', () => {
  assert.equal(bumpedFeeRate(2, 12), 12);
});

test('stuck at the estimate: a quarter more', () => {
  assert.equal(bumpedFeeRate(10, 10), 12.5);
});

test('stuck far above the estimate: only the replacement minimum, so repeated bumps grow linearly, not geometrically', () => {
  assert.equal(bumpedFeeRate(30, 10), 31);
  let rate = 30;
  for (let bump = 0; bump < 24; bump++) rate = bumpedFeeRate(rate, 10);
  assert.equal(rate, 54, 'a day of bumps every 6 blocks');
});

test('a tiny stuck rate still gains the 1 sat/vbyte a replacement needs', () => {
  assert.equal(bumpedFeeRate(1, 1), 2);
});
