// The client SDK against a live Ferry (devnet, engine, API) over real sockets: whole reverse and submarine
// swaps on BTC and on L-BTC with their effects on each chain and on Lightning, refunds of failed swaps, refusal
// of a lying service before any coin moves, and status following through a network that drops and refuses
// WebSockets.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { FileClientStore, SwapClient, VerificationError, followSwap, swapChain, type StatusUpdate } from '@ferry/sdk/client/node.js';
import { FlakyProxy, TamperingProxy, followToEnd, startService, temporaryDir, type Service } from './support.ts';

describe('client SDK against Ferry', () => {
  let service: Service;
  let client: SwapClient;
  let store: FileClientStore;

  before(async () => {
    service = await startService();
    store = new FileClientStore(temporaryDir('ferry-client-store-'));
    client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store });
  });
  after(async () => {
    await service?.close();
  });

  const follow = (record: Parameters<typeof followSwap>[1], options: { destination: string; cooperative?: boolean }) => followToEnd(client, record, options);

  for (const currency of ['BTC', 'L-BTC'] as const) {
    const chain = () => service.chains[currency];

    test(`${currency} reverse swap: alice pays the invoice, the client claims through the key path into the user wallet`, async () => {
      const aliceBefore = await service.channelBalance('alice');
      const balanceBefore = await chain().userBalance();
      const destination = await chain().user.getNewAddress();
      const record = await client.createReverse({ invoiceAmount: 50_000, currency });
      assert.equal(store.load(record.id).preimage, record.preimage, 'the preimage is stored before the invoice is shown');

      const following = follow(record, { destination });
      const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
      const { result, events } = await following;
      assert.equal(result.success, true, result.message);
      assert.equal((await payment).status, 'SUCCEEDED');
      const claimed = events.find((e) => e.type === 'claimed');
      assert.ok(claimed && claimed.type === 'claimed');
      assert.equal(claimed.claim.path, 'key');
      assert.equal(Number(claimed.claim.amount + claimed.claim.fee), record.onchainAmount);
      assert.ok(claimed.claim.fee > 0n && claimed.claim.fee < 300n, `a claim fee of ${claimed.claim.fee} sat`);

      await chain().mine();
      const tx = await chain().node.getRawTransaction(claimed.claim.txid);
      assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed');
      assert.equal(tx.vin[0].txinwitness?.length, 1, 'a key-path spend: one Schnorr signature');
      const coin = (await chain().user.listUnspent(1)).find((u) => u.txid === claimed.claim.txid);
      assert.equal(Math.round(coin!.amount * 1e8), Number(claimed.claim.amount), 'the claim is a coin of the user wallet');
      assert.equal((await chain().userBalance()) - balanceBefore, claimed.claim.amount);
      assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);

      const stored = store.load(record.id);
      assert.equal(stored.status, 'invoice.settled');
      assert.deepEqual(stored.history.map((h) => h.status), ['swap.created', 'transaction.mempool', 'invoice.settled']);
      assert.equal(stored.type === 'reverse' && stored.claim?.txid, claimed.claim.txid);
    });

    test(`${currency} reverse swap without the service cooperating: script-path claim with the preimage, and the invoice still settles`, async () => {
      const destination = await chain().user.getNewAddress();
      const record = await client.createReverse({ invoiceAmount: 20_000, currency });
      const following = follow(record, { destination, cooperative: false });
      const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
      const { result, events } = await following;
      assert.equal(result.success, true, result.message);
      assert.equal((await payment).status, 'SUCCEEDED');
      const claimed = events.find((e) => e.type === 'claimed');
      assert.ok(claimed && claimed.type === 'claimed' && claimed.claim.path === 'script');
      const tx = await chain().node.getRawTransaction(claimed.claim.txid);
      const witness = tx.vin[0].txinwitness!;
      assert.equal(witness.length, 4, 'signature, preimage, claim script, control block');
      assert.equal(witness[1], record.preimage);
      await chain().mine();
      assert.ok(((await chain().node.getRawTransaction(claimed.claim.txid)).confirmations ?? 0) >= 1);
    });

    test(`${currency} submarine swap: the client co-signs only after the preimage proves payment; alice is paid, the lockup is claimed`, async () => {
      const aliceBefore = await service.channelBalance('alice');
      const { invoice, paymentHash } = await service.invoice('alice', 30_000);
      const record = await client.createSubmarine({ invoice, currency });
      const pair = (await client.api.submarinePairs())[currency].BTC;
      assert.equal(record.expectedAmount, 30_000 + 30 + pair.fees.minerFees);
      assert.ok(record.refundFiles, 'refund files are written at creation');

      const following = follow(record, { destination: await chain().user.getNewAddress() });
      const lockupTxid = await chain().user.sendToAddress(record.lockupAddress, satToBtc(record.expectedAmount));
      await chain().mine();
      const { result, events } = await following;
      assert.equal(result.success, true, result.message);
      const cosigned = events.find((e) => e.type === 'cosigned');
      assert.ok(cosigned && cosigned.type === 'cosigned');
      assert.equal(hex.encode(sha256(hex.decode(cosigned.preimage))), paymentHash);
      assert.equal((await service.channelBalance('alice')) - aliceBefore, 30_000);

      const stored = store.load(record.id);
      assert.equal(stored.type === 'submarine' && stored.preimage, cosigned.preimage);
      assert.equal(stored.lockup?.txid, lockupTxid);
      const script = swapChain(currency).decodeAddress(record.lockupAddress, 'regtest').script;
      const vout = (await chain().node.getRawTransaction(lockupTxid)).vout.find((o) => o.scriptPubKey.hex === hex.encode(script))!.n;
      assert.equal(await chain().node.getTxOut(lockupTxid, vout, true), null, 'the service spent the lockup');
    });

    test(`an underpaid ${currency} submarine swap fails and is refunded through the key path at once, without waiting for the timeout`, async () => {
      const { invoice } = await service.invoice('alice', 40_000);
      const record = await client.createSubmarine({ invoice, currency });
      const destination = await chain().user.getNewAddress();
      const following = follow(record, { destination });
      const lockupTxid = await chain().user.sendToAddress(record.lockupAddress, satToBtc(15_000));
      await chain().mine();
      const { result, events } = await following;
      assert.equal(result.success, false);
      assert.equal(result.status, 'transaction.lockupFailed');
      const refunded = events.find((e) => e.type === 'refunded');
      assert.ok(refunded && refunded.type === 'refunded', events.map((e) => e.type).join(', '));
      assert.equal(refunded.refund.path, 'key');
      assert.equal(refunded.refund.lockTime, 0);
      await chain().mine();
      const tx = await chain().node.getRawTransaction(refunded.refund.txid);
      assert.ok((tx.confirmations ?? 0) >= 1);
      assert.equal(tx.vin[0].txid, lockupTxid);
      assert.equal(Number(refunded.refund.amount) + Number(refunded.refund.fee), 15_000);
      const coin = (await chain().user.listUnspent(1)).find((u) => u.txid === refunded.refund.txid);
      assert.ok(coin, 'the refund is a confirmed coin of the user wallet');
      assert.equal(Math.round(coin.amount * 1e8), Number(refunded.refund.amount));
      const stored = store.load(record.id);
      assert.equal(stored.type === 'submarine' && stored.refund?.txid, refunded.refund.txid);
    });
  }

  test('a lying service is refused before anything is funded or paid, and nothing is kept', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const liarStore = new FileClientStore(temporaryDir('ferry-client-liar-'));
    const viaProxy = new SwapClient({ serviceUrl: proxy.url, network: 'regtest', store: liarStore });
    try {
      // First an honest pass through the same proxy: the proxy itself changes nothing.
      const honest = await viaProxy.createReverse({ invoiceAmount: 25_000 });
      assert.equal(liarStore.list().length, 1);

      // A submarine answer with an address of the service's choosing.
      const { invoice } = await service.invoice('alice', 30_000);
      const stranger = await service.user.getNewAddress('', 'bech32m');
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/submarine' ? { ...(body as object), address: stranger } : body);
      await assert.rejects(viaProxy.createSubmarine({ invoice }), (error: unknown) => {
        assert.ok(error instanceof VerificationError);
        assert.match(error.message, /lockup address .* does not commit to the swap tree and both keys/);
        return true;
      });

      // A reverse answer whose invoice pays someone else's hash (a real invoice of alice's, for the same amount).
      const foreign = await service.invoice('alice', 25_000);
      const aliceBefore = await service.channelBalance('alice');
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/reverse' ? { ...(body as object), invoice: foreign.invoice } : body);
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), (error: unknown) => {
        assert.ok(error instanceof VerificationError);
        assert.match(error.message, /is not the hash of our preimage/);
        return true;
      });
      assert.deepEqual(liarStore.list().map((r) => r.id), [honest.id], 'refused swaps are not stored');
      assert.equal(await service.channelBalance('alice'), aliceBefore);
    } finally {
      await proxy.close();
    }
  });

  test('status: polling while WebSockets are refused, then the socket; after a cut it reconnects and resubscribes', async () => {
    const proxy = await FlakyProxy.start(service.apiUrl);
    proxy.refuseUpgrades = true;
    const stream = client.statusStream({ pollIntervalMs: 100, reconnectMinMs: 50, reconnectMaxMs: 200 });
    const heard: StatusUpdate[] = [];
    const states: string[] = [];
    const viaProxy = new SwapClient({ serviceUrl: proxy.url, network: 'regtest' });
    const flakyStream = viaProxy.statusStream({ pollIntervalMs: 100, reconnectMinMs: 50, reconnectMaxMs: 200 });
    flakyStream.on('update', (update) => heard.push(update));
    flakyStream.on('connection', (state) => states.push(state));
    try {
      const { invoice } = await service.invoice('alice', 12_000);
      const record = await client.createSubmarine({ invoice });
      flakyStream.subscribe(record.id);
      await flakyStream.waitFor(record.id, (u) => u.status === 'invoice.set', 10_000);
      assert.notEqual(flakyStream.connection, 'open', 'heard by polling, the socket is refused');

      const inMempool = flakyStream.waitFor(record.id, (u) => u.status === 'transaction.mempool', 10_000);
      await service.user.sendToAddress(record.lockupAddress, satToBtc(record.expectedAmount));
      await inMempool;

      proxy.refuseUpgrades = false;
      await until(() => flakyStream.connection === 'open', 'the socket opens once upgrades pass');
      const opensBefore = states.filter((s) => s === 'open').length;
      proxy.cut();
      await until(() => states.filter((s) => s === 'open').length > opensBefore, 'the socket reconnects after the cut');

      // Only the socket can carry this update now (polling stops while it is open): it was resubscribed.
      const confirming = flakyStream.waitFor(record.id, (u) => u.status === 'transaction.confirmed', 10_000);
      await service.mine();
      const confirmed = await confirming;
      assert.equal(flakyStream.connection, 'open');
      assert.equal(confirmed.id, record.id);
      const statuses = heard.map((u) => u.status);
      assert.deepEqual(statuses.slice(0, 3), ['invoice.set', 'transaction.mempool', 'transaction.confirmed']);
      assert.equal(new Set(statuses).size, statuses.length, 'each status once');
      // Let the swap finish so the engine is quiet for the next test (the co-signature is the client's part).
      const done = await followSwap(client, store.load(record.id), { stream, destination: async () => service.user.getNewAddress() });
      assert.equal(done.success, true, done.message);
    } finally {
      flakyStream.close();
      stream.close();
      await proxy.close();
    }
  });

  test('status: the WebSocket class given to the stream is the one it connects with (a browser page passes its own)', async () => {
    const made: string[] = [];
    class CountingWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        made.push(url);
      }
    }
    const stream = client.statusStream({ WebSocket: CountingWebSocket });
    const opened = new Promise<void>((resolve) => stream.on('connection', (state) => state === 'open' && resolve()));
    try {
      stream.subscribe('NoSuchSwap1');
      await opened;
      assert.deepEqual(made, [service.apiUrl.replace(/^http/, 'ws') + '/v2/ws']);
    } finally {
      stream.close();
    }
  });
});

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
