// The devnet's CLN node as a clnrest client sees it: the Rune header (403 without, 401 for a rune it did not
// mint), lightningd's and the hold plugin's methods, errors as JSON-RPC error objects — and the effects on the
// one network model the LND nodes share: who got paid, whose channel balance moved.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ClockChain, startLightningDevnet, type ClnNodeInfo, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { LndRestClient } from '../../src/lightning/index.ts';
import { HOLD_METHODS } from '@ferry/devnet/lightning/clnrest/hold.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { clnRest, freshDir, rest, waitUntil } from '../lightning/helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

const clnCall = clnRest;

describe('devnet CLN node over clnrest', () => {
  let devnet: LightningDevnet;
  let cln: ClnNodeInfo;
  let alice: LndRestClient;

  before(async () => {
    const dataDir = freshDir();
    devnet = await startLightningDevnet({ dataDir, chain: new ClockChain(100, `${dataDir}/clock.json`), clnNodes: ['cln'] });
    cln = devnet.cln.cln;
    alice = new LndRestClient({ url: devnet.nodes.alice.restUrl, macaroon: devnet.nodes.alice.macaroon });
  });
  after(async () => {
    await devnet?.close();
  });

  const toUsWith = async (peer: string): Promise<number> => {
    const { body } = await clnCall(cln, 'listpeerchannels', { id: peer });
    assert.equal(body.channels.length, 1);
    return body.channels[0].to_us_msat;
  };

  test('the Rune header: missing is 403, a rune the node did not mint 401, the minted one answers getinfo', async () => {
    const missing = await clnCall(cln, 'getinfo', {}, null);
    assert.equal(missing.status, 403);
    assert.deepEqual(missing.body, { code: 1501, message: 'Not authorized: Missing rune' });
    const forged = await clnCall(cln, 'getinfo', {}, randomBytes(32).toString('base64url'));
    assert.equal(forged.status, 401);
    assert.equal(forged.body.code, 1501);
    const garbage = await clnCall(cln, 'getinfo', {}, '!!');
    assert.equal(garbage.status, 401);

    const { status, body } = await clnCall(cln, 'getinfo');
    assert.equal(status, 201);
    assert.equal(body.id, cln.pubkey);
    assert.equal(body.network, 'regtest');
    assert.equal(body.num_active_channels, 2);
    assert.equal(typeof body.blockheight, 'number');
    // The CLN node is served only by clnrest; the LND faces list the others.
    assert.deepEqual(Object.keys(devnet.nodes).sort(), ['alice', 'bob', 'ferry']);
  });

  test('unknown methods are 404, bad parameters the method\'s error with 500', async () => {
    const unknown = await clnCall(cln, 'nosuchmethod');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, -32601);
    const bad = await clnCall(cln, 'invoice', { amount_msat: 'lots', label: 'x', description: 'y' });
    assert.equal(bad.status, 500);
    assert.equal(bad.body.code, -32602);
    const undecodable = await clnCall(cln, 'decode', { string: 'lnbcrt1garbage' });
    assert.equal(undecodable.status, 500);
    // lightningd's param parser refuses a name the method does not take, and a missing required one
    const unknownParam = await clnCall(cln, 'listsendpays', { payment_hash: '11'.repeat(32), groupid: 1 });
    assert.equal(unknownParam.status, 500);
    assert.deepEqual(unknownParam.body, {
      code: -32602,
      message:
        'unknown parameter: groupid, this may be caused by a failure to autodetect key=value-style parameters. Please try using the -k flag and explicit key=value pairs of parameters.',
    });
    const missing = await clnCall(cln, 'decode', {});
    assert.deepEqual(missing.body, { code: -32602, message: 'missing required parameter: string' });
  });

  test("the hold plugin's RPC methods are its own: injectholdinvoice, not injectinvoice", async () => {
    const wrongName = await clnCall(cln, 'injectinvoice', { invoice: 'lni1qqq', min_cltv: 80 });
    assert.equal(wrongName.status, 404);
    assert.deepEqual(wrongName.body, { code: -32601, message: "Unknown command 'injectinvoice'" });
    // registered: the plugin reads the invoice (and refuses this one) rather than lightningd not knowing the method
    const registered = await clnCall(cln, 'injectholdinvoice', { invoice: 'lni1qqq', min_cltv: 80 });
    assert.equal(registered.status, 500);
    assert.equal(registered.body.code, -32700);
    const noInvoice = await clnCall(cln, 'injectholdinvoice', {});
    assert.deepEqual(noInvoice.body, { code: -32700, message: 'missing field `invoice`' });
  });

  test("the plugin's RPC holdinvoice reads payment_hash and amount only: its invoices carry its defaults", async () => {
    const hash = sha256(randomBytes(32).toString('hex'));
    // what the plugin does not read it ignores, as serde does (called in-process: an HTTP call with these names would
    // itself be a contract violation, which is the point)
    const made = HOLD_METHODS.holdinvoice({
      network: devnet.network,
      node: 'cln',
      params: { payment_hash: hash, amount: 2_000_000, description: 'swap', expiry: 600, min_final_cltv_expiry: 144 },
    }) as { bolt11: string };
    const invoice = decodeBolt11(made.bolt11);
    assert.equal(invoice.paymentHash, hash);
    assert.equal(invoice.amountMsat, 2_000_000n);
    assert.equal(invoice.minFinalCltvExpiry, 80, "the plugin's CLTV delta, not the 144 asked for");
    assert.equal(invoice.expiry, 3600, "the plugin's expiry, not the 600 asked for");
    assert.equal(invoice.description, '');
    const { body: listed } = await clnCall(cln, 'listholdinvoices', { payment_hash: hash });
    assert.equal(listed.holdinvoices[0].min_cltv, undefined, "an invoice the plugin's RPC made has no min_cltv");
    const noAmount = await clnCall(cln, 'holdinvoice', { payment_hash: hash });
    assert.deepEqual(noAmount.body, { code: -32700, message: 'missing field `amount`' });
    const textAmount = await clnCall(cln, 'holdinvoice', { payment_hash: hash, amount: '1000' });
    assert.deepEqual(textAmount.body, { code: -32700, message: 'invalid type: string "1000", expected u64' });
    await clnCall(cln, 'cancelholdinvoice', { payment_hash: hash });
  });

  test('listpeerchannels: a channel to each user node, shared with their LND view', async () => {
    const { body } = await clnCall(cln, 'listpeerchannels');
    const peers = body.channels.map((c: { peer_id: string }) => c.peer_id).sort();
    assert.deepEqual(peers, [devnet.nodes.alice.pubkey, devnet.nodes.bob.pubkey].sort());
    for (const c of body.channels as { peer_id: string; state: string; short_channel_id: string; total_msat: number; to_us_msat: number }[]) {
      assert.equal(c.state, 'CHANNELD_NORMAL');
      assert.match(c.short_channel_id, /^\d+x\d+x\d+$/);
      // as the devnet's default channels: 10M with alice, balanced; 20M with bob, 15M on this side
      const toBob = c.peer_id === devnet.nodes.bob.pubkey;
      assert.equal(c.total_msat, toBob ? 20_000_000_000 : 10_000_000_000);
      assert.equal(c.to_us_msat, toBob ? 15_000_000_000 : 5_000_000_000);
    }
  });

  test('invoice: alice pays it over LND REST, listinvoices says paid and the CLN node holds the amount', async () => {
    const before = await toUsWith(devnet.nodes.alice.pubkey);
    const created = await clnCall(cln, 'invoice', { amount_msat: 21_000_000, label: 'first', description: 'coffee' });
    assert.equal(created.status, 201);
    const duplicate = await clnCall(cln, 'invoice', { amount_msat: 1000, label: 'first', description: 'again' });
    assert.equal(duplicate.body.code, 900);

    const decoded = await clnCall(cln, 'decode', { string: created.body.bolt11 });
    assert.equal(decoded.body.payment_hash, created.body.payment_hash);
    assert.equal(decoded.body.amount_msat, 21_000_000);
    assert.equal(decoded.body.payee, cln.pubkey);

    const paid = await alice.payInvoice({ paymentRequest: created.body.bolt11, feeLimitMsat: 10_000n, timeoutSeconds: 10 });
    assert.equal(paid.status, 'SUCCEEDED');
    const { body } = await clnCall(cln, 'listinvoices', { label: 'first' });
    assert.equal(body.invoices.length, 1);
    assert.equal(body.invoices[0].status, 'paid');
    assert.equal(body.invoices[0].amount_received_msat, 21_000_000);
    assert.equal(sha256(body.invoices[0].payment_preimage), created.body.payment_hash);
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before + 21_000_000);
  });

  test('pay: the CLN node pays alice\'s invoice; her invoice is settled and the preimage is hers', async () => {
    const before = await toUsWith(devnet.nodes.alice.pubkey);
    const preimage = randomBytes(32).toString('hex');
    const { body: added } = await fetch(`${devnet.nodes.alice.restUrl}/v1/invoices`, {
      method: 'POST',
      headers: { 'Grpc-Metadata-macaroon': devnet.nodes.alice.macaroon },
      body: JSON.stringify({ value: '15000', r_preimage: Buffer.from(preimage, 'hex').toString('base64') }),
    }).then(async (r) => ({ body: (await r.json()) as { payment_request: string } }));
    const paid = await clnCall(cln, 'pay', { bolt11: added.payment_request });
    assert.equal(paid.status, 201);
    assert.equal(paid.body.status, 'complete');
    assert.equal(paid.body.payment_preimage, preimage);
    assert.equal(paid.body.amount_msat, 15_000_000);
    assert.equal((await alice.lookupInvoice(sha256(preimage)))?.state, 'SETTLED');
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before - 15_000_000);

    const again = await clnCall(cln, 'pay', { bolt11: added.payment_request });
    assert.equal(again.body.status, 'complete', 'paying a paid invoice answers the earlier success');
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before - 15_000_000, 'and pays nothing twice');
    const { body: sent } = await clnCall(cln, 'listsendpays', { payment_hash: sha256(preimage) });
    assert.equal(sent.payments.length, 1);
    assert.equal(sent.payments[0].status, 'complete');

    const another = await alice.createHoldInvoice({ paymentHash: randomBytes(32).toString('hex'), amountMsat: 1_000n });
    const failed = await clnCall(cln, 'pay', { bolt11: another.paymentRequest, amount_msat: 5 });
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { code: -32602, message: 'amount_msat unnecessary' }, 'an amount for an invoice that has one is refused');
  });

  test("pay is xpay's: no route is 205 and an expired invoice 207, and neither records a sendpay", async () => {
    const { body: big } = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '50000000' });
    const noRoute = await clnCall(cln, 'pay', { bolt11: big.payment_request, maxfee: 1000, riskfactor: 5 });
    assert.equal(noRoute.status, 500);
    assert.equal(noRoute.body.code, 205);
    assert.match(noRoute.body.message, /^Failed: We could not find a usable set of paths\./);
    const hash = Buffer.from(big.r_hash, 'base64').toString('hex');
    assert.deepEqual((await clnCall(cln, 'listsendpays', { payment_hash: hash })).body.payments, []);

    const { body: brief } = await rest<{ payment_request: string; r_hash: string }>(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '1000', expiry: '1' });
    await waitUntil(() => Date.now() / 1000 > decodeBolt11(brief.payment_request).timestamp + 2);
    const expired = await clnCall(cln, 'pay', { bolt11: brief.payment_request });
    assert.equal(expired.body.code, 207);
    assert.match(expired.body.message, /^Invoice expired \d+ seconds ago$/);
    assert.deepEqual((await clnCall(cln, 'listsendpays', { payment_hash: Buffer.from(brief.r_hash, 'base64').toString('hex') })).body.payments, []);
  });

  test('hold invoices: accepted while held, settled into the CLN node\'s balance, or cancelled back to alice', async () => {
    const before = await toUsWith(devnet.nodes.alice.pubkey);
    const preimage = randomBytes(32).toString('hex');
    const hash = sha256(preimage);
    const created = await clnCall(cln, 'holdinvoice', { payment_hash: hash, amount: 30_000_000 });
    assert.equal(created.status, 201);
    const payment = alice.payInvoice({ paymentRequest: created.body.bolt11, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await waitUntil(async () => (await clnCall(cln, 'listholdinvoices', { payment_hash: hash })).body.holdinvoices[0].state === 'accepted');
    const { body: held } = await clnCall(cln, 'listholdinvoices', { invoice: created.body.bolt11 });
    assert.equal(held.holdinvoices[0].htlcs.length, 1);
    assert.equal(held.holdinvoices[0].htlcs[0].msat, 30_000_000);
    assert.equal(held.holdinvoices[0].htlcs[0].state, 'accepted');
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before, 'nothing moves while held');

    assert.equal((await clnCall(cln, 'settleholdinvoice', { preimage })).status, 201);
    const result = await payment;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    assert.equal((await clnCall(cln, 'listholdinvoices', { payment_hash: hash })).body.holdinvoices[0].state, 'paid');
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before + 30_000_000);
    const { body: own } = await clnCall(cln, 'listinvoices', { payment_hash: hash });
    assert.equal(own.invoices.length, 0, 'hold invoices are the plugin\'s, not lightningd\'s');

    const other = sha256(randomBytes(32).toString('hex'));
    const second = await clnCall(cln, 'holdinvoice', { payment_hash: other, amount: 10_000_000 });
    const refused = alice.payInvoice({ paymentRequest: second.body.bolt11, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await waitUntil(async () => (await clnCall(cln, 'listholdinvoices', { payment_hash: other })).body.holdinvoices[0].state === 'accepted');
    assert.equal((await clnCall(cln, 'cancelholdinvoice', { payment_hash: other })).status, 201);
    assert.equal((await refused).status, 'FAILED');
    assert.equal((await clnCall(cln, 'listholdinvoices', { payment_hash: other })).body.holdinvoices[0].state, 'cancelled');
    assert.equal(await toUsWith(devnet.nodes.alice.pubkey), before + 30_000_000, 'the cancelled payment went back');

    const missing = await clnCall(cln, 'settleholdinvoice', { preimage: randomBytes(32).toString('hex') });
    assert.equal(missing.status, 500);
    assert.equal(missing.body.code, -32700);
  });
});

