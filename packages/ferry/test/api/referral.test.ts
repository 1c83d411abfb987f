// GET /referrals/query against Ferry on its devnet: the HMAC checks in the reference's order with its texts,
// replayed and tampered requests refused, and the report built from swaps that really succeeded.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { authenticate } from '../../src/api/auth/hmac.ts';
import { createApiServer } from '../../src/api/index.ts';
import { Router } from '../../src/api/http/router.ts';
import { createHttpServer, listen } from '../../src/api/http/server.ts';
import { startFerry } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

const KEY = 'partner-key';
const SECRET = 'partner-secret';
const PATH = '/referrals/query';

let world: V1World;
before(async () => {
  world = await startV1World(
    { FERRY_REFERRAL_ID: 'partner', FERRY_REFERRAL_API_KEY: KEY, FERRY_REFERRAL_API_SECRET: SECRET },
    (config) => {
      config.swap.claimDelayMs = 100; // Ferry claims submarine lockups alone right after paying
    },
  );
});
after(() => world.close());

const now = () => String(Math.floor(Date.now() / 1000));
const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

function signedHeaders(options: { key?: string; secret?: string; ts?: string; method?: string; target?: string; body?: string } = {}) {
  const ts = options.ts ?? now();
  const hmac = sign(options.secret ?? SECRET, ts + (options.method ?? 'GET') + (options.target ?? PATH) + (options.body ?? ''));
  return { TS: ts, 'API-KEY': options.key ?? KEY, 'API-HMAC': hmac };
}

const query = (headers: Record<string, string>, path = PATH) => world.call('GET', path, undefined, headers);
const refused = (error: string) => ({ status: 401, json: { error } });

test('each missing or wrong part of the authentication is a 401, checked in order', async () => {
  const good = signedHeaders();
  const cases: [Record<string, string>, string][] = [
    [{}, 'TS header not set'],
    [{ 'API-KEY': KEY, 'API-HMAC': good['API-HMAC'] }, 'TS header not set'],
    [{ ...good, TS: 'yesterday' }, 'TS header not a number'],
    [{ ...good, TS: String(Number(now()) - 90) }, 'TS header deviates from server time by more than 60 seconds'],
    [{ ...good, TS: String(Number(now()) + 90) }, 'TS header deviates from server time by more than 60 seconds'],
    [{ TS: now() }, 'API-KEY header not set'],
    [{ TS: now(), 'API-HMAC': good['API-HMAC'] }, 'API-KEY header not set'],
    [{ TS: now(), 'API-KEY': 'someone-else' }, 'unauthorized'],
    [{ ...good, 'API-KEY': 'partner-ke' }, 'unauthorized'],
    [{ TS: now(), 'API-KEY': KEY }, 'API-HMAC header not set'],
    [signedHeaders({ secret: 'guessed-secret' }), 'unauthorized'],
    [{ ...good, 'API-HMAC': good['API-HMAC'].slice(0, 32) }, 'unauthorized'],
    [signedHeaders({ method: 'POST' }), 'unauthorized'],
  ];
  for (const [headers, error] of cases) assert.deepEqual(await query(headers), refused(error), JSON.stringify(headers));
});

test('a replayed request with an old TS, and one whose path or query was changed, are refused', async () => {
  const old = String(Number(now()) - 120);
  assert.deepEqual(await query(signedHeaders({ ts: old })), refused('TS header deviates from server time by more than 60 seconds'));
  // Within the minute a signed request still passes: the window is the only replay protection (a read-only call).
  assert.equal((await query(signedHeaders({ ts: String(Number(now()) - 30) }))).status, 200);
  // Signed for one target, sent to another: the HMAC covers the path and the query.
  assert.deepEqual(await query(signedHeaders(), `${PATH}?year=2024`), refused('unauthorized'));
  assert.deepEqual(await query(signedHeaders({ target: `${PATH}?year=2024` })), refused('unauthorized'));
  const withQuery = await query(signedHeaders({ target: `${PATH}?year=2024` }), `${PATH}?year=2024`);
  assert.equal(withQuery.status, 200);
  // The signature covers the target exactly as sent: escapes are not re-serialised before checking.
  const escaped = `${PATH}?note=a%20b&x=%7E`;
  assert.equal((await query(signedHeaders({ target: escaped }), escaped)).status, 200);
  assert.deepEqual(await query(signedHeaders({ target: `${PATH}?note=a+b&x=~` }), escaped), refused('unauthorized'));
});

