// The pairs' fee history on both dialects: one sample per pair and ten-minute bucket whoever writes it (a restart,
// a second instance), the operator's fee change showing from its bucket on, the submarine routing fee limit beside
// the fee, samples older than a week dropped, and nothing answered for a pair never sampled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRepositories } from '../../src/db/index.ts';
import { FEE_HISTORY_SECONDS, FEE_SAMPLE_SECONDS, FeeHistory, type FeeSources } from '../../src/engine/fee-history.ts';
import { silentLogger } from '../../src/log/index.ts';
import { onBothDialects } from './harness.ts';

/** Pair lists shaped as the API answers them, with the given percentages. */
function sources(submarine: number, reverse: number, chain: number): FeeSources {
  const body = (percentage: number) => ({ fees: { percentage } });
  return {
    submarine: async () => ({ BTC: { BTC: body(submarine) }, 'L-BTC': { BTC: body(submarine) } }),
    reverse: async () => ({ BTC: { BTC: body(reverse), 'L-BTC': body(reverse) } }),
    chain: async () => ({ BTC: { 'L-BTC': body(chain) }, 'L-BTC': { BTC: body(chain) } }),
  };
}

onBothDialects('pair fee history', (h) => {
  test('a sample per bucket, a fee change from its bucket on, the routing fee limit on submarine pairs, a week kept', async () => {
    const url = await h.freshUrl();
    let nowMs = Date.UTC(2026, 10, 1, 12, 3, 0); // 12:03, inside the 12:00 bucket
    const clock = () => nowMs;
    const bucket = (ms: number) => Math.floor(ms / 1000 / FEE_SAMPLE_SECONDS) * FEE_SAMPLE_SECONDS;
    const samples = createRepositories(await h.open(url)).feeSamples;
    const before = new FeeHistory({ samples, sources: sources(0.1, 0.25, 0.1), routingFeeLimitPpm: 5_000, logger: silentLogger, now: clock });
    assert.equal(await before.stats('reverse', 'BTC', 'BTC'), undefined, 'never sampled');

    await before.sample();
    const first = bucket(nowMs);
    nowMs += 4 * 60_000; // 12:07: the same bucket, sampled again by a second instance with other fees
    const other = new FeeHistory({ samples: createRepositories(await h.open(url)).feeSamples, sources: sources(9, 9, 9), routingFeeLimitPpm: 1, logger: silentLogger, now: clock });
    await other.sample();
    assert.deepEqual(await before.stats('reverse', 'BTC', 'BTC'), { fee: [[first, 0.25]] }, 'the bucket keeps its first sample');

    nowMs += FEE_SAMPLE_SECONDS * 1000; // the next bucket, after the operator raised the reverse fee and restarted
    const after = new FeeHistory({ samples, sources: sources(0.1, 0.5, 0.2), routingFeeLimitPpm: 2_500, logger: silentLogger, now: clock });
    await after.sample();
    const second = bucket(nowMs);
    assert.equal(second, first + FEE_SAMPLE_SECONDS);
    assert.deepEqual(await after.stats('reverse', 'BTC', 'BTC'), { fee: [[first, 0.25], [second, 0.5]] });
    assert.deepEqual(await after.stats('reverse', 'BTC', 'L-BTC'), { fee: [[first, 0.25], [second, 0.5]] });
    assert.deepEqual(await after.stats('chain', 'L-BTC', 'BTC'), { fee: [[first, 0.1], [second, 0.2]] });
    assert.deepEqual(await after.stats('submarine', 'L-BTC', 'BTC'), {
      fee: [[first, 0.1], [second, 0.1]],
      maximalRoutingFee: [[first, 0.5], [second, 0.25]],
    });
    assert.equal(await after.stats('submarine', 'BTC', 'L-BTC'), undefined, 'not a pair Ferry lists');
    assert.equal(await after.stats('reverse', 'L-BTC', 'BTC'), undefined, 'listed the other way round');

    // A week on, only the last week's buckets are answered, and the first has left the table.
    nowMs += FEE_HISTORY_SECONDS * 1000;
    await after.sample();
    const third = bucket(nowMs);
    assert.deepEqual(await after.stats('reverse', 'BTC', 'BTC'), { fee: [[third, 0.5]] });
    nowMs -= FEE_HISTORY_SECONDS * 1000; // reading as of the second bucket: the pruned first one does not come back
    assert.deepEqual(await after.stats('reverse', 'BTC', 'BTC'), { fee: [[second, 0.5], [third, 0.5]] });
  });

  test('a source that fails leaves a gap and a warning, and the next bucket samples again', async () => {
    const url = await h.freshUrl();
    let nowMs = Date.UTC(2026, 10, 1, 0, 0, 30);
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    let failing = true;
    const good = sources(0.1, 0.25, 0.1);
    const flaky: FeeSources = {
      ...good,
      chain: async () => {
        if (failing) throw new Error('fee estimate unavailable');
        return good.chain();
      },
    };
    const history = new FeeHistory({ samples: createRepositories(await h.open(url)).feeSamples, sources: flaky, routingFeeLimitPpm: 5_000, logger, now: () => nowMs });
    await history.sample();
    assert.deepEqual(warnings, ['could not sample the pair fees']);
    assert.equal(await history.stats('reverse', 'BTC', 'BTC'), undefined, 'nothing written for a failed bucket');
    failing = false;
    nowMs += FEE_SAMPLE_SECONDS * 1000;
    await history.sample();
    assert.equal((await history.stats('reverse', 'BTC', 'BTC'))?.fee.length, 1);
  });
});
