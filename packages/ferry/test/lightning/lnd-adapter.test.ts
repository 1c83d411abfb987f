// Ferry's LND REST adapter against the devnet's Lightning nodes over real sockets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ClockChain, startLightningDevnet, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { LndRestClient, LndRestError, decodeBolt11, nodeStatsResponse, nodesResponse } from '../../src/lightning/index.ts';
import type { PaymentUpdate } from '../../src/lightning/index.ts';
import { freshDir, localBalanceSat, rest, waitUntil } from './helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const newPreimage = (): { preimage: string; hash: string } => {
  const preimage = randomBytes(32).toString('hex');
  return { preimage, hash: sha256(preimage) };
};

describe('LND REST adapter against the devnet', () => {
  let devnet: LightningDevnet;
  let chain: ClockChain;
  let ferry: LndRestClient;
  let alice: LndRestClient;
  let bob: LndRestClient;

  before(async () => {
    chain = new ClockChain(200);
    // bob's side is the bottleneck: ferry can push at most 2,000,000 sat to bob.
    devnet = await startLightningDevnet({
      dataDir: freshDir(),
      chain,
      channels: [
        { from: 'ferry', to: 'alice', capacitySat: 10_000_000, pushSat: 5_000_000 },
        { from: 'ferry', to: 'bob', capacitySat: 4_000_000, pushSat: 2_000_000 },
      ],
    });
    const client = (name: string) =>
      new LndRestClient({ url: devnet.nodes[name].restUrl, macaroon: devnet.nodes[name].macaroon });
    ferry = client('ferry');
    alice = client('alice');
    bob = client('bob');
  });

  after(async () => {
    await devnet.close();
  });

  test('node info, stats and the bodies of Ferry\'s node endpoints', async () => {
    const info = await ferry.getInfo();
    assert.equal(info.publicKey, devnet.nodes.ferry.pubkey);
    assert.equal(info.alias, 'ferry');
    assert.equal(info.network, 'regtest');
    assert.equal(info.blockHeight, await chain.height());
    const stats = await ferry.getStats();
    assert.equal(stats.capacitySat, 14_000_000n);
    assert.equal(stats.channels, 2);
    assert.equal(stats.peers, 2);
    assert.equal(stats.oldestChannelHeight, 201);
    assert.deepEqual(await nodesResponse({ BTC: ferry }), {
      BTC: { LND: { publicKey: devnet.nodes.ferry.pubkey, uris: info.uris } },
    });
    const blockTimes: [string, number][] = [];
    const nodeStats = await nodeStatsResponse({ BTC: ferry }, async (symbol, height) => {
      blockTimes.push([symbol, height]);
      return 1_700_000_000 + height;
    });
    assert.deepEqual(blockTimes, [['BTC', 201]], 'the oldest channel is dated by its confirmation block');
    assert.deepEqual(nodeStats.BTC.total, { capacity: 14_000_000, channels: 2, peers: 2, oldestChannel: 1_700_000_201 });
  });

  test('a wrong or missing macaroon is refused', async () => {
    // Bytes that are no macaroon: go-macaroon cannot tell their format (a first byte that is neither 2 nor ASCII hex).
    const wrong = new LndRestClient({ url: devnet.nodes.alice.restUrl, macaroon: 'ff' + randomBytes(31).toString('hex') });
    await assert.rejects(wrong.getInfo(), (err: unknown) => {
      assert.ok(err instanceof LndRestError);
      assert.equal(err.message, 'cannot determine data format of binary-encoded macaroon');
      return true;
    });
    // bob's macaroon does not open alice's node either: another root key, so its signature does not verify.
    const crossed = new LndRestClient({ url: devnet.nodes.alice.restUrl, macaroon: devnet.nodes.bob.macaroon });
    await assert.rejects(crossed.getInfo(), (err: unknown) => {
      assert.ok(err instanceof LndRestError);
      assert.equal(err.message, 'verification failed: signature mismatch after caveat verification');
      return true;
    });
    const missing = await rest(devnet.nodes.alice, 'GET', '/v1/getinfo', undefined, '');
    assert.equal(missing.status, 500);
    assert.match(String(missing.body.message), /expected 1 macaroon/);
  });

  test('alice pays bob\'s invoice through ferry and balances move', async () => {
    const before = {
      alice: await localBalanceSat(devnet.nodes.alice),
      ferry: await localBalanceSat(devnet.nodes.ferry),
      bob: await localBalanceSat(devnet.nodes.bob),
    };
    const created = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', {
      value: '50000',
      memo: 'coffee',
    });
    assert.equal(created.status, 200);
    const decoded = await alice.decodeInvoice(created.body.payment_request);
    assert.equal(decoded.payeeNodeKey, devnet.nodes.bob.pubkey);
    assert.equal(decoded.amountMsat, 50_000_000n);

    const updates: PaymentUpdate[] = [];
    const result = await alice.payInvoice({
      paymentRequest: created.body.payment_request,
      feeLimitMsat: 10_000n,
      timeoutSeconds: 10,
      onUpdate: (u) => updates.push(u),
    });
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage !== undefined && sha256(result.preimage), decoded.paymentHash);
    assert.equal(result.feeMsat, 1_050n); // ferry's forwarding fee: 1000 msat base + 1 ppm
    assert.deepEqual(
      updates.map((u) => u.status),
      ['IN_FLIGHT', 'SUCCEEDED'],
    );
    assert.equal(await localBalanceSat(devnet.nodes.alice), before.alice - 50_002); // 50,001.05 sat leaves x.95: rounds down
    assert.equal(await localBalanceSat(devnet.nodes.bob), before.bob + 50_000);
    // ferry gave 50,000 to bob and took 50,001.05 from alice: its spendable total grows by the fee.
    assert.equal(await localBalanceSat(devnet.nodes.ferry), before.ferry + 1);
    const invoice = await bob.lookupInvoice(decoded.paymentHash);
    assert.equal(invoice?.state, 'SETTLED');
    assert.equal(invoice?.amountPaidMsat, 50_000_000n);

    // Paying again pays nothing: the adapter finds the succeeded payment, and the node refuses a second send.
    const again = await alice.payInvoice({
      paymentRequest: created.body.payment_request,
      feeLimitMsat: 10_000n,
      timeoutSeconds: 10,
    });
    assert.equal(again.status, 'SUCCEEDED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), before.alice - 50_002);
    const raw = await rest(devnet.nodes.alice, 'POST', '/v2/router/send', {
      payment_request: created.body.payment_request,
      timeout_seconds: 10,
      fee_limit_sat: 10,
    });
    assert.notEqual(raw.status, 200);
    assert.match(JSON.stringify(raw.body), /invoice is already paid/);
    // Another node paying the settled invoice fails at bob.
    const byFerry = await ferry.payInvoice({
      paymentRequest: created.body.payment_request,
      feeLimitMsat: 10_000n,
      timeoutSeconds: 10,
    });
    assert.equal(byFerry.status, 'FAILED');
    assert.equal(byFerry.failureReason, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS');
  });

  test('a hold invoice stays in flight until settled, then the payer gets the preimage', async () => {
    const { preimage, hash } = newPreimage();
    const { paymentRequest } = await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 120_000_000n, memo: 'reverse swap' });
    const invoiceStates: string[] = [];
    const sub = ferry.subscribeInvoice(hash, (u) => invoiceStates.push(u.state));
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);

    const updates: PaymentUpdate[] = [];
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10, onUpdate: (u) => updates.push(u) });
    await waitUntil(() => invoiceStates.includes('ACCEPTED'));
    const accepted = await ferry.lookupInvoice(hash);
    assert.equal(accepted?.state, 'ACCEPTED');
    assert.equal(accepted?.htlcExpiryHeights.length, 1);
    assert.equal((await alice.lookupPayment(hash))?.status, 'IN_FLIGHT');
    // The amount is reserved on alice's channel while the HTLC is held.
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore - 120_000);
    const { body: balance } = await rest<{ unsettled_local_balance: { sat: string } }>(devnet.nodes.alice, 'GET', '/v1/balance/channels');
    assert.equal(balance.unsettled_local_balance.sat, '120000');

    await ferry.settleHoldInvoice(preimage);
    await ferry.settleHoldInvoice(preimage); // a replayed effect is harmless
    const result = await paying;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    // LND reports IN_FLIGHT when the payment is registered and again when its HTLC is out; then the outcome.
    assert.deepEqual([...new Set(updates.map((u) => u.status))], ['IN_FLIGHT', 'SUCCEEDED']);
    await waitUntil(() => invoiceStates.includes('SETTLED'));
    assert.deepEqual(invoiceStates, ['OPEN', 'ACCEPTED', 'SETTLED']);
    sub.close();
    await sub.done;
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore - 120_000);
  });

  // Issue 22, finding 1: LND's gateway reads bytes in a URL as *padded* base64 (grpc-gateway's runtime.Bytes), and
  // Ferry sent unpadded base64url, so payInvoice's first look-up got 400 code 3 and no payment was ever sent, and a
  // hold invoice's acceptance was never seen. The hash here has '+' and '/' in its standard base64, so the adapter
  // must also use the URL-safe alphabet (a '/' would split the path).
  test('a submarine payment and a hold invoice\'s acceptance through LND\'s URL rules for bytes', async () => {
    let pair = newPreimage();
    while (!/\+.*\/|\/.*\+/.test(Buffer.from(pair.hash, 'hex').toString('base64'))) pair = newPreimage();
    const { preimage, hash } = pair;
    const { paymentRequest } = await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 30_000_000n, memo: 'finding 1' });
    const states: string[] = [];
    const sub = ferry.subscribeInvoice(hash, (u) => states.push(u.state));
    const before = { alice: await localBalanceSat(devnet.nodes.alice), ferry: await localBalanceSat(devnet.nodes.ferry) };
    // Ferry pays (a submarine swap's payment): it looks the payment up by hash first, then sends.
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(() => states.includes('ACCEPTED'));
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'ACCEPTED');
    assert.equal((await alice.lookupPayment(hash))?.status, 'IN_FLIGHT');
    await ferry.settleHoldInvoice(preimage);
    const result = await paying;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    await waitUntil(() => states.includes('SETTLED'));
    sub.close();
    await sub.done;
    assert.equal(await localBalanceSat(devnet.nodes.alice), before.alice - 30_000);
    assert.equal(await localBalanceSat(devnet.nodes.ferry), before.ferry + 30_000);
    // What the old adapter sent is refused as LND refuses it.
    const old = await rest(devnet.nodes.ferry, 'GET', `/v2/invoices/lookup?payment_hash=${Buffer.from(hash, 'hex').toString('base64url')}`, undefined, undefined, 'the old unpadded URL');
    assert.equal(old.status, 400);
    assert.deepEqual(old.body, { code: 3, message: 'parsing field "payment_hash": illegal base64 data at input byte 40', details: [] });
  });

  test('a cancelled hold invoice fails the payment back', async () => {
    const { hash } = newPreimage();
    const { paymentRequest } = await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 70_000_000n });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await ferry.lookupInvoice(hash))?.state === 'ACCEPTED');
    await ferry.cancelHoldInvoice(hash);
    const result = await paying;
    assert.equal(result.status, 'FAILED');
    assert.equal(result.failureReason, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS');
    assert.equal(result.preimage, undefined);
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'CANCELED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
  });

  test('a held payment fails back when the HTLC\'s expiry height passes', async () => {
    const { hash } = newPreimage();
    const { paymentRequest } = await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 30_000_000n, cltvExpiry: 20 });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await ferry.lookupInvoice(hash))?.state === 'ACCEPTED');
    const [expiryHeight] = (await ferry.lookupInvoice(hash))!.htlcExpiryHeights;
    assert.equal(expiryHeight, (await chain.height()) + 20);
    chain.mine(19);
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'ACCEPTED');
    assert.equal((await alice.lookupPayment(hash))?.status, 'IN_FLIGHT');
    chain.mine(1);
    const result = await paying;
    assert.equal(result.status, 'FAILED');
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'CANCELED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
  });

  test('a payment larger than the route\'s liquidity fails with a routing failure', async () => {
    const created = await rest<{ payment_request: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '3000000' });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const result = await alice.payInvoice({ paymentRequest: created.body.payment_request, feeLimitMsat: 100_000n, timeoutSeconds: 10 });
    assert.equal(result.status, 'FAILED');
    assert.equal(result.failureReason, 'FAILURE_REASON_NO_ROUTE');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
    // A fee limit below ferry's forwarding fee leaves no route either.
    const small = await rest<{ payment_request: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '1000' });
    const cheap = await alice.payInvoice({ paymentRequest: small.body.payment_request, feeLimitMsat: 999n, timeoutSeconds: 10 });
    assert.equal(cheap.failureReason, 'FAILURE_REASON_NO_ROUTE');
  });

  test('a cltv limit below the route\'s time lock leaves no route; a wide one pays', async () => {
    const tight = await rest<{ payment_request: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '1000' });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const refused = await alice.payInvoice({
      paymentRequest: tight.body.payment_request,
      feeLimitMsat: 100_000n,
      timeoutSeconds: 10,
      cltvLimit: 10,
    });
    assert.equal(refused.failureReason, 'FAILURE_REASON_NO_ROUTE');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
    const wide = await rest<{ payment_request: string }>(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '1000' });
    const paid = await alice.payInvoice({
      paymentRequest: wide.body.payment_request,
      feeLimitMsat: 100_000n,
      timeoutSeconds: 10,
      cltvLimit: 1000,
    });
    assert.equal(paid.status, 'SUCCEEDED');
  });

  test('an expired invoice is refused before anything is sent', async () => {
    const { hash } = newPreimage();
    await bob.createHoldInvoice({ paymentHash: hash, amountMsat: 1_000_000n });
    // The same invoice, as bob's node would have signed it two hours ago with a one-hour expiry.
    const { encodeBolt11 } = await import('@ferry/sdk/lightning/bolt11/index.js');
    const bobKey = Buffer.from(devnet.network.node('bob').secretKey, 'hex');
    const stale = encodeBolt11(
      {
        network: 'bcrt',
        amountMsat: 1_000_000n,
        timestamp: Math.floor(Date.now() / 1000) - 7200,
        paymentHash: hash,
        paymentSecret: randomBytes(32).toString('hex'),
        description: '',
        expiry: 3600,
      },
      bobKey,
    );
    assert.equal(decodeBolt11(stale).payeeNodeKey, devnet.nodes.bob.pubkey);
    await assert.rejects(
      alice.payInvoice({ paymentRequest: stale, feeLimitMsat: 1_000n, timeoutSeconds: 10 }),
      /invoice expired/,
    );
    assert.equal(await alice.lookupPayment(hash), undefined);
  });

  test('after Ferry restarts mid-payment the adapter finds the payment and does not pay twice', async () => {
    const { preimage, hash } = newPreimage();
    const { paymentRequest } = await bob.createHoldInvoice({ paymentHash: hash, amountMsat: 40_000_000n });
    const ferryBefore = await localBalanceSat(devnet.nodes.ferry);

    const script = fileURLToPath(new URL('./fixtures/pay-and-hang.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', script, devnet.nodes.ferry.restUrl, devnet.nodes.ferry.macaroon, paymentRequest],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('in-flight')) resolve();
      });
      child.once('exit', () => reject(new Error(`payer exited early: ${out}`)));
    });
    child.kill('SIGKILL');
    await exited;

    // The restarted Ferry asks to pay the same invoice again.
    const restarted = new LndRestClient({ url: devnet.nodes.ferry.restUrl, macaroon: devnet.nodes.ferry.macaroon });
    const seen: string[] = [];
    const paying = restarted.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10, onUpdate: (u) => seen.push(u.status) });
    await waitUntil(() => seen.includes('IN_FLIGHT'));
    await bob.settleHoldInvoice(preimage);
    const result = await paying;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    assert.equal(devnet.network.listPayments('ferry').filter((p) => p.paymentHash === hash).length, 1);
    assert.equal(await localBalanceSat(devnet.nodes.ferry), ferryBefore - 40_000);
  });

  test('listPendingInvoices pages through every open and accepted invoice, and only those', async () => {
    const before = new Set((await ferry.listPendingInvoices()).map((u) => u.paymentHash));
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { hash } = newPreimage();
      await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 10_000n + BigInt(i) });
      created.push(hash);
    }
    await ferry.cancelHoldInvoice(created[2]);
    const held = newPreimage();
    const invoice = await ferry.createHoldInvoice({ paymentHash: held.hash, amountMsat: 30_000_000n });
    const paying = alice.payInvoice({ paymentRequest: invoice.paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await ferry.lookupInvoice(held.hash))?.state === 'ACCEPTED');

    // Pages of 2 force several calls; the result is the same as one large page.
    const paged = (await ferry.listPendingInvoices(2)).filter((u) => !before.has(u.paymentHash));
    const whole = (await ferry.listPendingInvoices()).filter((u) => !before.has(u.paymentHash));
    assert.deepEqual(paged, whole);
    const expected = [...created.filter((_, i) => i !== 2), held.hash];
    assert.deepEqual(paged.map((u) => u.paymentHash), expected);
    assert.deepEqual(paged.map((u) => u.state), ['OPEN', 'OPEN', 'OPEN', 'OPEN', 'OPEN', 'OPEN', 'ACCEPTED']);
    const accepted = paged[paged.length - 1];
    assert.equal(accepted.amountPaidMsat, 30_000_000n);
    assert.equal(accepted.htlcExpiryHeights.length, 1);

    await ferry.cancelHoldInvoice(held.hash);
    assert.equal((await paying).status, 'FAILED');
    for (const hash of created) await ferry.cancelHoldInvoice(hash);
    assert.deepEqual((await ferry.listPendingInvoices(2)).filter((u) => !before.has(u.paymentHash)), []);
  });

  test('looking up unknown invoices and payments gives undefined', async () => {
    const { hash } = newPreimage();
    assert.equal(await ferry.lookupInvoice(hash), undefined);
    assert.equal(await ferry.lookupPayment(hash), undefined);
  });
});
