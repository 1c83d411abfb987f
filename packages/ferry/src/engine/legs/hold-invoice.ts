// The hold invoice leg: create the hold invoice on the operator's node, follow each unpaid one until it is paid,
// cancelled or expired, settle and cancel; and what it asks of the server lockup it pays for (lock only while the
// payment is held long enough; never refund while the preimage can still settle it). One ListInvoices of the node's pending invoices per poll serves every swap, so the node
// sees O(1) calls however many swaps wait; only an invoice that left the pending list is looked up, to learn
// whether it was settled, cancelled or expired. A few swaps also get a subscription, for a quick lockup.
// A gasless swap's gas invoice is followed the same way, as a second entry of the swap (`gas.accepted`).
import type { EffectRecord } from '../../db/index.ts';
import type { InvoiceUpdate, LightningBackend, Subscription } from '../../lightning/backend.ts';
import { SwapStatus as S } from '@ferry/sdk/swaps/status.js';
import { legAnyChain, serverLockupOf } from './lockup-leg.ts';
import { lightningBlocksFor } from '../block-time.ts';
import { pairOfSwap, swapLightning, type EngineContext } from '../context.ts';
import type { ServerLockupHooks } from './server-lockup.ts';
import { reverseData } from '../data.ts';
import { PermanentEffectError } from '../effects.ts';

/** Which of a swap's hold invoices: the one the swap is for, or a gasless swap's gas invoice. */
export type HoldInvoiceKind = 'invoice' | 'gas';

const keyOf = (swapId: string, kind: HoldInvoiceKind): string => (kind === 'gas' ? `${swapId}/gas` : swapId);

interface Followed {
  swapId: string;
  kind: HoldInvoiceKind;
  paymentHash: string;
  expiresAt: number;
  subscription?: Subscription;
}

const RESUBSCRIBE_MS = 1_000;
// Open streams the node is asked to hold at most; the poll covers every swap beyond them.
export const INVOICE_SUBSCRIPTION_CAP = 50;

export class InvoiceWatch {
  private readonly followed = new Map<string, Followed>();
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private pollAgain = false;
  private stopped = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly lightning: LightningBackend,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.poll(), this.ctx.settings.invoicePollMs);
    this.timer.unref();
    // Swaps registered before the start (all of them, after a restart) are checked at once, in one poll.
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const key of [...this.followed.keys()]) this.unwatchKey(key);
  }

  watch(swapId: string, paymentHash: string, expiresAt: number, kind: HoldInvoiceKind = 'invoice'): void {
    const key = keyOf(swapId, kind);
    if (this.followed.has(key) || this.stopped) return;
    this.followed.set(key, { swapId, kind, paymentHash, expiresAt });
    // A new invoice is open; one beyond the cap waits for the next poll, which covers it with the others.
    if (this.subscriptions() < INVOICE_SUBSCRIPTION_CAP) this.subscribe(key);
  }

  /** Stops following every hold invoice of the swap. */
  unwatch(swapId: string): void {
    this.unwatchKey(keyOf(swapId, 'invoice'));
    this.unwatchKey(keyOf(swapId, 'gas'));
  }

  private unwatchKey(key: string): void {
    const entry = this.followed.get(key);
    if (entry === undefined) return;
    entry.subscription?.close();
    this.followed.delete(key);
    if (entry.subscription !== undefined && !this.stopped) this.promote();
  }

  /** Checks every followed invoice now; a poll already running is followed by one more. */
  async poll(): Promise<void> {
    if (this.polling !== undefined) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      try {
        do {
          this.pollAgain = false;
          await this.checkAll();
        } while (this.pollAgain && !this.stopped);
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  private async checkAll(): Promise<void> {
    if (this.followed.size === 0) return;
    let pending: Map<string, InvoiceUpdate>;
    try {
      pending = new Map((await this.lightning.listPendingInvoices()).map((u) => [u.paymentHash, u]));
    } catch (error) {
      this.ctx.logger.warn('pending invoice list failed', { error: String(error) });
      return;
    }
    for (const [key, entry] of [...this.followed]) {
      const update = pending.get(entry.paymentHash);
      if (update !== undefined) await this.handle(key, update);
      else await this.check(key);
    }
  }

  private subscriptions(): number {
    let open = 0;
    for (const entry of this.followed.values()) if (entry.subscription !== undefined) open++;
    return open;
  }

  // A freed stream goes to the longest-waiting swap without one.
  private promote(): void {
    for (const [key, entry] of this.followed) {
      if (entry.subscription === undefined) {
        this.subscribe(key);
        return;
      }
    }
  }

  private subscribe(key: string): void {
    const entry = this.followed.get(key);
    if (entry === undefined || this.stopped) return;
    const subscription = this.lightning.subscribeInvoice(entry.paymentHash, (update) => void this.handle(key, update));
    entry.subscription = subscription;
    const again = () => {
      if (this.followed.get(key)?.subscription !== subscription || this.stopped) return;
      setTimeout(() => {
        if (this.followed.get(key)?.subscription === subscription) this.subscribe(key);
      }, RESUBSCRIBE_MS).unref();
    };
    subscription.done.then(again, (error: unknown) => {
      this.ctx.logger.debug('invoice subscription ended', { swap: entry.swapId, error: String(error) });
      again();
    });
  }

  // For an invoice no longer pending: the lookup says whether it was settled, cancelled or expired.
  private async check(key: string): Promise<void> {
    const entry = this.followed.get(key);
    if (entry === undefined) return;
    try {
      const update = await this.lightning.lookupInvoice(entry.paymentHash);
      if (update !== undefined) await this.handle(key, update);
    } catch (error) {
      this.ctx.logger.warn('invoice lookup failed', { swap: entry.swapId, error: String(error) });
    }
  }

  private async handle(key: string, update: InvoiceUpdate): Promise<void> {
    const entry = this.followed.get(key);
    if (entry === undefined) return;
    const { swapId, kind } = entry;
    const expired = update.state === 'CANCELED' || (update.state === 'OPEN' && Date.now() / 1000 >= entry.expiresAt);
    if (update.state === 'SETTLED') this.unwatchKey(key);
    if (update.state !== 'ACCEPTED' && !expired) return;
    try {
      // Either invoice expiring unpaid expires the swap (both are cancelled).
      await this.ctx.swaps.dispatch(
        swapId,
        update.state !== 'ACCEPTED'
          ? { type: 'invoice.expired' }
          : kind === 'gas'
            ? { type: 'gas.accepted' }
            : { type: 'invoice.accepted', data: { htlcExpiryHeights: update.htlcExpiryHeights } },
      );
      // Only once the event is stored: until then the next poll delivers it again.
      this.unwatchKey(key);
    } catch (error) {
      this.ctx.logger.error('invoice update not applied', { swap: swapId, kind, state: update.state, error: String(error) });
    }
  }
}

/** settleInvoice: idempotent at the node; then the swap is invoice.settled. */
export async function settleInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  const { preimage } = reverseData(swap);
  if (swap.status === S.InvoiceSettled || preimage === undefined) return;
  try {
    await swapLightning(ctx, swap).settleHoldInvoice(preimage);
  } catch (error) {
    if (/canceled|cancelled/i.test((error as Error).message)) {
      throw new PermanentEffectError(`hold invoice was cancelled before it could be settled: ${(error as Error).message}`);
    }
    throw error;
  }
  await ctx.swaps.dispatch(swap.id, { type: 'settlement.done' });
}

