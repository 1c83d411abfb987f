// Ferry's client of the hold plugin's gRPC (mTLS) against the devnet's CLN node, which serves that interface over
// the same network model as its clnrest face: invoices carry what Ferry asked for, Track sees alice's payment
// held and then settled, cancelling fails her payment back, strangers are refused, and onion messages hooked on
// the node reach Ferry's handler and its answer decides the hook.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { ClockChain, startLightningDevnet, type ClnNodeInfo, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { onionHooksOf } from '@ferry/devnet/lightning/clnrest/onion-hooks.js';
import { ensureHoldTls, holdTlsDir } from '@ferry/devnet/lightning/clnrest/hold-tls.js';
import { startHoldGrpcServer } from '@ferry/devnet/lightning/clnrest/hold-grpc.js';
import { HoldOnionMessages } from '../../src/lightning/cln/hold/onion-messages.ts';
import { ClnBackend, LndRestClient } from '../../src/lightning/index.ts';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { HoldGrpcClient } from '../../src/lightning/cln/hold/client.ts';
import { readHoldTls } from '../../src/lightning/cln/hold/credentials.ts';
import { HoldService, type HoldState } from '../../src/lightning/cln/hold/proto.ts';
import type { HeldOnionMessage } from '@ferry/sdk/lightning/onion-message-hook.js';
import { freshDir, localBalanceSat, waitUntil } from './helpers.ts';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const newPreimage = (): { preimage: string; hash: string } => {
  const preimage = randomBytes(32).toString('hex');
  return { preimage, hash: sha256(preimage) };
};

const ONION_ANSWER_MS = 1_500;

