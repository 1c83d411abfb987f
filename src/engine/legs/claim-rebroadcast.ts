// Ferry's own claims of user lockups that a reorg took away: a claim the node no longer knows is broadcast again
// (the same transaction, so nothing is claimed twice) once the lockup it spends is back on chain or in the mempool.
// Checked after a reorg and at the chain's next blocks while one still waits for its lockup. Claims recorded more
// than RECENT_MS ago are not looked at: a reorg that deep is not one a watcher can follow anyway.
import type { EngineContext } from '../context.ts';
import { MACHINES, machineFor, statusesReachedBy } from '../../swaps/index.ts';
import { legChain, userLockupOf } from './lockup-leg.ts';
import type { StoredTransaction } from '../../swaps/submarine-machine.ts';

const RECENT_MS = 24 * 3600_000;
/** Statuses Ferry's claim of a user lockup leads to: the swaps whose claim may need broadcasting again. */
const CLAIMED = [...new Set(Object.values(MACHINES).flatMap((machine) => statusesReachedBy(machine, 'claim.broadcast')))];

/** Returns whether a claim on `chain` is still gone and cannot be sent yet (its lockup is not back). */
export async function rebroadcastClaims(ctx: EngineContext, chain: string): Promise<boolean> {
  const since = Date.now() - RECENT_MS;
  const swaps = (await ctx.storage.swaps.listByStatus(CLAIMED)).filter(
    (swap) => swap.updatedAt >= since && statusesReachedBy(machineFor(swap.type), 'claim.broadcast').includes(swap.status),
  );
  let waiting = false;
  for (const swap of swaps) {
    const claim = swap.data.claimTransaction as StoredTransaction | undefined;
    const leg = userLockupOf(swap);
    if (claim === undefined || claim.hex === '' || leg.chain !== chain || leg.contract !== undefined || leg.lockup === undefined) continue;
    const backend = legChain(ctx, leg);
    if (await backend.isKnown(claim.txid)) continue;
    if ((await backend.unspentConfirmations(leg.lockup.txid, leg.lockup.vout)) === undefined) {
      // The lockup is gone too (or spent by another transaction): nothing to spend yet.
      waiting = true;
      continue;
    }
    await backend.ensureBroadcast(claim.hex);
    ctx.logger.warn("Ferry's claim was taken away by a reorg: broadcast again", { swap: swap.id, txid: claim.txid });
  }
  return waiting;
}
