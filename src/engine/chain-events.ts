// Routes the chain watcher's events to the swaps they concern (through the engine's watch index) and fires the
// timeout event of every swap whose timeout block the chain has reached.
import type { LockupEvent, SpendEvent } from '../chains/events.ts';
import type { SwapRecord } from '../db/index.ts';
import { SwapStatus as S, SwapType } from '../swaps/status.ts';
import type { EngineContext } from './context.ts';
import { reverseData } from './data.ts';
import { onReverseLockup } from './reverse/lockup.ts';
import { onReverseSpend } from './reverse/refund.ts';
import { onSubmarineLockup, onSubmarineSpend } from './submarine/chain.ts';

/** Statuses in which a swap may time out (the machines decide whether it does). */
const TIMEOUT_CANDIDATES = [S.Created, S.InvoiceSet, S.TransactionMempool, S.TransactionConfirmed, S.TransactionLockupFailed];

const SUBMARINE_WATCHED: readonly string[] = [
  S.Created,
  S.InvoiceSet,
  S.TransactionMempool,
  S.TransactionConfirmed,
  S.InvoicePending,
  S.InvoicePaid,
  S.TransactionClaimPending,
];
const REVERSE_WATCHED: readonly string[] = [S.Created, S.TransactionMempool, S.TransactionConfirmed, S.TransactionRefunded];

/** Statuses whose swaps may still have chain events the engine must act on. */
export const WATCHED_STATUSES = [...new Set([...SUBMARINE_WATCHED, ...REVERSE_WATCHED])];

export function needsChain(swap: SwapRecord): boolean {
  if (swap.type === SwapType.Submarine) return SUBMARINE_WATCHED.includes(swap.status);
  if (swap.status === S.TransactionRefunded) return reverseData(swap).refundConfirmed !== true;
  return REVERSE_WATCHED.includes(swap.status);
}

/** A handler failing (e.g. a busy database) is retried briefly: the watcher moves on after its handlers return. */
async function withRetries(ctx: EngineContext, what: string, fn: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 3) throw error;
      ctx.logger.warn(`${what} failed, retrying`, { attempt, error: String(error) });
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

export class ChainEventRouter {
  private detach?: () => void;

  constructor(private readonly ctx: EngineContext) {}

  attach(): void {
    this.detach ??= this.ctx.watcher.subscribe({
      lockup: (event) => withRetries(this.ctx, 'lockup handling', () => this.lockup(event)),
      spend: (event) => withRetries(this.ctx, 'spend handling', () => this.spend(event)),
      block: (event) => withRetries(this.ctx, 'timeout check', () => this.timeouts(event.height)),
    });
  }

  stop(): void {
    this.detach?.();
    this.detach = undefined;
  }

  async timeouts(height: number): Promise<void> {
    const due = (await this.ctx.storage.swaps.listByStatus(TIMEOUT_CANDIDATES)).filter(
      (swap) => swap.timeoutBlockHeight !== null && swap.timeoutBlockHeight <= height,
    );
    for (const swap of due) await this.ctx.swaps.dispatch(swap.id, { type: 'timeout', data: { timedOutAtHeight: height } });
  }

  private async lockup(event: LockupEvent): Promise<void> {
    const id = this.ctx.watching.swapOfScript(event.scriptHex);
    const swap = id === undefined ? undefined : await this.ctx.swaps.get(id);
    if (swap === undefined) return;
    if (swap.type === SwapType.Submarine) await onSubmarineLockup(this.ctx, swap, event);
    else await onReverseLockup(this.ctx, swap, event);
  }

  private async spend(event: SpendEvent): Promise<void> {
    const id = this.ctx.watching.swapOfOutpoint(event.outpoint.txid, event.outpoint.vout);
    const swap = id === undefined ? undefined : await this.ctx.swaps.get(id);
    if (swap === undefined) return;
    if (swap.type === SwapType.Submarine) await onSubmarineSpend(this.ctx, swap, event);
    else await onReverseSpend(this.ctx, swap, event);
  }
}
