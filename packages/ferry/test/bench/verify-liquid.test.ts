// The Liquid verification benchmark's transactions are what it claims to time: confidential spends of each
// kind that the devnet Elements verifier accepts, with tampered copies rejected (bench/verify-liquid.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLiquidSpends, checkLiquidSpends } from '../../bench/verify-liquid.ts';

test('the Liquid benchmark spends verify, and tampered copies do not', async () => {
  const spends = await buildLiquidSpends(2);
  assert.deepEqual(
    Object.values(spends).map((list) => list.length),
    [2, 2, 2],
  );
  await checkLiquidSpends(spends);
});

test('the Liquid benchmark check fails loudly on a spend that does not verify', async () => {
  const spends = await buildLiquidSpends(1);
  // Another output's prevout: the signature and the balance no longer match.
  spends.scriptPath[0].prevouts = spends.p2wpkh[0].prevouts;
  await assert.rejects(checkLiquidSpends(spends), /liquid benchmark scriptPath spend rejected/);
});
