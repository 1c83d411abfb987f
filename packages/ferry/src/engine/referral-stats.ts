// The partner statistics of GET /v2/referral/stats: per month of creation (UTC), the volume (BTC, as text) and count
// of the successful swaps created with the referral id, per pair and in total, and each swap type's failure rate
// among its swaps that ended. Read off the swaps that ended: referral ids live in swap data, which has no index.
import type { SwapRecord } from '../db/index.ts';
import type { ReferralStats, ReferralMonthStats } from '@ferry/sdk/protocol/index.js';
import { MACHINES } from '@ferry/sdk/swaps/machines.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from './context.ts';
import { chainData, reverseData, submarineData } from './data.ts';

/** What the swap moved, sat: the invoice of a Lightning swap, the user's lockup of a chain swap. */
function volumeOf(swap: SwapRecord): number {
  if (swap.type === SwapType.Submarine) return submarineData(swap).invoiceAmount ?? 0;
  if (swap.type === SwapType.Reverse) return reverseData(swap).invoiceAmount ?? 0;
  const data = chainData(swap);
  return data.lockup?.value ?? data.user.amount;
}

const btc = (sat: number) => (sat / 1e8).toFixed(8);

export async function referralStats(ctx: EngineContext, referralId?: string): Promise<ReferralStats> {
  const ended = Object.values(MACHINES).flatMap((machine) => [...machine.succeeded, ...machine.failed]);
  const tallies = new Map<string, { volume: Map<string, number>; trades: Map<string, number>; ended: Map<string, [number, number]> }>();
  for (const swap of await ctx.storage.swaps.listByStatus([...new Set(ended)])) {
    const referral = swap.data.referralId;
    if (typeof referral !== 'string' || (referralId !== undefined && referral !== referralId)) continue;
    const created = new Date(swap.createdAt);
    const key = `${created.getUTCFullYear()}/${created.getUTCMonth() + 1}`;
    const tally = tallies.get(key) ?? { volume: new Map(), trades: new Map(), ended: new Map() };
    tallies.set(key, tally);
    const succeeded = MACHINES[swap.type as SwapType].succeeded.includes(swap.status);
    const [failed, all] = tally.ended.get(swap.type) ?? [0, 0];
    tally.ended.set(swap.type, [failed + (succeeded ? 0 : 1), all + 1]);
    if (!succeeded) continue;
    const pair = swap.type === SwapType.Chain ? `${chainData(swap).user.chain}/${chainData(swap).server.chain}` : swap.pair;
    tally.volume.set(pair, (tally.volume.get(pair) ?? 0) + volumeOf(swap));
    tally.trades.set(pair, (tally.trades.get(pair) ?? 0) + 1);
  }
  const stats: ReferralStats = {};
  for (const [key, tally] of tallies) {
    const [year, month] = key.split('/');
    const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
    const entry: ReferralMonthStats = {
      volume: { total: btc(sum(tally.volume)), ...Object.fromEntries([...tally.volume].map(([pair, sat]) => [pair, btc(sat)])) },
      trades: { total: sum(tally.trades), ...Object.fromEntries(tally.trades) },
      failureRates: Object.fromEntries([...tally.ended].map(([type, [failed, all]]) => [type, failed / all])),
    };
    (stats[year] ??= {})[month] = entry;
  }
  return stats;
}