describe("the hold plugin's gRPC on the devnet's CLN node", () => {
  let dataDir: string;
  let devnet: LightningDevnet;
  let chain: ClockChain;
  let node: ClnNodeInfo;
  let hold: HoldGrpcClient;
  let cln: ClnBackend;
  let alice: LndRestClient;

  before(async () => {
    dataDir = freshDir();
    chain = new ClockChain(200);
    devnet = await startLightningDevnet({ dataDir, chain, clnNodes: ['cln'], holdOnionAnswerMs: ONION_ANSWER_MS });
    node = devnet.cln.cln;
    assert.ok(node.hold, 'devnet.json names the gRPC and its certificates');
    hold = new HoldGrpcClient({ url: node.hold.grpcUrl, tls: readHoldTls({ certDir: node.hold.certDir }) });
    cln = new ClnBackend({ url: node.restUrl, rune: node.rune, pollMs: 50, hold: { url: node.hold.grpcUrl, tls: readHoldTls(node.hold) } });
    alice = new LndRestClient({ url: devnet.nodes.alice.restUrl, macaroon: devnet.nodes.alice.macaroon });
  });

  after(async () => {
    hold?.close();
    cln?.close();
    await devnet?.close();
  });

  test('Invoice carries the memo, expiry and CLTV delta asked for (or the description hash); GetInfo answers', async () => {
    assert.match((await hold.getInfo()).version, /^v\d+\.\d+\.\d+/);
    const { hash } = newPreimage();
    const { paymentRequest } = await cln.createHoldInvoice({ paymentHash: hash, amountMsat: 50_000_000n, memo: 'reverse swap', expirySeconds: 900, cltvExpiry: 44 });
    const decoded = decodeBolt11(paymentRequest);
    assert.equal(decoded.paymentHash, hash);
    assert.equal(decoded.payeeNodeKey, node.pubkey);
    assert.equal(decoded.amountMsat, 50_000_000n);
    assert.equal(decoded.description, 'reverse swap');
    assert.equal(decoded.expiry, 900);
    assert.equal(decoded.minFinalCltvExpiry, 44);

    const descriptionHash = sha256('aa');
    const other = newPreimage();
    const bolt11 = await hold.invoice({ paymentHash: other.hash, amountMsat: 1_000n, descriptionHash, minFinalCltvExpiry: 150 });
    assert.equal(decodeBolt11(bolt11).descriptionHash, descriptionHash);
    assert.equal(decodeBolt11(bolt11).minFinalCltvExpiry, 150);
    const [listed] = await hold.list(other.hash);
    assert.equal(listed.invoice, bolt11);
    assert.equal(listed.state, 'UNPAID');
    assert.equal(Number(listed.min_cltv_expiry), 150);
    await assert.rejects(hold.invoice({ paymentHash: other.hash, amountMsat: 1_000n }), /already exists/, 'one invoice per payment hash');
  });

  test('Track sees alice\'s payment accepted, then paid once Ferry settles; her preimage is Ferry\'s', async () => {
    const { preimage, hash } = newPreimage();
    const { paymentRequest } = await cln.createHoldInvoice({ paymentHash: hash, amountMsat: 120_000_000n, cltvExpiry: 30 });
    const tracked: HoldState[] = [];
    const track = hold.track(hash, (state) => tracked.push(state));
    const followed: string[] = [];
    const sub = cln.subscribeInvoice(hash, (update) => followed.push(update.state));
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);

    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(() => tracked.includes('ACCEPTED'));
    await waitUntil(() => followed.includes('ACCEPTED'));
    const accepted = await cln.lookupInvoice(hash);
    assert.equal(accepted?.amountPaidMsat, 120_000_000n);
    assert.deepEqual(accepted?.htlcExpiryHeights, [(await chain.height()) + 30]);
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore - 120_000, 'held, not yet paid');

    await cln.settleHoldInvoice(preimage);
    await cln.settleHoldInvoice(preimage); // a replayed effect is harmless
    const result = await paying;
    assert.equal(result.status, 'SUCCEEDED');
    assert.equal(result.preimage, preimage);
    await waitUntil(() => tracked.includes('PAID'));
    assert.deepEqual(tracked, ['UNPAID', 'ACCEPTED', 'PAID']);
    await sub.done;
    assert.deepEqual(followed, ['OPEN', 'ACCEPTED', 'SETTLED']);
    track.close();
    await track.done;
    const [listed] = await hold.list(hash);
    assert.equal(listed.preimage?.toString('hex'), preimage);
    assert.equal(listed.htlcs.length, 1);
    assert.equal(listed.htlcs[0].state, 'PAID');
  });

  test('Cancel fails alice\'s held payment back to her', async () => {
    const { hash } = newPreimage();
    const { paymentRequest } = await cln.createHoldInvoice({ paymentHash: hash, amountMsat: 70_000_000n });
    const aliceBefore = await localBalanceSat(devnet.nodes.alice);
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await hold.list(hash))[0]?.state === 'ACCEPTED');
    await cln.cancelHoldInvoice(hash);
    await cln.cancelHoldInvoice(hash);
    assert.equal((await paying).status, 'FAILED');
    assert.equal((await hold.list(hash))[0].state, 'CANCELLED');
    assert.equal(await localBalanceSat(devnet.nodes.alice), aliceBefore);
    assert.ok(!(await cln.listPendingInvoices()).some((u) => u.paymentHash === hash));
  });

  test('a client without a certificate of the node\'s CA is refused', async () => {
    const tls = readHoldTls({ certDir: node.hold!.certDir });
    const getInfo = (creds: ReturnType<typeof credentials.createSsl>) => {
      const client = new HoldService(node.hold!.grpcUrl, creds, { 'grpc.ssl_target_name_override': 'hold' });
      return new Promise<unknown>((resolve, reject) => {
        (client as unknown as { GetInfo: (r: object, m: Metadata, o: object, cb: (e: ServiceError | null, r: unknown) => void) => void }).GetInfo(
          {},
          new Metadata(),
          { deadline: new Date(Date.now() + 3_000) },
          (err, res) => (err ? reject(err) : resolve(res)),
        );
      }).finally(() => client.close());
    };
    await assert.rejects(getInfo(credentials.createSsl(tls.ca)), 'no client certificate');
    const stranger = readHoldTls({ certDir: ensureHoldTls(join(dataDir, 'stranger')).certDir });
    await assert.rejects(getInfo(credentials.createSsl(tls.ca, stranger.key, stranger.cert)), 'a certificate another CA signed');
    assert.deepEqual(await getInfo(credentials.createSsl(tls.ca, tls.key, tls.cert)), { version: (await hold.getInfo()).version });
  });

  test("OnionMessages: a hooked message reaches Ferry's handler and its answer decides the hook", async () => {
    const hooks = onionHooksOf(devnet.network, 'cln');
    const message = (id: bigint, invoiceRequest?: Uint8Array): HeldOnionMessage => ({
      id,
      invoiceRequest,
      replyBlindedPath: { firstNodeId: Buffer.alloc(33, 2), firstPathKey: Buffer.alloc(33, 3), hops: [{ blindedNodeId: Buffer.alloc(33, 4), encryptedRecipientData: Buffer.from('cafe', 'hex') }] },
      unknownFields: [{ number: 77n, value: Buffer.from('0102', 'hex') }],
    });
    assert.equal(await hooks.dispatch(message(1n, Buffer.from('01', 'hex'))), 'continue', 'no client connected');

    const stream = cln.onionMessages();
    assert.ok(stream);
    const seen: HeldOnionMessage[] = [];
    let stall = false;
    const stop = stream.onMessage(async (held) => {
      seen.push(held);
      if (stall) await new Promise((resolve) => setTimeout(resolve, ONION_ANSWER_MS * 2));
      return held.invoiceRequest !== undefined ? 'resolve' : 'continue';
    });
    // the stream connects in the background: a message reaches the handler once it is up
    let id = 10n;
    await waitUntil(async () => (await hooks.dispatch(message(id++, Buffer.from('02', 'hex')))) === 'resolve');
    const got = seen.at(-1)!;
    assert.equal(got.id, id - 1n);
    assert.deepEqual(Buffer.from(got.invoiceRequest!), Buffer.from('02', 'hex'));
    assert.deepEqual(Buffer.from(got.replyBlindedPath!.firstNodeId!), Buffer.alloc(33, 2));
    assert.deepEqual(Buffer.from(got.replyBlindedPath!.hops[0].encryptedRecipientData!), Buffer.from('cafe', 'hex'));
    assert.deepEqual(got.unknownFields.map((f) => [f.number, Buffer.from(f.value).toString('hex')]), [[77n, '0102']]);

    assert.equal(await hooks.dispatch(message(100n)), 'continue', 'no invoice request: the handler lets the node go on');
    assert.equal(seen.at(-1)!.id, 100n);

    stall = true;
    const started = Date.now();
    assert.equal(await hooks.dispatch(message(101n, Buffer.from('03', 'hex'))), 'continue', 'no answer in time');
    assert.ok(Date.now() - started >= ONION_ANSWER_MS - 100);
    stall = false;

    stop(); // the stream closes: the node goes on by itself
    await waitUntil(async () => {
      const before = seen.length;
      return (await hooks.dispatch(message(id++, Buffer.from('04', 'hex')))) === 'continue' && seen.length === before;
    });
  });

  test('the onion-message stream comes back by itself when the plugin restarts', async () => {
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const tls = holdTlsDir(node.hold!.certDir);
    const client = new HoldGrpcClient({ url: `127.0.0.1:${free}`, tls: readHoldTls(tls) });
    const errors: Error[] = [];
    const stream = new HoldOnionMessages(client, (error) => errors.push(error));
    const seen: bigint[] = [];
    stream.onMessage((held) => {
      seen.push(held.id);
      return 'resolve';
    });
    const hooks = onionHooksOf(devnet.network, 'cln');
    let id = 1_000n;
    const reaches = () => waitUntil(async () => (await hooks.dispatch({ id: id++, unknownFields: [] })) === 'resolve', 10_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing listens yet: the stream fails and retries
      assert.ok(errors.length > 0, 'a failed connection is reported, not thrown');
      let plugin = await startHoldGrpcServer(devnet.network, 'cln', '127.0.0.1', free, { tls });
      await reaches();
      await plugin.close(); // the plugin goes away with the stream open
      assert.equal(await hooks.dispatch({ id: id++, unknownFields: [] }), 'continue');
      plugin = await startHoldGrpcServer(devnet.network, 'cln', '127.0.0.1', free, { tls });
      const before = seen.length;
      await reaches();
      assert.ok(seen.length > before, 'the handler answers again after the restart');
      await plugin.close();
    } finally {
      stream.stop();
      client.close();
    }
  });

  test('a restarted devnet keeps its gRPC port and certificates: a client configured once connects again', async () => {
    const { grpcUrl, caCert } = node.hold!;
    const ca = readFileSync(caCert, 'utf8');
    await devnet.close();
    devnet = await startLightningDevnet({ dataDir, chain, clnNodes: ['cln'] });
    assert.equal(devnet.cln.cln.hold?.grpcUrl, grpcUrl);
    assert.equal(readFileSync(devnet.cln.cln.hold!.caCert, 'utf8'), ca);
    const again = new HoldGrpcClient({ url: grpcUrl, tls: readHoldTls({ certDir: node.hold!.certDir }) }); // Ferry restarted with the same config
    try {
      assert.match((await again.getInfo()).version, /devnet/);
    } finally {
      again.close();
    }
  });
});
