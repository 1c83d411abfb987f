// Ferry's Core Lightning adapter (clnrest + the hold plugin's gRPC) against the devnet's CLN node over real
// sockets: what it reports, and what its calls do to the network — who holds the funds, who got the preimage.
// Also what it cannot do without the plugin's gRPC (no hold invoices; lookups read lightningd's own invoices only),
// xpay's refusals reported as failed payments, and 64-bit ids read exactly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ClockChain, startLightningDevnet, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { ClnBackend, ClnRestError, LndRestClient, nodeStatsResponse, nodesResponse } from '../../src/lightning/index.ts';
import { readHoldTls } from '../../src/lightning/cln/hold/credentials.ts';
import { ClnTransport } from '../../src/lightning/cln/transport.ts';
import { groupIdOf } from '@ferry/devnet/lightning/clnrest/json.js';
import type { PaymentUpdate } from '../../src/lightning/index.ts';
import { freshDir, localBalanceSat, rest, waitUntil } from './helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const newPreimage = (): { preimage: string; hash: string } => {
  const preimage = randomBytes(32).toString('hex');
  return { preimage, hash: sha256(preimage) };
};

describe('Core Lightning adapter against the devnet', () => {
  let devnet: LightningDevnet;
  let chain: ClockChain;
  let cln: ClnBackend;
  let alice: LndRestClient;

  before(async () => {
    chain = new ClockChain(200);
    devnet = await startLightningDevnet({
      dataDir: freshDir(),
      chain,
      clnNodes: ['cln'],
      channels: [
        { from: 'cln', to: 'alice', capacitySat: 10_000_000, pushSat: 5_000_000 },
        { from: 'cln', to: 'bob', capacitySat: 4_000_000, pushSat: 2_000_000 },
      ],
    });
    const node = devnet.cln.cln;
    cln = new ClnBackend({ url: node.restUrl, rune: node.rune, pollMs: 50, hold: { url: node.hold!.grpcUrl, tls: readHoldTls(node.hold!) } });
    alice = new LndRestClient({ url: devnet.nodes.alice.restUrl, macaroon: devnet.nodes.alice.macaroon });
  });

  after(async () => {
    cln.close();
    await devnet.close();
  });

  test('node info, stats and the bodies of Ferry\'s node endpoints', async () => {
    const info = await cln.getInfo();
    assert.equal(info.publicKey, devnet.cln.cln.pubkey);
    assert.equal(info.network, 'regtest');
    assert.equal(info.blockHeight, await chain.height());
    assert.match(info.version, /^v\d+\./);
    // the node announces no address (it binds on loopback): the URI is where it listens (getinfo's binding)
    assert.deepEqual(info.uris, [`${info.publicKey}@127.0.0.1:${new URL(devnet.cln.cln.restUrl).port}`]);
    const stats = await cln.getStats();
    assert.equal(stats.capacitySat, 14_000_000n);
    assert.equal(stats.channels, 2);
    assert.equal(stats.peers, 2);
    assert.equal(stats.oldestChannelHeight, Number(BigInt(devnet.network.channels[0].chanId) >> 40n));
    const nodes = await nodesResponse({ BTC: cln });
    assert.deepEqual(nodes.BTC, { CLN: { publicKey: info.publicKey, uris: info.uris } }, 'keyed CLN, as the reference names the node');
    const body = await nodeStatsResponse({ BTC: cln }, async () => 1_700_000_000);
    const total = { capacity: 14_000_000, channels: 2, peers: 2, oldestChannel: 1_700_000_000 };
    assert.deepEqual(body.BTC, { CLN: total, total }, 'under the node kind and the total, as the reference answers');
  });

  test('a wrong or missing rune is refused with clnrest\'s status', async () => {
    const wrong = new ClnBackend({ url: devnet.cln.cln.restUrl, rune: randomBytes(40).toString('base64url') });
    await assert.rejects(wrong.getInfo(), (err: unknown) => err instanceof ClnRestError && err.httpStatus === 401 && err.code === 1501);
    assert.throws(() => new ClnBackend({ url: devnet.cln.cln.restUrl, rune: '' }), /rune/);
  });

  test('a hold invoice is followed OPEN → ACCEPTED → SETTLED; settling pays Ferry and hands alice the preimage', async () => {
    const { preimage, hash } = newPreimage();
    const { paymentRequest } = await cln.createHoldInvoice({ paymentHash: hash, amountMsat: 120_000_000n, memo: 'reverse swap', cltvExpiry: 30, expirySeconds: 600 });
    const decoded = await cln.decodeInvoice(paymentRequest);
    assert.equal(decoded.paymentHash, hash);
    assert.equal(decoded.payeeNodeKey, devnet.cln.cln.pubkey);
    assert.equal(decoded.description, 'reverse swap');
    assert.equal(decoded.minFinalCltvExpiry, 30);
    assert.equal(decoded.expiry, 600);
    const states: string[] = [];
    const sub = cln.subscribeInvoice(hash, (u) => states.push(u.state));
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    assert.deepEqual((await cln.listPendingInvoices()).map((u) => u.paymentHash), [hash]);

    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(() => states.includes('ACCEPTED'));
    const accepted = await cln.lookupInvoice(hash);
    assert.equal(accepted?.state, 'ACCEPTED');
    assert.equal(accepted?.amountPaidMsat, 120_000_000n);
    assert.deepEqual(accepted?.htlcExpiryHeights, [(await chain.height()) + 30]);
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore - 120_000, 'reserved while held');

    await cln.settleHoldInvoice(preimage);
    await cln.settleHoldInvoice(preimage); // a replayed effect is harmless
    const result = await paying;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    await sub.done; // the subscription ends once the invoice is final
    assert.deepEqual(states, ['OPEN', 'ACCEPTED', 'SETTLED']);
    const { body } = await rest<{ channels: { remote_pubkey: string; remote_balance: string }[] }>(devnet.nodes.alice, 'GET', '/v1/channels');
    assert.equal(body.channels.find((c) => c.remote_pubkey === devnet.cln.cln.pubkey)?.remote_balance, String(5_000_000 + 120_000));
    assert.deepEqual(await cln.listPendingInvoices(), []);
  });

  test('a cancelled hold invoice fails alice\'s payment back', async () => {
    const { hash } = newPreimage();
    const { paymentRequest } = await cln.createHoldInvoice({ paymentHash: hash, amountMsat: 70_000_000n });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await cln.lookupInvoice(hash))?.state === 'ACCEPTED');
    await cln.cancelHoldInvoice(hash);
    await cln.cancelHoldInvoice(hash);
    assert.equal((await paying).status, 'FAILED');
    assert.equal((await cln.lookupInvoice(hash))?.state, 'CANCELED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
  });

  test('Ferry pays alice\'s invoice: the preimage is hers, the amount moved, and paying again pays nothing', async () => {
    const { preimage, hash } = newPreimage();
    const { body } = await rest<{ payment_request: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', {
      value: '25000',
      r_preimage: Buffer.from(preimage, 'hex').toString('base64'),
    });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const updates: PaymentUpdate[] = [];
    const result = await cln.payInvoice({ paymentRequest: body.payment_request, feeLimitMsat: 1_000n, timeoutSeconds: 10, cltvLimit: 500, onUpdate: (u) => updates.push(u) });
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    assert.equal(result.feeMsat, 0n);
    assert.equal(updates.at(-1)?.status, 'SUCCEEDED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore + 25_000);
    assert.equal((await alice.lookupInvoice(hash))?.state, 'SETTLED');
    assert.equal((await cln.lookupPayment(hash))?.status, 'SUCCEEDED');

    const again = await cln.payInvoice({ paymentRequest: body.payment_request, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    assert.equal(again.status, 'SUCCEEDED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore + 25_000);
  });

  test('a payment to a held invoice is in flight until the payee settles; a second adapter follows it, never pays twice', async () => {
    const { preimage, hash } = newPreimage();
    const { paymentRequest } = await alice.createHoldInvoice({ paymentHash: hash, amountMsat: 40_000_000n });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const seen: string[] = [];
    const first = cln.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10, onUpdate: (u) => seen.push(u.status) });
    await waitUntil(() => seen.includes('IN_FLIGHT'));
    await waitUntil(async () => (await cln.lookupPayment(hash))?.status === 'IN_FLIGHT');

    // A restarted Ferry asks again for the same invoice: it follows the payment in flight.
    const restarted = new ClnBackend({ url: devnet.cln.cln.restUrl, rune: devnet.cln.cln.rune, pollMs: 50 });
    const second = restarted.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await alice.settleHoldInvoice(preimage);
    assert.equal((await first).preimage, preimage);
    assert.equal((await second).preimage, preimage);
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore + 40_000, 'paid once');
  });

  test('failures: no route for too much, a cltv limit below the route\'s, a cancelled payee, a refused amountless invoice', async () => {
    const { body: big } = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '3000000' });
    const before = await cln.getStats();
    const tooMuch = await cln.payInvoice({ paymentRequest: big.payment_request, feeLimitMsat: 100_000n, timeoutSeconds: 10 });
    assert.equal(tooMuch.status, 'FAILED');
    assert.equal(tooMuch.failureReason, 'FAILURE_REASON_NO_ROUTE');

    const { body: far } = await rest<{ payment_request: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '1000' });
    const tight = await cln.payInvoice({ paymentRequest: far.payment_request, feeLimitMsat: 100_000n, timeoutSeconds: 10, cltvLimit: 10 });
    assert.equal(tight.failureReason, 'FAILURE_REASON_NO_ROUTE');

    const { hash } = newPreimage();
    const { paymentRequest } = await alice.createHoldInvoice({ paymentHash: hash, amountMsat: 10_000_000n });
    const paying = cln.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await alice.lookupInvoice(hash))?.state === 'ACCEPTED');
    await alice.cancelHoldInvoice(hash);
    const cancelled = await paying;
    assert.equal(cancelled.status, 'FAILED');
    assert.equal(cancelled.failureReason, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS');
    assert.equal((await cln.getStats()).capacitySat, before.capacitySat);

    // xpay refuses an amountless invoice without an amount (-32602) before sending anything: failed, not thrown
    const { body: any } = await rest<{ payment_request: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '0' });
    const refused = await cln.payInvoice({ paymentRequest: any.payment_request, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    assert.equal(refused.status, 'FAILED');
    assert.equal(refused.failureReason, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS');
  });

  test("xpay's refusals with nothing sent (no route 205, expired 207) are failed payments, and nothing is recorded", async () => {
    const before = await localBalanceSat(devnet.nodes.bob);
    const { body: big } = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '3500000' });
    const hash = Buffer.from(big.r_hash, 'base64').toString('hex');
    const updates: PaymentUpdate[] = [];
    const noRoute = await cln.payInvoice({ paymentRequest: big.payment_request, feeLimitMsat: 100_000n, timeoutSeconds: 10, onUpdate: (u) => updates.push(u) });
    assert.deepEqual([noRoute.status, noRoute.failureReason], ['FAILED', 'FAILURE_REASON_NO_ROUTE']);
    assert.equal(updates.at(-1)?.status, 'FAILED', 'the failure is reported to the follower');
    assert.equal(await cln.lookupPayment(hash), undefined, 'xpay records no sendpay for a payment it never sent');
    assert.equal(await localBalanceSat(devnet.nodes.bob), before, 'bob got nothing');

    const { body: brief } = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '1000', expiry: '1' });
    await waitUntil(async () => Date.now() / 1000 > (await cln.decodeInvoice(brief.payment_request)).timestamp + 2);
    const expired = await cln.payInvoice({ paymentRequest: brief.payment_request, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    assert.deepEqual([expired.status, expired.failureReason], ['FAILED', 'FAILURE_REASON_TIMEOUT']);
    assert.equal(await cln.lookupPayment(Buffer.from(brief.r_hash, 'base64').toString('hex')), undefined);
  });

  test("listsendpays' 64-bit groupid is read exactly (past 2^53), not rounded", async () => {
    const { preimage, hash } = newPreimage();
    const { body } = await rest<{ payment_request: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '2000', r_preimage: Buffer.from(preimage, 'hex').toString('base64') });
    assert.equal((await cln.payInvoice({ paymentRequest: body.payment_request, feeLimitMsat: 1_000n, timeoutSeconds: 10 })).status, 'SUCCEEDED');
    const record = devnet.network.lookupPayment('cln', hash)!;
    const expected = groupIdOf(record);
    assert.ok(expected > BigInt(Number.MAX_SAFE_INTEGER));
    const rpc = new ClnTransport({ url: devnet.cln.cln.restUrl, rune: devnet.cln.cln.rune });
    const { payments } = await rpc.call<{ payments: { groupid: bigint; amount_sent_msat: number }[] }>('listsendpays', { payment_hash: hash });
    assert.equal(payments[0].groupid, expected);
    assert.equal(payments[0].amount_sent_msat, 2_000_000, 'small integers stay numbers');
  });

  test("without the hold plugin's gRPC: no hold invoices, lookups read lightningd's own invoices only", async () => {
    const plain = new ClnBackend({ url: devnet.cln.cln.restUrl, rune: devnet.cln.cln.rune, pollMs: 50 });
    assert.equal(plain.holdInvoices, false);
    assert.equal(cln.holdInvoices, true);
    const { hash } = newPreimage();
    await assert.rejects(plain.createHoldInvoice({ paymentHash: hash, amountMsat: 1_000n, cltvExpiry: 100 }), /lightning\.cln\.hold\.grpcUrl/);
    assert.equal(await cln.lookupInvoice(hash), undefined, 'nothing was made');
    // a hold invoice the plugin has is not lightningd's: without the gRPC it is not seen (no listholdinvoices call)
    const held = newPreimage();
    await cln.createHoldInvoice({ paymentHash: held.hash, amountMsat: 5_000_000n, cltvExpiry: 40 });
    assert.equal((await cln.lookupInvoice(held.hash))?.state, 'OPEN');
    assert.equal(await plain.lookupInvoice(held.hash), undefined);
    assert.deepEqual((await plain.listPendingInvoices()).map((u) => u.paymentHash).includes(held.hash), false);
    await cln.cancelHoldInvoice(held.hash);
  });

  test("the graph from CLN's gossip answers as LND's view of the same network does", async () => {
    const clnGraph = cln.graph();
    const lndGraph = alice.graph();
    const clnKey = devnet.cln.cln.pubkey;
    assert.deepEqual(await clnGraph.node(devnet.nodes.alice.pubkey), await lndGraph.node(devnet.nodes.alice.pubkey));
    assert.deepEqual((await clnGraph.node(clnKey))?.alias, 'cln');
    const channels = await clnGraph.channelsOf(clnKey);
    assert.deepEqual(channels, await lndGraph.channelsOf(clnKey));
    assert.deepEqual(channels?.map((c) => c.capacity).sort(), [10_000_000, 4_000_000].sort());
    const chanId = devnet.network.channels[0].chanId;
    const channel = await clnGraph.channel(chanId);
    assert.equal(channel?.policies.length, 2);
    assert.deepEqual(channel, await lndGraph.channel(chanId));
    assert.deepEqual((await clnGraph.search('ALI')).map((n) => n.id), [devnet.nodes.alice.pubkey]);
    const stranger = '02' + 'ab'.repeat(32);
    assert.equal(await clnGraph.node(stranger), undefined);
    assert.equal(await clnGraph.channelsOf(stranger), undefined);
    assert.equal(await clnGraph.channel('123'), undefined);
  });

  test('looking up unknown invoices and payments gives undefined', async () => {
    const { hash } = newPreimage();
    assert.equal(await cln.lookupInvoice(hash), undefined);
    assert.equal(await cln.lookupPayment(hash), undefined);
  });
});
