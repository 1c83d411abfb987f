// The devnet's Lightning state as its store keeps it: a snapshot and a journal of every change since
// (packages/devnet/src/lightning/store.ts). What a node acknowledged before its process was killed (no clean close)
// is there after a restart: hold invoices, a held payment with its HTLCs locked on the channels, and the payment
// settles afterwards; a change cut short by a crash is dropped; the journal is folded into the snapshot as it grows.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ClockChain, DEFAULT_CHANNELS, LightningNetwork, startLightningDevnet, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { StateStore } from '@ferry/devnet/lightning/store.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { freshDir, localBalanceSat, readStream, rest, waitUntil } from '../lightning/helpers.ts';
import { startLightningProcess } from '../helpers/lightning-devnet-process.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
const b64url = (hex: string): string => encodeURIComponent(b64(hex).replace(/\+/g, '-').replace(/\//g, '_'));

describe('devnet lightning journal', () => {
  const started: LightningDevnet[] = [];
  after(async () => {
    for (const d of started) await d.close().catch(() => {});
  });

  test('invoices and a held payment acknowledged before the process is killed are there after a restart', async () => {
    const dataDir = freshDir();
    const proc = await startLightningProcess(dataDir);
    const { ferry, alice, bob } = proc.nodes;
    const preimages = Array.from({ length: 12 }, () => randomBytes(32).toString('hex'));
    const hashes = preimages.map(sha256);
    const requests: string[] = [];
    for (const [i, hash] of hashes.entries()) {
      const body: Record<string, unknown> = { hash: b64(hash), value: String(10_000 + i), memo: `swap ${i}`, cltv_expiry: '40' };
      // One as Ferry asks for a reverse swap's magic routing hint.
      if (i === 1) body.route_hints = [{ hop_hints: [{ node_id: alice.pubkey, chan_id: '596385002596073472', fee_base_msat: 0, fee_proportional_millionths: 0, cltv_expiry_delta: 80 }] }];
      const created = await rest<{ payment_request: string }>(ferry, 'POST', '/v2/invoices/hodl', body);
      assert.equal(created.status, 200);
      requests.push(created.body.payment_request);
    }
    const { body: regular } = await rest<{ r_hash: string; payment_request: string }>(alice, 'POST', '/v1/invoices', { value: '777', memo: 'plain' });

    // Bob pays the first hold invoice: its HTLCs stay locked on bob→ferry until ferry settles.
    await readStream(
      `${bob.restUrl}/v2/router/send`,
      { method: 'POST', macaroon: bob.macaroon, body: { payment_request: requests[0], timeout_seconds: 30, fee_limit_sat: '5' } },
      (m) => m.some((x) => (x.result as { status: string } | undefined)?.status === 'IN_FLIGHT'),
    );
    await waitUntil(async () => (await rest(ferry, 'GET', `/v1/invoice/${hashes[0]}`)).body.state === 'ACCEPTED');
    const before = {
      bob: await localBalanceSat(bob),
      ferry: await localBalanceSat(ferry),
      channels: (await rest(ferry, 'GET', '/v1/channels')).body,
    };
    // These changes are in the journal only: the snapshot was written at the start, before any of them.
    const snapshot = readFileSync(join(dataDir, 'lightning', 'state.json'), 'utf8');
    for (const hash of hashes) assert.ok(!snapshot.includes(hash), 'an invoice made after the start is not in the snapshot');
    await proc.kill();

    const devnet = await startLightningDevnet({ dataDir });
    started.push(devnet);
    for (const [i, hash] of hashes.entries()) {
      const { status, body } = await rest(devnet.nodes.ferry, 'GET', `/v1/invoice/${hash}`);
      assert.equal(status, 200);
      assert.equal(body.payment_request, requests[i]);
      assert.equal(body.value, String(10_000 + i));
      assert.equal(body.state, i === 0 ? 'ACCEPTED' : 'OPEN');
      // The features it reports are the ones written in the invoice (answered without decoding it again).
      assert.deepEqual(Object.keys(body.features as object).map(Number).sort((a, b) => a - b), decodeBolt11(requests[i]).featureBits);
    }
    const { body: alicesInvoice } = await rest(devnet.nodes.alice, 'GET', `/v1/invoice/${Buffer.from(regular.r_hash, 'base64').toString('hex')}`);
    assert.equal(alicesInvoice.payment_request, regular.payment_request);
    assert.equal(await localBalanceSat(devnet.nodes.bob), before.bob);
    assert.equal(await localBalanceSat(devnet.nodes.ferry), before.ferry);
    assert.deepEqual((await rest(devnet.nodes.ferry, 'GET', '/v1/channels')).body, before.channels);
    const again = await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/hodl', { hash: b64(hashes[3]), value: '5' });
    assert.equal(again.body.message, 'invoice with payment hash already exists');

    // The held payment settles after the restart: bob learns the preimage, ferry's side gains the amount.
    const tracking = readStream(
      `${devnet.nodes.bob.restUrl}/v2/router/track/${b64url(hashes[0])}`,
      { macaroon: devnet.nodes.bob.macaroon },
      (m) => m.some((x) => (x.result as { status: string }).status === 'SUCCEEDED'),
    );
    await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/settle', { preimage: b64(preimages[0]) });
    const tracked = await tracking;
    assert.equal((tracked.messages.at(-1)!.result as { payment_preimage: string }).payment_preimage, preimages[0]);
    assert.equal(await localBalanceSat(devnet.nodes.ferry), before.ferry + 10_000);
  });

  test('a change cut short by a crash is dropped; the journal is folded into the snapshot as it grows', async () => {
    const dataDir = freshDir();
    const open = (store: StateStore) =>
      LightningNetwork.open({ store, chain: new ClockChain(100, join(dataDir, 'clock.json')), nodes: ['ferry', 'alice', 'bob'], channels: DEFAULT_CHANNELS });
    const store = new StateStore(dataDir, { compactAtBytes: 8192 });
    const network = await open(store);
    const made = Array.from({ length: 150 }, (_, i) => network.addHoldInvoice('ferry', sha256(randomBytes(32).toString('hex')), { valueMsat: 1000 * (i + 1) }));
    // Folded whenever it reached the snapshot's size: never much more than that, however many invoices were made.
    const snapshotBytes = statSync(store.path).size;
    assert.ok(statSync(store.journalPath).size < Math.max(8192, snapshotBytes), 'the journal was folded into the snapshot');
    const inSnapshot = JSON.parse(readFileSync(store.path, 'utf8')).invoices.length;
    assert.ok(inSnapshot > 0 && inSnapshot < made.length, `the snapshot holds the invoices up to its last fold (${inSnapshot})`);
    // A kill in the middle of a write: half a line, never acknowledged.
    appendFileSync(store.journalPath, '{"counters":{"addIndex":99');

    const reopened = await open(new StateStore(dataDir));
    try {
      const invoices = reopened.listInvoices('ferry');
      assert.deepEqual(invoices.map((i) => i.paymentRequest), made.map((i) => i.paymentRequest));
      assert.deepEqual(invoices.map((i) => i.addIndex), made.map((_, i) => i + 1));
      const next = reopened.addHoldInvoice('ferry', sha256(randomBytes(32).toString('hex')), { valueMsat: 1 });
      assert.equal(next.addIndex, made.length + 1);
    } finally {
      reopened.close();
    }
  });
});
