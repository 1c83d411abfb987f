// checkLnd against an LND REST stand-in built without the invoices and router sub-servers, as a real lnd answers
// then: their paths reach no handler and the gateway answers 404 {"code":5,"message":"Not Found"}. The doctor must
// tell that from a sub-server's own NOT_FOUND, fail an LND older than 0.18 and one on another network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkLnd } from '../../src/doctor/lnd.ts';
import { LndTransport } from '../../src/lightning/lnd/transport.ts';

function standIn(getinfo: Record<string, unknown>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v1/getinfo') return json(200, getinfo);
    if (path === '/v1/channels') return json(200, { channels: [] });
    return json(404, { code: 5, message: 'Not Found', details: [] });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

test('an LND without the invoices and router sub-servers, older than 0.18, on another network: each named', async () => {
  const { server, url } = await standIn({ version: '0.17.4-beta commit=v0.17.4-beta', synced_to_chain: true, block_height: 10, chains: [{ chain: 'bitcoin', network: 'testnet' }] });
  try {
    const list = await checkLnd({
      http: new LndTransport({ url, macaroonHex: '0201' }),
      macaroonHex: '0201',
      network: 'regtest',
      needs: { largestSubmarineSat: 1000, largestReverseSat: 1000 },
    });
    const result = (check: string) => list.results.find((r) => r.check === check);
    assert.equal(result('version')?.result, 'FAIL');
    assert.match(result('version')!.detail, /0\.17\.4-beta.*older than 0\.18\.0/);
    assert.equal(result('network')?.result, 'FAIL');
    assert.equal(result('invoices sub-server')?.result, 'FAIL');
    assert.match(result('invoices sub-server')!.detail, /not compiled in.*invoicesrpc/);
    assert.equal(result('router sub-server')?.result, 'FAIL');
    assert.match(result('router sub-server')!.detail, /not compiled in.*routerrpc/);
    // ListPermissions not there either: the permissions cannot be checked, which is said, not failed
    assert.equal(result('macaroon')?.result, 'warn');
    assert.equal(result('outbound liquidity')?.result, 'warn');
    assert.equal(result('inbound liquidity')?.result, 'warn');
  } finally {
    server.close();
  }
});