test('a tampered POST body is refused: the HMAC covers the raw body', async () => {
  const router = new Router().post('/partner/echo', (request) => {
    authenticate(request, [{ apiKey: KEY, apiSecret: SECRET }]);
    return { body: request.body };
  });
  const server = createHttpServer({ router, logger: silentLogger, maxBodyBytes: 1024 });
  const { port } = await listen(server, 0, '127.0.0.1');
  try {
    const post = async (body: string, headers: Record<string, string>) => {
      const response = await fetch(`http://127.0.0.1:${port}/partner/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.status, json: await response.json() };
    };
    const headers = signedHeaders({ method: 'POST', target: '/partner/echo', body: '{"amount":1}' });
    assert.deepEqual(await post('{"amount":2}', headers), refused('unauthorized'));
    assert.deepEqual(await post('{"amount": 1}', headers), refused('unauthorized'));
    assert.deepEqual(await post('{"amount":1}', headers), { status: 200, json: { amount: 1 } });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

async function reverseSwap(invoiceAmount: number, referralId?: string) {
  const { preimage, preimageHash } = newPreimage();
  const created = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount,
    preimageHash: hex.encode(preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
    ...(referralId !== undefined && { referralId }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return { ...created.json, preimage: hex.encode(preimage) };
}

/** alice pays the hold invoice, Ferry locks, the user hands over the preimage: the swap ends invoice.settled. */
async function settledReverse(invoiceAmount: number, referralId: string) {
  const swap = await reverseSwap(invoiceAmount, referralId);
  const payment = world.pay('alice', swap.invoice);
  await world.waitForStatus(swap.id, ['transaction.mempool']);
  assert.deepEqual(await world.call('POST', `/v2/swap/reverse/${swap.id}/claim`, { preimage: swap.preimage }), { status: 200, json: {} });
  assert.equal((await payment).status, 'SUCCEEDED');
  await world.waitForStatus(swap.id, ['invoice.settled']);
  return swap.id as string;
}

/** bob's invoice paid by Ferry for a lockup from the user wallet; Ferry claims alone: transaction.claimed. */
async function claimedSubmarine(sat: number, referralId: string) {
  const bob = await world.invoice('bob', sat);
  const created = await world.call('POST', '/v2/swap/submarine', {
    from: 'BTC',
    to: 'BTC',
    invoice: bob.invoice,
    refundPublicKey: hex.encode(newKeyPair().publicKey),
    referralId,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  await world.fund(created.json.address, created.json.expectedAmount);
  await world.waitForStatus(created.json.id, ['transaction.claimed'], { mine: true, timeoutMs: 30_000 });
  return created.json.id as string;
}

/** The report expected for [swap id, referral id, fee] rows: each fee lands in the month its swap was created (UTC). */
async function expectedReport(fees: [string, string, number][]) {
  const report: Record<string, any> = {};
  for (const [id, referral, fee] of fees) {
    const created = new Date((await world.ferry.storage.swaps.get(id))!.createdAt);
    const byMonth = ((report[created.getUTCFullYear()] ??= {})[created.getUTCMonth() + 1] ??= {});
    byMonth[referral] = { BTC: (byMonth[referral]?.BTC ?? 0) + fee };
  }
  return report;
}

test('the report sums the fees of succeeded swaps with the key\'s referral id, by year and month', async () => {
  assert.deepEqual(await query(signedHeaders()), { status: 200, json: {} });

  const reverse = await settledReverse(100_000, 'partner'); // 0.25 % of 100 000: 250
  const submarine = await claimedSubmarine(50_000, 'partner'); // 0.1 % of 50 000: 50
  const otherReverse = await settledReverse(40_000, 'other'); // 100, another partner's
  await reverseSwap(60_000, 'partner'); // never paid: earns nothing

  const partnerFees: [string, string, number][] = [
    [reverse, 'partner', 250],
    [submarine, 'partner', 50],
  ];
  assert.deepEqual(await query(signedHeaders()), { status: 200, json: await expectedReport(partnerFees) });

  // An operator's key without a referral id sees every partner; same engine, another API server.
  const server = createApiServer({
    chains: world.ferry.chains,
    lightning: world.ferry.lightning,
    swaps: world.ferry.swaps,
    logger: silentLogger,
    maxBodyBytes: 1024,
    referralCredentials: [{ apiKey: 'operator', apiSecret: 'operator-secret' }],
  });
  const { port } = (await listen(server, 0, '127.0.0.1')) as AddressInfo;
  try {
    const ts = now();
    const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
      headers: { TS: ts, 'API-KEY': 'operator', 'API-HMAC': sign('operator-secret', `${ts}GET${PATH}`) },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), await expectedReport([...partnerFees, [otherReverse, 'other', 100]]));
    // The partner's key is not known there.
    const partner = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: signedHeaders() });
    assert.deepEqual({ status: partner.status, json: await partner.json() }, refused('unauthorized'));
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  }
  assert.deepEqual(failedRequests(world.log), []);
});

test('without credentials every report call is unauthorized; half a credential stops start-up', async () => {
  const server = createApiServer({
    chains: world.ferry.chains,
    lightning: world.ferry.lightning,
    swaps: world.ferry.swaps,
    logger: silentLogger,
    maxBodyBytes: 1024,
  });
  const { port } = (await listen(server, 0, '127.0.0.1')) as AddressInfo;
  try {
    const response = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: signedHeaders() });
    assert.deepEqual({ status: response.status, json: await response.json() }, refused('unauthorized'));
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  }
  const config = loadConfig({ env: { FERRY_DATA_DIR: '/nonexistent-ferry-dir', FERRY_REFERRAL_API_KEY: KEY } });
  await assert.rejects(startFerry(config, silentLogger), (error: Error) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.message, 'referral.apiKey and referral.apiSecret must be set together');
    return true;
  });
});
