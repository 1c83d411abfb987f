// Each swap type as a composition of legs: which leg performs each of its machine's effects. A new swap type (a
// chain swap: user lockup + server lockup) is a machine in src/swaps plus an entry here, not a copy of a flow.
import type { EffectRecord } from '../../db/index.ts';
import { machineFor } from '../../swaps/index.ts';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from '../context.ts';
import { cancelInvoice, holdInvoiceLockupHooks, settleGasInvoice, settleInvoice } from '../legs/hold-invoice.ts';
import { payInvoice, startPayment } from '../legs/pay-invoice.ts';
import { refundServerLockup, sendServerLockup } from '../legs/server-lockup.ts';
import { claimWhenSilent, startClaim } from '../legs/user-lockup.ts';
import { chainLockupHooks } from './chain.ts';

export type EffectHandler = (ctx: EngineContext, effect: EffectRecord) => Promise<void>;

export const EFFECTS: Record<SwapType, Record<string, EffectHandler>> = {
  [SwapType.Submarine]: { startPayment, payInvoice, startClaim, claimWhenSilent },
  [SwapType.Reverse]: {
    sendLockup: (ctx, effect) => sendServerLockup(ctx, effect, holdInvoiceLockupHooks),
    refundLockup: (ctx, effect) => refundServerLockup(ctx, effect, holdInvoiceLockupHooks),
    settleInvoice,
    cancelInvoice,
    settleGasInvoice,
  },
  [SwapType.Chain]: {
    sendLockup: (ctx, effect) => sendServerLockup(ctx, effect, chainLockupHooks),
    refundLockup: (ctx, effect) => refundServerLockup(ctx, effect, chainLockupHooks),
    startClaim,
    claimWhenSilent,
  },
};

/** Every effect kind of every machine, each performed by its swap type's leg. */
export function effectKinds(): string[] {
  return [...new Set(Object.values(SwapType).flatMap((type) => machineFor(type).effects))];
}

export async function performEffect(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  const handler = EFFECTS[swap.type as SwapType]?.[effect.kind];
  if (handler === undefined) throw new Error(`swap type ${swap.type} has no handler for effect ${effect.kind}`);
  await handler(ctx, effect);
}
