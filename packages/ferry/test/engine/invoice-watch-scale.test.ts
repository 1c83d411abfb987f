// Hundreds of unpaid reverse swaps must not cost the Lightning node hundreds of watches and lookups per poll:
// one pending-invoice list follows them all, a lookup is spent only on an invoice that left the pending list, and
// the open invoice subscriptions (LND streams, Core Lightning polling loops) stay under a fixed cap. Counted where
// the engine asks Ferry's node, so the bound holds whichever kind of node the tests run on (FERRY_TEST_LIGHTNING).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { INVOICE_SUBSCRIPTION_CAP } from '../../src/engine/legs/hold-invoice.ts';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

const SWAPS = 200;

/**
 * Ferry's node as the engine sees it, counting the engine's pending-invoice lists and lookups and its open invoice
 * subscriptions. The node's own inner calls (a CLN subscription polls its invoice) go to the node, uncounted.
 */
function countedNode(): { backend: LightningBackend; node?: LightningBackend; lists: number; lookedUp: string[]; open: number; reset(): void } {
  const counts = {
    backend: undefined as unknown as LightningBackend,
    node: undefined as LightningBackend | undefined,
    lists: 0,
    lookedUp: [] as string[],
    open: 0,
    reset: () => Object.assign(counts, { lists: 0, lookedUp: [] }),
  };
  const node = () => counts.node!;
  const counted: Partial<LightningBackend> = {
    listPendingInvoices: () => {
      counts.lists++;
      return node().listPendingInvoices();
    },
    lookupInvoice: (paymentHash) => {
      counts.lookedUp.push(paymentHash);
      return node().lookupInvoice(paymentHash);
    },
    subscribeInvoice: (paymentHash, onUpdate) => {
      const subscription = node().subscribeInvoice(paymentHash, onUpdate);
      counts.open++;
      let open = true;
      const ended = () => {
        if (open) counts.open--;
        open = false;
      };
      subscription.done.then(ended, ended);
      return {
        close: () => {
          ended();
          subscription.close();
        },
        done: subscription.done,
      };
    },
  };
  counts.backend = new Proxy({} as LightningBackend, {
    get(_, key: keyof LightningBackend) {
      if (key in counted) return counted[key];
      const value = node()[key];
      return typeof value === 'function' ? value.bind(node()) : value;
    },
  });
  return counts;
}

describe('invoice watching at scale', () => {
  let world: World;
  const calls = countedNode();

  before(async () => {
    // Polls only when the test asks, so every node call can be attributed.
    world = await startWorld({ invoicePollMs: 3_600_000, lightning: calls.backend });
    calls.node = world.ferryNode;
  });
  after(async () => {
    await world?.close();
  });

  test(`${SWAPS} pending reverse swaps are followed with one list call per poll and a bounded number of streams`, async () => {
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
    assert.ok(calls.open <= INVOICE_SUBSCRIPTION_CAP, `${calls.open} invoice subscriptions open`);
    assert.ok(calls.open > 0, 'the first swaps keep a subscription for a quick lockup');

    calls.reset();
    await world.engine.pollInvoices();
    assert.deepEqual({ lists: calls.lists, lookedUp: calls.lookedUp }, { lists: 1, lookedUp: [] });

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
    // (The paid swap's lockup reads its invoice once more before locking, racing the poll: that read is the lockup's.)
    const byPoll = calls.lookedUp.filter((hash) => hash !== paid.preimageHash);
    assert.deepEqual({ lists: calls.lists, lookedUp: byPoll }, { lists: 1, lookedUp: [cancelled.preimageHash] });
    await world.waitForStatus(paid.id, 'transaction.mempool');
    await world.waitForStatus(cancelled.id, 'invoice.expired');

    // Both left the watch: the next poll is again a single call for the remaining swaps.
    calls.reset();
    await world.engine.pollInvoices();
    assert.deepEqual({ lists: calls.lists, lookedUp: calls.lookedUp }, { lists: 1, lookedUp: [] });
    assert.ok(calls.open <= INVOICE_SUBSCRIPTION_CAP, `${calls.open} invoice subscriptions open`);

    // The held payment is given back as the test ends; it plays no further part.
    await world.ferryNode.cancelHoldInvoice(paid.preimageHash).catch(() => {});
    await payment.catch(() => {});
  });
});
