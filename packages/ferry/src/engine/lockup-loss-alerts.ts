// The operator is told when a user lockup Ferry acted on is lost, when it comes back, and when coins of Ferry's are
// gone with it. Read off the swap's transitions (one place, whichever leg or call applied the event): a lockup.lost
// raises `lockupLost`; a preimage that reaches a swap whose lockup is lost — the user claimed Ferry's lockup (chain
// swap), or Ferry's payment went through (submarine swap) — raises `fundsLost` with the amount; a lockup.found
// raises `lockupFound` and clears both. What an alert becomes is src/alerts' business.
import type { AlertInput } from '../alerts/index.ts';
import type { SwapRecord } from '../db/index.ts';
import type { LockupLoss, MachineEvent } from '../swaps/index.ts';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from './context.ts';
import { serverLockupOf, userLockupOf } from './legs/lockup-leg.ts';

const lossOf = (swap: SwapRecord): LockupLoss | undefined => swap.data.lockupLost as LockupLoss | undefined;
const preimageOf = (swap: SwapRecord): string | undefined => swap.data.preimage as string | undefined;

/** What Ferry loses if the lockup never comes back: its own lockup (chain swap) or the invoice it paid (submarine). */
function moneyAtRisk(swap: SwapRecord): { amount: number; chain: string; what: string } {
  if (swap.type === SwapType.Chain) {
    const leg = serverLockupOf(swap);
    return { amount: leg.lockup?.value ?? leg.amount ?? 0, chain: leg.chain, what: "Ferry's lockup" };
  }
  return { amount: (swap.data.invoiceAmount as number | undefined) ?? 0, chain: swap.pair.split('/')[1], what: 'the invoice Ferry paid' };
}

function raise(ctx: EngineContext, alert: AlertInput): void {
  ctx.alerts.raise(alert).catch((error: unknown) => ctx.logger.error('could not raise an operator alert', { kind: alert.kind, key: alert.key, error: String(error) }));
}

function clear(ctx: EngineContext, kind: AlertInput['kind'], key: string): void {
  ctx.alerts.clear(kind, key).catch((error: unknown) => ctx.logger.error('could not clear an operator alert', { kind, key, error: String(error) }));
}

function fundsLost(ctx: EngineContext, swap: SwapRecord): void {
  const risk = moneyAtRisk(swap);
  const how = swap.type === SwapType.Chain ? 'the user claimed Ferry\'s lockup' : 'Ferry paid the invoice';
  raise(ctx, {
    kind: 'fundsLost',
    severity: 'error',
    key: swap.id,
    swapId: swap.id,
    pair: swap.pair,
    chain: risk.chain,
    amount: risk.amount,
    message: `swap ${swap.id}: ${how} while the user's lockup is lost: ${risk.amount} of ${risk.chain} lost unless the lockup comes back`,
    details: { status: swap.status, lockupLost: lossOf(swap) },
  });
}

/** Called after every committed transition, with the swap before it and the event applied. */
export function lockupLossAlerts(ctx: EngineContext, before: SwapRecord, after: SwapRecord, event: MachineEvent): void {
  const loss = lossOf(after);
  if (event.type === 'lockup.lost' && loss !== undefined && lossOf(before) === undefined) {
    const risk = moneyAtRisk(after);
    const leg = userLockupOf(after);
    raise(ctx, {
      kind: 'lockupLost',
      severity: 'error',
      key: after.id,
      swapId: after.id,
      pair: after.pair,
      chain: leg.chain,
      amount: risk.amount,
      message: `swap ${after.id}: the user lockup ${loss.txid} Ferry acted on is ${loss.reason === 'doubleSpent' ? 'double spent' : 'gone from the chain'} (was ${loss.status}); ${risk.what} is at risk`,
      details: { status: after.status, lockupLost: loss },
    });
    if (preimageOf(after) !== undefined) fundsLost(ctx, after);
    return;
  }
  if (event.type === 'lockup.found' && lossOf(before) !== undefined) {
    raise(ctx, {
      kind: 'lockupFound',
      severity: 'warn',
      key: after.id,
      swapId: after.id,
      pair: after.pair,
      chain: userLockupOf(after).chain,
      message: `swap ${after.id}: the lost user lockup is back on chain; the swap goes on in ${after.status}`,
      details: { status: after.status, lost: lossOf(before) },
    });
    clear(ctx, 'lockupLost', after.id);
    clear(ctx, 'fundsLost', after.id);
    return;
  }
  if (loss !== undefined && preimageOf(before) === undefined && preimageOf(after) !== undefined) fundsLost(ctx, after);
}
