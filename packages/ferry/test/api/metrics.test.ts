// GET /metrics on a real Ferry: served on its own listener (not the public API), in Prometheus' text format, and
// the figures follow what happens — a swap created and its status changing, requests answered, WebSocket clients
// and their subscriptions, the watcher's lag; swaps counted as created, succeeded and failed by type and pair;
// the alert and money-at-risk series; and every metric the sample alerting rules (deploy/prometheus) name.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

/** The scrape as text. */
async function scrapeText(): Promise<string> {
  const response = await fetch(world.ferry.metricsUrl!);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** One scrape, as sample lines "name{labels} value" → value. */
async function scrape(): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  for (const line of (await scrapeText()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

test('metrics are on their own listener, not on the API', async () => {
  assert.notEqual(new URL(world.ferry.metricsUrl!).port, new URL(world.ferry.apiUrl).port);
  assert.equal((await world.call('GET', '/metrics')).status, 404);
  assert.equal((await fetch(new URL('/other', world.ferry.metricsUrl)).then((r) => r.status)), 404);
});

test('a swap created and paid shows up in the swap, request and latency figures', async () => {
  const before = await scrape();
  assert.equal(before.get('ferry_swaps{type="reverse",status="swap.created"}'), undefined);
  assert.equal(before.get('ferry_effects{state="pending"}'), 0);
  assert.equal(before.get('ferry_watcher_lag_blocks{chain="BTC"}'), 0);
  assert.ok((before.get('ferry_process_resident_memory_bytes') ?? 0) > 0, 'default process metrics are there');

  const { preimageHash } = newPreimage();
  const created = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 50_000,
    preimageHash: hex.encode(preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const afterCreate = await scrape();
  assert.equal(afterCreate.get('ferry_swaps{type="reverse",status="swap.created"}'), 1);
  assert.equal(afterCreate.get('ferry_http_requests_total{method="POST",route="/v2/swap/reverse",status="201"}'), 1);
  assert.equal(afterCreate.get('ferry_http_request_duration_seconds_count{method="POST",route="/v2/swap/reverse"}'), 1);
  assert.equal(afterCreate.get('ferry_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v2/swap/reverse"}'), 1);

  // the user pays the hold invoice: Ferry locks, and the gauge moves with the status
  // the payment stays held (the hold invoice is never settled here) and fails when Ferry stops
  world.pay('alice', created.json.invoice).catch(() => {});
  await world.waitForStatus(created.json.id, ['transaction.mempool']);
  const afterLock = await scrape();
  assert.equal(afterLock.get('ferry_swaps{type="reverse",status="swap.created"}'), undefined);
  assert.equal(afterLock.get('ferry_swaps{type="reverse",status="transaction.mempool"}'), 1);
  // unknown paths count under one label, not one series per path
  const unmatched = 'ferry_http_requests_total{method="GET",route="unmatched",status="404"}';
  await world.call('GET', '/no/such/path');
  await world.call('GET', '/no/such/other/path');
  assert.equal((await scrape()).get(unmatched), (afterLock.get(unmatched) ?? 0) + 2);
});

test('WebSocket clients and their subscriptions are counted, and uncounted when they leave', async () => {
  const ws = new WebSocket(world.ferry.apiUrl.replace('http', 'ws') + '/v2/ws');
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const acked = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: ['AAAAAAAAAAAA', 'BBBBBBBBBBBB'] }));
  await acked;
  const open = await scrape();
  assert.equal(open.get('ferry_websocket_connections'), 1);
  assert.equal(open.get('ferry_websocket_subscriptions'), 2);
  ws.close();
  await new Promise((resolve) => ws.once('close', resolve));
  for (let i = 0; i < 50 && (await scrape()).get('ferry_websocket_connections') !== 0; i++) await new Promise((r) => setTimeout(r, 20));
  const closed = await scrape();
  assert.equal(closed.get('ferry_websocket_connections'), 0);
  assert.equal(closed.get('ferry_websocket_subscriptions'), 0);
});

test('swaps are counted as created, succeeded and failed, by type and pair', async () => {
  const created = 'ferry_swaps_created_total{type="submarine",pair="BTC/BTC"}';
  const succeeded = 'ferry_swaps_succeeded_total{type="submarine",pair="BTC/BTC"}';
  const failed = 'ferry_swaps_failed_total{type="submarine",pair="BTC/BTC",status="transaction.lockupFailed"}';
  const before = await scrape();
  // v1 swaps: Ferry claims at once (a v2 one waits for the client's cooperative claim first)
  const pairHash = (await world.call('GET', '/getpairs')).json.pairs['BTC/BTC'].hash;
  const submarine = async () => {
    const bob = await world.invoice('bob', 40_000);
    const answer = await world.call('POST', '/createswap', {
      type: 'submarine',
      pairId: 'BTC/BTC',
      orderSide: 'sell',
      invoice: bob.invoice,
      refundPublicKey: hex.encode(newKeyPair().publicKey),
      pairHash,
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    return answer.json as { id: string; address: string; expectedAmount: number };
  };
  const paid = await submarine();
  const short = await submarine();
  assert.equal((await scrape()).get(created), (before.get(created) ?? 0) + 2);
  // one locked in full: Ferry pays Bob and claims; the other locks too little and fails
  await world.fund(paid.address, paid.expectedAmount);
  await world.fund(short.address, short.expectedAmount - 1_000);
  await world.waitForStatus(short.id, ['transaction.lockupFailed'], { mine: true });
  await world.waitForStatus(paid.id, ['transaction.claimed'], { mine: true, timeoutMs: 60_000 });
  const after = await scrape();
  assert.equal(after.get(succeeded), (before.get(succeeded) ?? 0) + 1);
  assert.equal(after.get(failed), (before.get(failed) ?? 0) + 1);
  assert.equal(after.get(created), (before.get(created) ?? 0) + 2, 'status changes create nothing');
  // nothing at risk, no alert of a kind that needs the operator now
  for (const reason of ['lockupLost', 'fundsLost', 'paymentLost']) assert.equal(after.get(`ferry_money_at_risk_sat{chain="BTC",reason="${reason}"}`), 0, reason);
  for (const kind of ['lockupLost', 'fundsLost', 'effectFailed', 'paymentLost']) assert.equal(after.get(`ferry_alerts_active{kind="${kind}"}`), 0, kind);
});

test('every metric the sample alerting rules name is in a scrape of a running Ferry', async () => {
  // js-yaml is in node_modules as eslint's dependency (not one of Ferry's): enough to read a test fixture
  const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };
  const rules = yaml.load(readFileSync(new URL('../../deploy/prometheus/ferry-alerts.yml', import.meta.url), 'utf8')) as {
    groups: { name: string; rules: { alert: string; expr: string; labels: { severity: string }; annotations: { summary: string } }[] }[];
  };
  const declared = new Set([...(await scrapeText()).matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
  const named = new Set<string>();
  for (const group of rules.groups) {
    assert.ok(group.rules.length > 0, group.name);
    for (const rule of group.rules) {
      assert.ok(rule.alert && rule.labels.severity && rule.annotations.summary, JSON.stringify(rule));
      for (const [metric] of rule.expr.matchAll(/\bferry_[a-z0-9_]+/g)) named.add(metric);
    }
  }
  for (const metric of ['ferry_money_at_risk_sat', 'ferry_alerts_active', 'ferry_alerts_total', 'ferry_swaps_failed_total', 'ferry_swaps_created_total', 'ferry_swaps_succeeded_total']) {
    assert.ok(named.has(metric), `the rules use ${metric}`);
  }
  for (const metric of named) assert.ok(declared.has(metric), `${metric} is not served`);
});