/** cancelInvoice: gives the payer their HTLC back (and a gas invoice's, unless Ferry settled it); idempotent at the node. */
export async function cancelInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  const gas = reverseData(swap).gas;
  if (gas !== undefined) {
    try {
      await swapLightning(ctx, swap).cancelHoldInvoice(gas.preimageHash);
    } catch (error) {
      // Settled: Ferry's lock sent the gas, so that payment is Ferry's whatever becomes of the swap.
      if (!/settled/i.test((error as Error).message)) throw error;
    }
  }
  try {
    await swapLightning(ctx, swap).cancelHoldInvoice(swap.preimageHash);
  } catch (error) {
    if (/settled/i.test((error as Error).message)) throw new PermanentEffectError(`hold invoice is settled: ${(error as Error).message}`);
    throw error;
  }
}

/** settleGasInvoice: Ferry's lock has sent the gas to the claim address; the gas invoice is settled with Ferry's preimage. */
export async function settleGasInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  const gas = reverseData(swap).gas;
  if (gas === undefined) return;
  await swapLightning(ctx, swap).settleHoldInvoice(gas.preimage);
}

/** What the hold invoice asks of the server lockup it pays for. */
export const holdInvoiceLockupHooks: ServerLockupHooks = {
  /** Lock only for a held payment whose HTLCs outlive the swap timeout, while enough blocks remain. */
  async lockRefusal(ctx, swap) {
    const invoice = await swapLightning(ctx, swap).lookupInvoice(swap.preimageHash);
    if (invoice?.state !== 'ACCEPTED') return `hold invoice is ${invoice?.state ?? 'unknown'}, not accepted`;
    const gas = reverseData(swap).gas;
    if (gas !== undefined) {
      const gasInvoice = await swapLightning(ctx, swap).lookupInvoice(gas.preimageHash);
      if (gasInvoice?.state !== 'ACCEPTED') return `gas invoice is ${gasInvoice?.state ?? 'unknown'}, not accepted`;
    }
    const timeout = swap.timeoutBlockHeight!;
    const chain = legAnyChain(ctx, serverLockupOf(swap));
    const blocksLeft = timeout - (await chain.height());
    // HTLC expiries count blocks of Lightning's own chain; the swap's timeout counts the lockup chain's.
    const lightningChain = ctx.chains.get(swap.pair.split('/')[1]);
    if (lightningChain === undefined) return 'the Lightning currency has no chain to read its height from';
    const lightningBlocksLeft = Math.min(...invoice.htlcExpiryHeights) - (await lightningChain.height());
    if (invoice.htlcExpiryHeights.length === 0 || lightningBlocksLeft < lightningBlocksFor(chain, blocksLeft) + ctx.settings.minHtlcMarginBlocks) {
      return 'the held payment expires too close to the swap timeout';
    }
    const minBlocks = ctx.settings.minReverseLockupBlocks ?? Math.ceil(pairOfSwap(ctx, swap).timeouts.reverse / 2);
    if (blocksLeft < minBlocks) return 'too close to the swap timeout to lock';
    return undefined;
  },
  /**
   * The client handed over the preimage before the timeout: once the held payment settles it has paid, and the
   * lockup is its. Refunding while settling is still possible would take both sides; retried until settled.
   */
  async beforeRefund(ctx, swap) {
    if (reverseData(swap).preimage === undefined) return;
    const invoice = await swapLightning(ctx, swap).lookupInvoice(swap.preimageHash);
    if (invoice?.state === 'ACCEPTED' || invoice?.state === 'SETTLED') {
      throw new Error(`not refunding: the preimage is known and the hold invoice is ${invoice.state}`);
    }
  },
};
