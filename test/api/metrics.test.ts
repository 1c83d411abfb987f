// GET /metrics on a real Ferry: served on its own listener (not the public API), in Prometheus' text format, and
// the figures follow what happens — a swap created and its status changing, requests answered, WebSocket clients
// and their subscriptions, the watcher's lag.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import { newKeyPair, newPreimage } from '../helpers/swap-wallet.ts';
import { startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

/** One scrape, as sample lines "name{labels} value" → value. */
async function scrape(): Promise<Map<string, number>> {
  const response = await fetch(world.ferry.metricsUrl!);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
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
