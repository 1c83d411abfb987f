// A user's lockup that left the chain before Ferry acted on it (a reorg, or a double spend of its coins): the node
// is asked where the recorded lockup is now, and the swap is moved by the machine's rows (lockup.unconfirmed,
// lockup.vanished, lockup.doubleSpent). Machines have these rows only in statuses before Ferry paid or locked, so
// an event in any later status is refused and the swap never goes back past what Ferry did. A chain swap is
// rechecked under its server lockup's wallet lock, which Ferry's lock is sent and recorded under: so a lockup of
// Ferry's is either recorded (and the rows refuse) or not begun (and the rollback takes back the decision to lock).
import type { ChainBackend } from '../../chains/backend.ts';
import type { SwapRecord } from '../../db/index.ts';
import { machineFor, statusesWith, statusesWithAny } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import type { LockupRecord } from '../data.ts';
import { SwapType } from '../../swaps/status.ts';
import { legChain, serverLockupOf, userLockupOf } from './lockup-leg.ts';
import { serverLockupStarted } from './server-lockup.ts';

/** Where a recorded lockup is on the node now. */
export type LockupWhereabouts = 'confirmed' | 'mempool' | 'spent' | 'vanished' | 'doubleSpent';

/** Statuses a reorg can move a user lockup out of: those with a row for a lockup leaving the chain. */
const CHECKED = statusesWithAny('lockup.doubleSpent');
const checked = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'lockup.doubleSpent').includes(swap.status);

const vanishedOf = (swap: SwapRecord): LockupRecord | undefined => swap.data.vanishedLockup as LockupRecord | undefined;

export async function whereabouts(chain: ChainBackend, lockup: LockupRecord): Promise<LockupWhereabouts> {
  const confirmations = await chain.unspentConfirmations(lockup.txid, lockup.vout);
  if (confirmations !== undefined) return confirmations > 0 ? 'confirmed' : 'mempool';
  // Known but spent: the swap's own business (a claim or a refund), not a reorg.
  if (await chain.isKnown(lockup.txid)) return 'spent';
  for (const input of chain.transactionInputs(lockup.hex)) {
    // A coin whose own transaction is still known but which is spent: another transaction took it.
    if ((await chain.isKnown(input.txid)) && (await chain.unspentConfirmations(input.txid, input.vout)) === undefined) return 'doubleSpent';
  }
  return 'vanished';
}

/**
 * Compares the swap's recorded (or vanished) user lockup with the node and applies what changed. Returns where the
 * lockup is, or undefined when the swap has none to check.
 */
export async function recheckUserLockup(ctx: EngineContext, swapId: string): Promise<LockupWhereabouts | undefined> {
  const first = await ctx.swaps.require(swapId);
  const recheck = () => ctx.locks.run(swapId, () => recheckLocked(ctx, swapId));
  return first.type === SwapType.Chain ? ctx.locks.run(`wallet:${serverLockupOf(first).chain}`, recheck) : recheck();
}

async function recheckLocked(ctx: EngineContext, swapId: string): Promise<LockupWhereabouts | undefined> {
  const swap = await ctx.swaps.require(swapId);
  if (!checked(swap)) return undefined;
  const leg = userLockupOf(swap);
  const recorded = leg.lockup as LockupRecord | undefined;
  const lockup = recorded ?? vanishedOf(swap);
  if (lockup === undefined || lockup.contract !== undefined || lockup.hex === '') return undefined;
  const where = await whereabouts(legChain(ctx, leg), lockup);
  // A send of Ferry's lockup that may have happened before a crash: its replay decides, not a rollback.
  if (await serverLockupStarted(ctx, swap.id)) return where;
  const fields = { swap: swap.id, status: swap.status, txid: lockup.txid };
  if (where === 'doubleSpent') {
    const applied = await ctx.swaps.applyLocked(swap.id, { type: 'lockup.doubleSpent', data: { vanishedLockup: lockup } });
    if (applied.applied) ctx.logger.warn('user lockup double spent before Ferry acted on it', fields);
  } else if (recorded !== undefined && where === 'vanished') {
    const applied = await ctx.swaps.applyLocked(swap.id, { type: 'lockup.vanished', data: { vanishedLockup: recorded } });
    if (applied.applied) ctx.logger.warn('user lockup left the chain before Ferry acted on it', fields);
  } else if (recorded !== undefined && where === 'mempool' && recorded.confirmed) {
    const applied = await ctx.swaps.applyLocked(swap.id, { type: 'lockup.unconfirmed', data: { lockup: { ...recorded, confirmed: false } } });
    if (applied.applied) ctx.logger.warn('user lockup reorganised back into the mempool', fields);
  }
  return where;
}

/**
 * After a reorg of `chain` (and at its blocks while any stays unresolved): rechecks the user lockups recorded on it
 * in statuses a reorg may undo. Returns whether a vanished lockup is still waiting to come back or be double spent.
 */
export async function recheckUserLockups(ctx: EngineContext, chain: string): Promise<boolean> {
  const swaps = (await ctx.storage.swaps.listByStatus(CHECKED)).filter((swap) => {
    if (!checked(swap)) return false;
    const leg = userLockupOf(swap);
    return leg.chain === chain && leg.contract === undefined && (leg.lockup !== undefined || vanishedOf(swap) !== undefined);
  });
  let unresolved = false;
  for (const swap of swaps) {
    const where = await recheckUserLockup(ctx, swap.id);
    if (where === 'vanished') unresolved = true;
  }
  return unresolved;
}
