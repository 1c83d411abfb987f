// The referral report: what successful swaps created with a partner's referral id earned, per month.
// The amount per swap is the fee Ferry kept beyond the swapped amount and its miner fee estimate; how much of it
// a partner is owed is the operator's agreement, not Ferry's business.
import type { SwapRecord } from '../db/index.ts';
import { submarineExpectedAmount } from '../swaps/amounts.ts';
import { succeededStatuses } from '@ferry/sdk/swaps/derive.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from './context.ts';
import { reverseData, submarineData } from './data.ts';
import type { ReferralReport } from '@ferry/sdk/protocol/index.js';


/** The fee a successful swap earned, in sat of its chain asset; undefined when the swap carries no figures. */
export function feeEarned(swap: SwapRecord): number | undefined {
  if (swap.type === SwapType.Submarine) {
    const { invoiceAmount, expectedAmount, pricing } = submarineData(swap);
    if (invoiceAmount === undefined || expectedAmount === undefined) return undefined;
    // expectedAmount = invoice at the rate + percentage fee + miner fee: the percentage fee is what remains.
    return expectedAmount - submarineExpectedAmount(invoiceAmount, pricing.rate, 0, 0) - pricing.minerFee;
  }
  // Reverse and chain swaps keep the percentage fee they earned at creation (in sat of the chain the user pays on).
  return reverseData(swap).serviceFee;
}

export async function referralReport(ctx: EngineContext, referralId?: string): Promise<ReferralReport> {
  const report: ReferralReport = {};
  // Every successful swap is read: referral ids live in the swap data, which has no index.
  for (const swap of await ctx.storage.swaps.listByStatus(succeededStatuses())) {
    const referral = swap.data.referralId;
    if (typeof referral !== 'string' || (referralId !== undefined && referral !== referralId)) continue;
    const fee = feeEarned(swap);
    if (fee === undefined) continue;
    const created = new Date(swap.createdAt);
    const year = String(created.getUTCFullYear());
    const month = String(created.getUTCMonth() + 1);
    const symbol = swap.pair.split('/')[0];
    const byReferral = (((report[year] ??= {})[month] ??= {})[referral] ??= {});
    byReferral[symbol] = (byReferral[symbol] ?? 0) + fee;
  }
  return report;
}
