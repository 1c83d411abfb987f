// Effects that keep failing are given up after effectMaxAttempts: the effect log shows them failed with the last
// error (what `ferry admin swaps` and the metrics' failed-effect count read), an error line is logged, and the
// handler is not called again; `ferry admin retry` (reopenFailed) puts them back. Real SQLite storage, real runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../src/db/storage.ts';
import { EffectRunner } from '../../src/engine/effects.ts';
import { createLogger } from '../../src/log/index.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an effect that always fails stops after maxAttempts, failed in the log and at error', async () => {
  const storage = await openStorage(join(mkdtempSync(join(tmpdir(), 'ferry-effects-')), 'ferry.sqlite'));
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', json: true, write: (line) => lines.push(line) });
  const runner = new EffectRunner(storage, logger, { retryBaseMs: 5, retryMaxMs: 20, maxAttempts: 3 });
  try {
    await storage.swaps.insert({ id: 'stuck', type: 'submarine', pair: 'BTC/BTC', status: 'invoice.set', preimageHash: 'aa'.repeat(32) });
    let calls = 0;
    runner.register('startPayment', async () => {
      calls++;
      throw new Error('lockup not payable');
    });
    runner.enqueue(await storage.effects.add('stuck', [{ kind: 'startPayment' }]));

    const deadline = Date.now() + 5_000;
    while ((await storage.effects.listPending({ swapId: 'stuck' })).length > 0 && Date.now() < deadline) await sleep(10);
    await sleep(100); // room for a retry that should not come
    assert.equal(calls, 3, 'tried maxAttempts times, then never again');
    const [effect] = await storage.effects.listForSwap('stuck');
    assert.equal(effect.state, 'failed');
    assert.equal(effect.attempts, 3);
    assert.match(String(effect.lastError), /gave up after 3 attempts: Error: lockup not payable/);
    const errors = lines.map((line) => JSON.parse(line) as { level: string; msg?: string; message?: string }).filter((line) => line.level === 'error');
    assert.equal(errors.length, 1, 'one error line for the operator');

    // The operator's retry reopens it: performed again from a fresh count.
    runner.retry(await storage.effects.reopenFailed('stuck'));
    await sleep(200);
    assert.equal(calls, 6);
  } finally {
    await runner.stop();
    await storage.close();
  }
});
