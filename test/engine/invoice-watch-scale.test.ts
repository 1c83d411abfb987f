// Hundreds of unpaid reverse swaps must not cost the Lightning node hundreds of streams and lookups per poll:
// one ListInvoices follows them all, a lookup is spent only on an invoice that left the pending list, and the
// open invoice subscriptions stay under a fixed cap. Counted on the devnet node itself, behind its REST server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { INVOICE_SUBSCRIPTION_CAP } from '../../src/engine/legs/hold-invoice.ts';
import type { LightningNetwork } from '../../src/devnet/lightning/index.ts';
import { newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

const SWAPS = 200;

/** Counts the devnet node's invoice list and lookup calls, whichever REST route served them. */
function countInvoiceCalls(network: LightningNetwork): { lists: number; lookups: number; reset(): void } {
  const counts = { lists: 0, lookups: 0, reset: () => Object.assign(counts, { lists: 0, lookups: 0 }) };
  const list = network.listInvoices.bind(network);
  const lookup = network.lookupInvoice.bind(network);
  network.listInvoices = (node) => {
    if (node === 'ferry') counts.lists++;
    return list(node);
  };
  network.lookupInvoice = (node, hash) => {
    if (node === 'ferry') counts.lookups++;
    return lookup(node, hash);
  };
  return counts;
}

describe('invoice watching at scale', () => {
  let world: World;

  before(async () => {
    // Polls only when the test asks, so every node call can be attributed.
    world = await startWorld({ invoicePollMs: 3_600_000 });
  });
  after(async () => {
    await world?.close();
  });

  test(`${SWAPS} pending reverse swaps are followed with one list call per poll and a bounded number of streams`, async () => {
    const network = world.devnet.lightning.network;
    const streamsBefore = network.listenerCount('invoice');
    const swaps: { id: string; invoice: string; preimageHash: string }[] = [];
    for (let i = 0; i < SWAPS; i++) {
      const { preimageHash } = newPreimage();
      const created = await world.engine.createReverse({
        from: 'BTC',
        to: 'BTC',
        preimageHash,
        claimPublicKey: hex.encode(newKeyPair().publicKey),
        invoiceAmount: 50_000,
      });
      swaps.push({ id: created.id, invoice: created.invoice, preimageHash });
    }
    // Streams the engine opened reach the node within moments; give them time to, so none escapes the count.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const streams = network.listenerCount('invoice') - streamsBefore;
    assert.ok(streams <= INVOICE_SUBSCRIPTION_CAP, `${streams} invoice streams open`);
    assert.ok(streams > 0, 'the first swaps keep a subscription for a quick lockup');

    const calls = countInvoiceCalls(network);
    await world.engine.pollInvoices();
    assert.deepEqual({ lists: calls.lists, lookups: calls.lookups }, { lists: 1, lookups: 0 });

    // A swap far beyond the subscription cap is paid: the poll alone finds the held payment and locks up.
    const paid = swaps[SWAPS - 10];
    const payment = world.alice.payInvoice({ paymentRequest: paid.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    const deadline = Date.now() + 10_000;
    while ((await world.ferryNode.lookupInvoice(paid.preimageHash))?.state !== 'ACCEPTED') {
      assert.ok(Date.now() < deadline, 'the payment is held');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Another one is cancelled at the node: gone from the pending list, it alone is looked up.
    const cancelled = swaps[SWAPS - 5];
    await world.ferryNode.cancelHoldInvoice(cancelled.preimageHash);
    calls.reset();
    await world.engine.pollInvoices();
    assert.deepEqual({ lists: calls.lists, lookups: calls.lookups }, { lists: 1, lookups: 1 });
    await world.waitForStatus(paid.id, 'transaction.mempool');
    await world.waitForStatus(cancelled.id, 'invoice.expired');

    // Both left the watch: the next poll is again a single call for the remaining swaps.
    calls.reset();
    await world.engine.pollInvoices();
    assert.deepEqual({ lists: calls.lists, lookups: calls.lookups }, { lists: 1, lookups: 0 });
    assert.ok(network.listenerCount('invoice') - streamsBefore <= INVOICE_SUBSCRIPTION_CAP);

    // The held payment is given back as the test ends; it plays no further part.
    await world.ferryNode.cancelHoldInvoice(paid.preimageHash).catch(() => {});
    await payment.catch(() => {});
  });
});