describe('a CLN node added to an existing devnet', () => {
  test('a restart with the CLN node opens its channels and keeps every earlier one with its balances', async () => {
    const dataDir = freshDir();
    const chain = () => new ClockChain(100, `${dataDir}/clock.json`);
    const first = await startLightningDevnet({ dataDir, chain: chain() });
    const alice = new LndRestClient({ url: first.nodes.alice.restUrl, macaroon: first.nodes.alice.macaroon });
    const { body } = await rest<{ payment_request: string }>(first.nodes.ferry, 'POST', '/v1/invoices', { value: '7000' });
    assert.equal((await alice.payInvoice({ paymentRequest: body.payment_request, feeLimitMsat: 10_000n, timeoutSeconds: 5 })).status, 'SUCCEEDED');
    const before = structuredClone(first.network.channels);
    await first.close();

    const second = await startLightningDevnet({ dataDir, chain: chain(), clnNodes: ['cln'] });
    try {
      assert.deepEqual(second.network.channels.slice(0, before.length), before, 'earlier channels kept, balances included');
      const { body: channels } = await clnRest(second.cln.cln, 'listpeerchannels');
      assert.equal(channels.channels.length, 2, "the CLN node's channels to alice and bob, opened now");
      assert.equal(second.network.channels.length, before.length + 2);
    } finally {
      await second.close();
    }
  });
});
