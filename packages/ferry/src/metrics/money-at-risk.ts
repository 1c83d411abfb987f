// Money at risk, read from the database at each scrape (ferry_money_at_risk_sat{chain, reason}):
// - lockupLost: swaps failed because the user's lockup left the chain after Ferry acted (data.lockupLost, written by
//   the engine's lost-lockup leg): a chain swap's lockup of Ferry's still out and not refunded, counted on its chain;
//   a submarine swap's invoice amount, counted on the Lightning side (Ferry is paying it with nothing to claim until
//   the lockup comes back);
// - fundsLost: the same swaps once the preimage is known — the user claimed Ferry's lockup, or Ferry's payment went
//   through: gone unless the user's lockup comes back (the 'fundsLost' alert of the same swap says so too);
// - paymentLost: reverse swaps whose held payment is gone while Ferry's lockup can still be claimed (the active
//   'paymentLost' alerts of src/alerts/checks.ts, with their lockup amounts).
import type { Storage, SwapRecord } from '../db/index.ts';
import { serverLockupOf, userLockupOf } from '../engine/legs/lockup-leg.ts';
import { MACHINES } from '@ferry/sdk/swaps/machines.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';

export const RISK_REASONS = ['lockupLost', 'fundsLost', 'paymentLost'] as const;
export type RiskReason = (typeof RISK_REASONS)[number];

export interface MoneyAtRisk {
  chain: string;
  reason: RiskReason;
  amount: number;
}

/** Failed statuses of the swap types whose user lockup Ferry acts on. */
const LOST_CANDIDATES = [...new Set([...MACHINES[SwapType.Submarine].failed, ...MACHINES[SwapType.Chain].failed])];

function lockupLostField(storage: Storage): string {
  return storage.database.dialect === 'sqlite' ? "json_extract(data, '$.lockupLost') IS NOT NULL" : "(data::json -> 'lockupLost') IS NOT NULL";
}

/** One swap's money at risk from its lost lockup, if any. */
export function lostLockupRisk(swap: SwapRecord): MoneyAtRisk | undefined {
  const data = swap.data as { lockupLost?: unknown; preimage?: unknown; refundTransaction?: unknown };
  if (data.lockupLost === undefined || data.lockupLost === null) return undefined;
  if (swap.type === SwapType.Chain) {
    const leg = serverLockupOf(swap);
    if (leg.lockup === undefined || data.refundTransaction !== undefined) return undefined;
    return { chain: leg.chain, reason: typeof data.preimage === 'string' ? 'fundsLost' : 'lockupLost', amount: leg.lockup.value ?? leg.amount ?? 0 };
  }
  if (swap.type === SwapType.Submarine) {
    // what Ferry paid (or is paying) over Lightning against the lost lockup; gone once the payment went through
    const amount = (swap.data as { invoiceAmount?: number }).invoiceAmount ?? userLockupOf(swap).expectedAmount ?? 0;
    return { chain: swap.pair.split('/')[1], reason: typeof data.preimage === 'string' ? 'fundsLost' : 'lockupLost', amount };
  }
  return undefined;
}

export async function moneyAtRisk(storage: Storage): Promise<MoneyAtRisk[]> {
  const placeholders = LOST_CANDIDATES.map((_, i) => `$${i + 1}`).join(', ');
  const rows = await storage.database.query<{ id: string }>(`SELECT id FROM swaps WHERE status IN (${placeholders}) AND ${lockupLostField(storage)}`, LOST_CANDIDATES);
  const found: MoneyAtRisk[] = [];
  for (const row of rows) {
    const swap = await storage.swaps.get(row.id);
    const risk = swap && lostLockupRisk(swap);
    if (risk) found.push(risk);
  }
  for (const alert of await storage.alerts.active('paymentLost')) {
    if (alert.chain !== undefined) found.push({ chain: alert.chain, reason: 'paymentLost', amount: alert.amount ?? 0 });
  }
  return found;
}
