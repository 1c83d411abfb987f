// The devnet's Lightning nodes as LND REST clients see them: field names and encodings, streams as
// newline-delimited {"result": ...} objects, errors, and state that survives a restart.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ClockChain, startLightningDevnet, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { freshDir, localBalanceSat, rawRequest, readStream, rest, waitUntil } from '../lightning/helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
// LND's form for bytes in a URL: URL-safe base64 with its padding, percent-encoded.
const b64url = (hex: string): string => encodeURIComponent(b64(hex).replace(/\+/g, '-').replace(/\//g, '_'));

describe('devnet lightning REST', () => {
  const dataDir = freshDir();
  let devnet: LightningDevnet;
  const started: LightningDevnet[] = [];
  after(async () => {
    for (const d of started) await d.close().catch(() => {});
  });

  test('nodes have their own keys, ports and macaroons; getinfo and channels in LND\'s shapes', async () => {
    devnet = await startLightningDevnet({ dataDir, chain: new ClockChain(100, `${dataDir}/clock.json`) });
    started.push(devnet);
    const names = Object.keys(devnet.nodes).sort();
    assert.deepEqual(names, ['alice', 'bob', 'ferry']);
    const urls = new Set(names.map((n) => devnet.nodes[n].restUrl));
    const keys = new Set(names.map((n) => devnet.nodes[n].pubkey));
    assert.equal(urls.size, 3);
    assert.equal(keys.size, 3);
    for (const n of names) assert.match(devnet.nodes[n].restUrl, /^http:\/\/127\.0\.0\.1:\d+$/);

    const { status, body: info } = await rest(devnet.nodes.ferry, 'GET', '/v1/getinfo');
    assert.equal(status, 200);
    assert.equal(info.identity_pubkey, devnet.nodes.ferry.pubkey);
    assert.equal(info.num_active_channels, 2);
    assert.equal(typeof info.block_height, 'number');
    assert.equal(typeof info.best_header_timestamp, 'string');
    assert.deepEqual(info.chains, [{ chain: 'bitcoin', network: 'regtest' }]);

    const { body: channels } = await rest<{ channels: Record<string, unknown>[] }>(devnet.nodes.alice, 'GET', '/v1/channels');
    assert.equal(channels.channels.length, 1);
    const channel = channels.channels[0];
    assert.equal(channel.remote_pubkey, devnet.nodes.ferry.pubkey);
    assert.equal(channel.capacity, '10000000');
    assert.equal(channel.local_balance, '5000000');
    assert.equal(channel.remote_balance, '5000000');
    assert.match(String(channel.channel_point), /^[0-9a-f]{64}:0$/);
    assert.match(String(channel.chan_id), /^[0-9]+$/);
    assert.equal(channel.initiator, false);

    const { body: graph } = await rest(devnet.nodes.bob, 'GET', '/v1/graph/info');
    assert.equal(graph.num_nodes, 3);
    assert.equal(graph.num_channels, 2);
    assert.equal(graph.total_network_capacity, '30000000'); // ferry↔alice 10M, ferry↔bob 20M
    const { body: node } = await rest<{ node: { alias: string }; num_channels: number; total_capacity: string }>(
      devnet.nodes.bob,
      'GET',
      `/v1/graph/node/${devnet.nodes.ferry.pubkey}`,
    );
    assert.equal(node.node.alias, 'ferry');
    assert.equal(node.num_channels, 2);
    assert.equal(node.total_capacity, '30000000');
    const unknown = await rest(devnet.nodes.bob, 'GET', `/v1/graph/node/02${'11'.repeat(32)}`);
    assert.equal(unknown.status, 404);
    // DescribeGraph (Ferry's node search): every node and channel, in LND's shapes (the contract checker sees them).
    const { body: described } = await rest<{ nodes: { alias: string }[]; edges: unknown[] }>(devnet.nodes.bob, 'GET', '/v1/graph');
    assert.deepEqual(described.nodes.map((n) => n.alias).sort(), Object.keys(devnet.nodes).sort());
    assert.equal(described.edges.length, devnet.network.channels.length);
  });

  test('invoices: creation, BOLT11 decoding, lookup by hex and by base64', async () => {
    const preimage = randomBytes(32).toString('hex');
    const { body: added } = await rest(devnet.nodes.bob, 'POST', '/v1/invoices', {
      value_msat: '1234000',
      memo: 'tea',
      r_preimage: b64(preimage),
      expiry: '600',
      cltv_expiry: '50',
    });
    assert.equal(added.r_hash, b64(sha256(preimage)));
    assert.equal(typeof added.add_index, 'string');
    const request = String(added.payment_request);
    const decoded = decodeBolt11(request);
    assert.equal(decoded.network, 'bcrt');
    assert.equal(decoded.amountMsat, 1_234_000n);
    assert.equal(decoded.paymentHash, sha256(preimage));
    assert.equal(decoded.payeeNodeKey, devnet.nodes.bob.pubkey);
    assert.equal(decoded.expiry, 600);
    assert.equal(decoded.minFinalCltvExpiry, 50);
    assert.equal(b64(decoded.paymentSecret!), added.payment_addr);

    const { body: payreq } = await rest(devnet.nodes.alice, 'GET', `/v1/payreq/${request}`);
    assert.equal(payreq.destination, devnet.nodes.bob.pubkey);
    assert.equal(payreq.payment_hash, sha256(preimage));
    assert.equal(payreq.num_satoshis, '1234');
    assert.equal(payreq.num_msat, '1234000');
    assert.equal(payreq.description, 'tea');
    assert.equal(payreq.cltv_expiry, '50');
    assert.equal(payreq.expiry, '600');
    assert.deepEqual(Object.keys(payreq.features as object).sort(), ['14', '17', '8']);

    const { body: byHex } = await rest(devnet.nodes.bob, 'GET', `/v1/invoice/${sha256(preimage)}`);
    assert.equal(byHex.state, 'OPEN');
    assert.equal(byHex.r_preimage, b64(preimage));
    assert.equal(byHex.value, '1234');
    assert.equal(byHex.value_msat, '1234000');
    assert.equal(byHex.settled, false);
    const { body: byB64 } = await rest(devnet.nodes.bob, 'GET', `/v2/invoices/lookup?payment_hash=${b64url(sha256(preimage))}`);
    assert.equal(byB64.payment_request, request);

    const missing = await rest(devnet.nodes.bob, 'GET', `/v1/invoice/${'00'.repeat(32)}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'unable to locate invoice');
    const bad = await rest(devnet.nodes.bob, 'POST', '/v1/invoices', { value: 'lots' }, undefined, 'int64 not a number');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { code: 3, message: 'proto: (line 1:10): invalid value for int64 type: "lots"', details: [] });
    const badJson = await rawRequest(
      devnet.nodes.bob.restUrl + '/v1/invoices',
      'POST',
      { 'Grpc-Metadata-macaroon': devnet.nodes.bob.macaroon, 'x-ferry-contract-probe': 'body not JSON' },
      '{not json',
    );
    assert.equal(badJson.status, 400);
    const duplicate = await rest(devnet.nodes.bob, 'POST', '/v1/invoices', { value: '1', r_preimage: b64(preimage) });
    assert.equal(duplicate.status, 500);
    assert.match(String(duplicate.body.message), /already exists/);
  });

  test('router/send streams {"result": payment} lines; subscribe streams invoice states', async () => {
    const preimage = randomBytes(32).toString('hex');
    const hash = sha256(preimage);
    const { body: hold } = await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/hodl', {
      hash: b64(hash),
      value: '25000',
      cltv_expiry: '40',
    });
    const subscription = readStream(
      `${devnet.nodes.ferry.restUrl}/v2/invoices/subscribe/${b64url(hash)}`,
      { macaroon: devnet.nodes.ferry.macaroon },
      (m) => m.some((x) => (x.result as { state: string }).state === 'SETTLED'),
    );
    // Pay only once the subscription is registered, so it sees the invoice while still OPEN.
    await waitUntil(() => devnet.network.isWatched('ferry', hash));
    const sending = readStream(
      `${devnet.nodes.alice.restUrl}/v2/router/send`,
      {
        method: 'POST',
        macaroon: devnet.nodes.alice.macaroon,
        body: { payment_request: hold.payment_request, timeout_seconds: 30, fee_limit_sat: '5' },
      },
      (m) => m.some((x) => ['SUCCEEDED', 'FAILED'].includes((x.result as { status: string }).status)),
    );
    await waitUntil(async () => (await rest(devnet.nodes.ferry, 'GET', `/v1/invoice/${hash}`)).body.state === 'ACCEPTED');
    const { body: accepted } = await rest<{ htlcs: { state: string; expiry_height: number; amt_msat: string }[] }>(
      devnet.nodes.ferry,
      'GET',
      `/v1/invoice/${hash}`,
    );
    assert.equal(accepted.htlcs.length, 1);
    assert.equal(accepted.htlcs[0].state, 'ACCEPTED');
    assert.equal(accepted.htlcs[0].amt_msat, '25000000');
    const { body: pending } = await rest<{ channels: { pending_htlcs: { hash_lock: string }[] }[] }>(
      devnet.nodes.alice,
      'GET',
      '/v1/channels',
    );
    assert.equal(pending.channels[0].pending_htlcs[0].hash_lock, b64(hash));

    const wrongPreimage = await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/settle', { preimage: b64('00'.repeat(32)) });
    assert.equal(wrongPreimage.status, 404);
    const settled = await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/settle', { preimage: b64(preimage) });
    assert.equal(settled.status, 200);
    assert.deepEqual(settled.body, {});

    const sent = await sending;
    assert.equal(sent.status, 200);
    const payments = sent.messages.map((m) => m.result as Record<string, unknown>);
    assert.equal(payments[0].status, 'IN_FLIGHT');
    const last = payments[payments.length - 1];
    assert.equal(last.status, 'SUCCEEDED');
    assert.equal(last.payment_preimage, preimage);
    assert.equal(last.payment_hash, hash);
    assert.equal(last.value_sat, '25000');
    assert.equal(last.failure_reason, 'FAILURE_REASON_NONE');
    const htlcs = last.htlcs as { status: string; route: { hops: { pub_key: string }[] } }[];
    assert.deepEqual(
      htlcs[0].route.hops.map((h) => h.pub_key),
      [devnet.nodes.ferry.pubkey],
    );

    const sub = await subscription;
    assert.deepEqual(
      sub.messages.map((m) => (m.result as { state: string }).state),
      ['OPEN', 'ACCEPTED', 'SETTLED'],
    );

    const tracked = await readStream(
      `${devnet.nodes.alice.restUrl}/v2/router/track/${b64url(hash)}`,
      { macaroon: devnet.nodes.alice.macaroon },
      (m) => m.length > 0,
    );
    assert.equal((tracked.messages[0].result as { status: string }).status, 'SUCCEEDED');
    // A stream that fails before its first message is a trailers-only gRPC answer: the gateway writes a plain error.
    const untracked = await rest(devnet.nodes.alice, 'GET', `/v2/router/track/${b64url('ab'.repeat(32))}`);
    assert.equal(untracked.status, 404);
    assert.deepEqual(untracked.body, { code: 5, message: "payment isn't initiated", details: [] });
  });

  test('decodes as LND\'s gateway: padded base64 in URLs, protojson bodies, grpc-gateway\'s routing errors', async () => {
    const node = devnet.nodes.bob;
    const { body: added } = await rest(node, 'POST', '/v1/invoices', { value: 2000, memo: 'strict' });
    const hash = Buffer.from(String(added.r_hash), 'base64').toString('hex');
    const probe = (path: string, body?: unknown, reason = 'refused on purpose') =>
      rest(node, body === undefined ? 'GET' : 'POST', path, body, undefined, reason);
    // runtime.Bytes: unpadded base64url (what Ferry used to send) and hex are refused; both padded forms are taken.
    const unpadded = await probe(`/v2/invoices/lookup?payment_hash=${Buffer.from(hash, 'hex').toString('base64url')}`);
    assert.equal(unpadded.status, 400);
    assert.deepEqual(unpadded.body, { code: 3, message: 'parsing field "payment_hash": illegal base64 data at input byte 40', details: [] });
    const asHex = await probe(`/v2/invoices/lookup?payment_hash=${hash}`);
    assert.deepEqual(asHex.body, { code: 3, message: 'unable to parse pay hash: invalid hash length of 48, want 32', details: [] });
    assert.equal((await rest(node, 'GET', `/v2/invoices/lookup?payment_hash=${b64url(hash)}`)).body.memo, 'strict');
    assert.equal((await rest(node, 'GET', `/v2/invoices/lookup?payment_hash=${encodeURIComponent(b64(hash))}`)).body.memo, 'strict');
    // The gateway refuses before the stream opens: a plain error body, not a stream's {"error": ...}.
    const inPath = await probe(`/v2/invoices/subscribe/${Buffer.from(hash, 'hex').toString('base64url')}`);
    assert.equal(inPath.status, 400);
    assert.deepEqual(inPath.body, {
      code: 3,
      message: 'type mismatch, parameter: r_hash, error: illegal base64 data at input byte 40',
      details: [],
    });
    // protojson: unknown fields refused, JSON names and numbers for int64 taken, a bool must be a JSON bool.
    const unknown = await probe('/v1/invoices', { value: '1', colour: 'red' });
    assert.deepEqual(unknown.body, { code: 3, message: 'proto: (line 1:14): unknown field "colour"', details: [] });
    const camel = await rest(node, 'POST', '/v1/invoices', { valueMsat: 5000, memo: 'camel' }, undefined, 'JSON name');
    assert.equal(camel.status, 200);
    assert.equal(decodeBolt11(String(camel.body.payment_request)).amountMsat, 5000n);
    const stringBool = await probe('/v1/invoices', { value: '1', private: 'true' });
    assert.equal(stringBool.body.message, 'proto: (line 1:24): invalid value for bool type: "true"');
    const shortHash = await probe('/v2/invoices/cancel', { payment_hash: b64('ab') });
    assert.deepEqual(shortHash.body, { code: 2, message: 'invalid hash length of 1, want 32', details: [] });
    assert.equal(shortHash.status, 500);
    // Routing before the macaroon: an unknown path, another method's path.
    const nowhere = await rest(node, 'GET', '/v1/nowhere', undefined, 'not a macaroon', 'unknown path');
    assert.equal(nowhere.status, 404);
    assert.deepEqual(nowhere.body, { code: 5, message: 'Not Found', details: [] });
    const wrongMethod = await probe('/v1/getinfo', {});
    assert.equal(wrongMethod.status, 501);
    assert.deepEqual(wrongMethod.body, { code: 12, message: 'Method Not Allowed', details: [] });
    // A query parameter the operation does not have is ignored, as the gateway ignores it.
    assert.equal((await probe('/v1/getinfo?colour=red')).status, 200);
  });

  test('synchronous send over /v1/channels/transactions', async () => {
    const { body: inv } = await rest(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '777' });
    const { status, body } = await rest(devnet.nodes.bob, 'POST', '/v1/channels/transactions', {
      payment_request: inv.payment_request,
    });
    assert.equal(status, 200);
    assert.equal(body.payment_error, '');
    assert.equal(body.payment_hash, inv.r_hash);
    assert.equal(sha256(Buffer.from(String(body.payment_preimage), 'base64').toString('hex')), Buffer.from(String(inv.r_hash), 'base64').toString('hex'));
  });

  test('ListPayments lists the node\'s own payments in index order', async () => {
    const { body: inv } = await rest(devnet.nodes.alice, 'POST', '/v1/invoices', { value: '555' });
    await rest(devnet.nodes.bob, 'POST', '/v1/channels/transactions', { payment_request: inv.payment_request });
    const { status, body } = await rest(devnet.nodes.bob, 'GET', '/v1/payments');
    assert.equal(status, 200);
    const payments = body.payments as { payment_hash: string; status: string; value_sat: string; payment_index: string }[];
    const hash = Buffer.from(String(inv.r_hash), 'base64').toString('hex');
    const mine = payments.filter((p) => p.payment_hash === hash);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].status, 'SUCCEEDED');
    assert.equal(mine[0].value_sat, '555');
    assert.equal(body.total_num_payments, String(payments.length));
    const indexes = payments.map((p) => Number(p.payment_index));
    assert.deepEqual(indexes, [...indexes].sort((a, b) => a - b));
    // alice paid nothing in this test: her list does not show bob's payment
    const { body: alices } = await rest(devnet.nodes.alice, 'GET', '/v1/payments');
    assert.ok(!(alices.payments as { payment_hash: string }[]).some((p) => p.payment_hash === hash));
  });

  test('ListInvoices pages by add_index, forwards and backwards, with pending_only', async () => {
    const added: { hash: string; index: number }[] = [];
    for (const value of ['11', '12', '13', '14']) {
      const { body } = await rest(devnet.nodes.alice, 'POST', '/v1/invoices', { value });
      added.push({ hash: Buffer.from(String(body.r_hash), 'base64').toString('hex'), index: Number(body.add_index) });
    }
    const [a, b, c, d] = added;
    assert.equal((await rest(devnet.nodes.alice, 'POST', '/v2/invoices/cancel', { payment_hash: b64(b.hash) })).status, 200);
    type Page = { invoices: { r_hash: string; state: string; add_index: string }[]; first_index_offset: string; last_index_offset: string };
    const list = async (query: string): Promise<Page> => {
      const { status, body } = await rest<Page>(devnet.nodes.alice, 'GET', `/v1/invoices?${query}`);
      assert.equal(status, 200);
      return body;
    };
    const hashes = (page: Page) => page.invoices.map((i) => Buffer.from(i.r_hash, 'base64').toString('hex'));

    // index_offset is exclusive; the cancelled invoice is not pending and does not count against the page size.
    const first = await list(`pending_only=true&index_offset=${a.index - 1}&num_max_invoices=2`);
    assert.deepEqual(hashes(first), [a.hash, c.hash]);
    assert.deepEqual(first.invoices.map((i) => i.state), ['OPEN', 'OPEN']);
    assert.equal(first.first_index_offset, String(a.index));
    assert.equal(first.last_index_offset, String(c.index));
    const second = await list(`pending_only=true&index_offset=${first.last_index_offset}&num_max_invoices=2`);
    assert.deepEqual(hashes(second), [d.hash]);
    const beyond = await list(`pending_only=true&index_offset=${d.index}`);
    assert.deepEqual(beyond, { invoices: [], first_index_offset: '0', last_index_offset: '0' });

    const all = await list(`index_offset=${a.index - 1}`);
    assert.deepEqual(hashes(all), [a.hash, b.hash, c.hash, d.hash]);
    assert.equal(all.invoices[1].state, 'CANCELED');
    // Backwards: the page just before the offset, still in ascending order; offset 0 means from the newest.
    assert.deepEqual(hashes(await list(`reversed=true&index_offset=${d.index}&num_max_invoices=2`)), [b.hash, c.hash]);
    assert.deepEqual(hashes(await list('reversed=true&num_max_invoices=1')), [d.hash]);
    // Invoices belong to their node: bob's list has none of alice's.
    const { body: bobs } = await rest<Page>(devnet.nodes.bob, 'GET', `/v1/invoices?index_offset=${a.index - 1}`);
    assert.deepEqual(bobs.invoices, []);
    const soon = await rest(devnet.nodes.alice, 'GET', '/v1/invoices?index_offset=soon', undefined, undefined, 'uint64 not a number');
    assert.equal(soon.status, 400);
    assert.equal(soon.body.message, 'parsing field "index_offset": strconv.ParseUint: parsing "soon": invalid syntax');
  });

  test('nodes, channels, invoices and payments survive a restart; a held payment settles afterwards', async () => {
    const preimage = randomBytes(32).toString('hex');
    const hash = sha256(preimage);
    const { body: hold } = await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/hodl', { hash: b64(hash), value: '10000' });
    const paying = readStream(
      `${devnet.nodes.bob.restUrl}/v2/router/send`,
      {
        method: 'POST',
        macaroon: devnet.nodes.bob.macaroon,
        body: { payment_request: hold.payment_request, timeout_seconds: 30, fee_limit_sat: '5' },
      },
      (m) => m.some((x) => (x.result as { status: string } | undefined)?.status === 'IN_FLIGHT'),
    );
    await paying;
    await waitUntil(async () => (await rest(devnet.nodes.ferry, 'GET', `/v1/invoice/${hash}`)).body.state === 'ACCEPTED');
    const before = {
      nodes: devnet.nodes,
      alice: await localBalanceSat(devnet.nodes.alice),
      bob: await localBalanceSat(devnet.nodes.bob),
      channels: (await rest(devnet.nodes.ferry, 'GET', '/v1/channels')).body,
    };
    await devnet.close();

    devnet = await startLightningDevnet({ dataDir, chain: new ClockChain(100, `${dataDir}/clock.json`) });
    started.push(devnet);
    assert.deepEqual(devnet.nodes, before.nodes); // same keys, macaroons and (free again) ports
    assert.equal(await localBalanceSat(devnet.nodes.alice), before.alice);
    assert.equal(await localBalanceSat(devnet.nodes.bob), before.bob);
    assert.deepEqual((await rest(devnet.nodes.ferry, 'GET', '/v1/channels')).body, before.channels);
    assert.equal((await rest(devnet.nodes.ferry, 'GET', `/v1/invoice/${hash}`)).body.state, 'ACCEPTED');

    const tracking = readStream(
      `${devnet.nodes.bob.restUrl}/v2/router/track/${b64url(hash)}`,
      { macaroon: devnet.nodes.bob.macaroon },
      (m) => m.some((x) => (x.result as { status: string }).status === 'SUCCEEDED'),
    );
    await rest(devnet.nodes.ferry, 'POST', '/v2/invoices/settle', { preimage: b64(preimage) });
    const tracked = await tracking;
    assert.equal((tracked.messages.at(-1)!.result as { payment_preimage: string }).payment_preimage, preimage);
    assert.equal(await localBalanceSat(devnet.nodes.bob), before.bob);
    const { body: ferryInvoice } = await rest(devnet.nodes.ferry, 'GET', `/v1/invoice/${hash}`);
    assert.equal(ferryInvoice.state, 'SETTLED');
    assert.equal(ferryInvoice.amt_paid_sat, '10000');
  });
});
