// The package as a wallet developer consumes it: plain Node (no TypeScript loader) importing `ferry` from the
// compiled dist/ (built by `npm run build`, which `npm ci` and `npm test` run first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('plain Node imports the SDK from the compiled package', () => {
  const script = `
    const ferry = await import('ferry');
    const preimage = ferry.newPreimage();
    console.log(JSON.stringify({
      client: typeof ferry.SwapClient,
      verify: typeof ferry.verifySubmarine,
      refundFile: typeof ferry.readRefundFile,
      rpc: typeof ferry.CoreRpcClient,
      preimageBytes: preimage.preimage.length,
    }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), {
    client: 'function',
    verify: 'function',
    refundFile: 'function',
    rpc: 'function',
    preimageBytes: 32,
  });
});
