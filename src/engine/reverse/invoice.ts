// The hold invoice side of reverse swaps: follow each unpaid invoice (subscription, with lookups as a backstop
// for a dropped stream or a lazily expiring node) until it is paid, cancelled or expired; settle and cancel.
import type { EffectRecord } from '../../db/index.ts';
import type { InvoiceUpdate, Subscription } from '../../lightning/backend.ts';
import { SwapStatus as S } from '../../swaps/status.ts';
import type { EngineContext } from '../context.ts';
import { reverseData } from '../data.ts';
import { PermanentEffectError } from '../effects.ts';

interface Followed {
  paymentHash: string;
  expiresAt: number;
  subscription?: Subscription;
}

const RESUBSCRIBE_MS = 1_000;

export class InvoiceWatch {
  private readonly followed = new Map<string, Followed>();
  private timer?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;

  constructor(private readonly ctx: EngineContext) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.poll(), this.ctx.settings.invoicePollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const id of [...this.followed.keys()]) this.unwatch(id);
  }

  watch(swapId: string, paymentHash: string, expiresAt: number): void {
    if (this.followed.has(swapId) || this.stopped) return;
    this.followed.set(swapId, { paymentHash, expiresAt });
    this.subscribe(swapId);
    void this.check(swapId);
  }

  unwatch(swapId: string): void {
    this.followed.get(swapId)?.subscription?.close();
    this.followed.delete(swapId);
  }

  /** Looks every followed invoice up now. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const swapId of [...this.followed.keys()]) await this.check(swapId);
    } finally {
      this.polling = false;
    }
  }

  private subscribe(swapId: string): void {
    const entry = this.followed.get(swapId);
    if (entry === undefined || this.stopped) return;
    const subscription = this.ctx.lightning.subscribeInvoice(entry.paymentHash, (update) => void this.handle(swapId, update));
    entry.subscription = subscription;
    const again = () => {
      if (this.followed.get(swapId)?.subscription !== subscription || this.stopped) return;
      setTimeout(() => this.subscribe(swapId), RESUBSCRIBE_MS).unref();
    };
    subscription.done.then(again, (error: unknown) => {
      this.ctx.logger.debug('invoice subscription ended', { swap: swapId, error: String(error) });
      again();
    });
  }

  private async check(swapId: string): Promise<void> {
    const entry = this.followed.get(swapId);
    if (entry === undefined) return;
    try {
      const update = await this.ctx.lightning.lookupInvoice(entry.paymentHash);
      if (update !== undefined) await this.handle(swapId, update);
    } catch (error) {
      this.ctx.logger.warn('invoice lookup failed', { swap: swapId, error: String(error) });
    }
  }

  private async handle(swapId: string, update: InvoiceUpdate): Promise<void> {
    const entry = this.followed.get(swapId);
    if (entry === undefined) return;
    const expired = update.state === 'CANCELED' || (update.state === 'OPEN' && Date.now() / 1000 >= entry.expiresAt);
    if (update.state === 'SETTLED') this.unwatch(swapId);
    if (update.state !== 'ACCEPTED' && !expired) return;
    try {
      await this.ctx.swaps.dispatch(
        swapId,
        update.state === 'ACCEPTED'
          ? { type: 'invoice.accepted', data: { htlcExpiryHeights: update.htlcExpiryHeights } }
          : { type: 'invoice.expired' },
      );
      // Only once the event is stored: until then the next lookup delivers it again.
      this.unwatch(swapId);
    } catch (error) {
      this.ctx.logger.error('invoice update not applied', { swap: swapId, state: update.state, error: String(error) });
    }
  }
}

/** settleInvoice: idempotent at the node; then the swap is invoice.settled. */
export async function settleInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  const { preimage } = reverseData(swap);
  if (swap.status === S.InvoiceSettled || preimage === undefined) return;
  try {
    await ctx.lightning.settleHoldInvoice(preimage);
  } catch (error) {
    if (/canceled|cancelled/i.test((error as Error).message)) {
      throw new PermanentEffectError(`hold invoice was cancelled before it could be settled: ${(error as Error).message}`);
    }
    throw error;
  }
  await ctx.swaps.dispatch(swap.id, { type: 'settlement.done' });
}

/** cancelInvoice: gives the payer their HTLC back; idempotent at the node. */
export async function cancelInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  try {
    await ctx.lightning.cancelHoldInvoice(swap.preimageHash);
  } catch (error) {
    if (/settled/i.test((error as Error).message)) throw new PermanentEffectError(`hold invoice is settled: ${(error as Error).message}`);
    throw error;
  }
}
