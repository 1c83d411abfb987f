// checkCln against a clnrest stand-in of a Core Lightning older than 24.11 without the hold plugin: lightningd
// answers the plugin's methods with -32601 "Unknown command". The doctor fails the missing plugin and the missing
// gRPC (reverse swaps), and warns that BOLT12 invoice requests cannot be answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkCln } from '../../src/doctor/cln.ts';
import { ClnTransport } from '../../src/lightning/cln/transport.ts';

function standIn(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const method = (req.url ?? '').replace('/v1/', '');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      if (method === 'getinfo') return json(201, { version: 'v24.08.2', network: 'regtest', blockheight: 120 });
      if (method === 'listpeerchannels') {
        return json(201, { channels: [{ state: 'CHANNELD_NORMAL', to_us_msat: 4_000_000_000, total_msat: 10_000_000_000 }] });
      }
      json(500, { code: -32601, message: `Unknown command '${method}'` });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

test('a CLN older than 24.11 without the hold plugin: plugin and gRPC fail, BOLT12 requests warned, liquidity judged', async () => {
  const { server, url } = await standIn();
  try {
    const list = await checkCln({
      rpc: new ClnTransport({ url, rune: 'x' }),
      hold: undefined,
      network: 'regtest',
      servesReverse: true,
      needs: { largestSubmarineSat: 5_000_000, largestReverseSat: 5_000_000 },
    });
    const result = (check: string) => list.results.find((r) => r.check === check);
    assert.equal(result('version')?.result, 'warn');
    assert.match(result('version')!.detail, /BOLT12 invoice requests cannot be answered/);
    assert.equal(result('hold plugin')?.result, 'FAIL');
    assert.match(result('hold plugin')!.detail, /Unknown command 'listholdinvoices'/);
    assert.equal(result('hold gRPC')?.result, 'FAIL');
    // 4M sat ours of 10M: 4M outbound (< 5M: warn), 6M inbound (ok)
    assert.equal(result('outbound liquidity')?.result, 'warn');
    assert.match(result('outbound liquidity')!.detail, /^4000000 sat outbound/);
    assert.equal(result('inbound liquidity')?.result, 'ok');
  } finally {
    server.close();
  }
});
