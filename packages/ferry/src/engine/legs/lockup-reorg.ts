// A user's lockup that left the chain (a reorg, or a double spend of its coins): the node is asked where the
// recorded lockup is now, and the swap is moved by the machine's rows. Before Ferry paid or locked, the swap goes
// back (lockup.unconfirmed, lockup.vanished) or fails (lockup.doubleSpent). After Ferry acted it cannot go back past
// what Ferry did: the loss is recorded (lockup.lost, a failed status pushed to subscribers) and the swap stays
// watched, at every block of the chain, until the lockup is found again (lockup.found: claimed with the preimage, or
// the swap goes on) or Ferry has taken back what it can (a chain swap's refund of its own lockup at its timeout).
// A chain swap is rechecked under its server lockup's wallet lock, which Ferry's lock is sent and recorded under: so
// a lockup of Ferry's is either recorded (and the loss rows apply) or not begun (and the rollback takes back the
// decision to lock).
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { SwapRecord } from '../../db/index.ts';
import { eventApplies, lockupLossReason, machineFor, statusesReachedBy, statusesWith, statusesWithAny, type LockupLoss } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import type { LockupRecord } from '../data.ts';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import { legChain, serverLockupOf, userLockupOf } from './lockup-leg.ts';
import { serverLockupStarted } from './server-lockup.ts';

/** Where a recorded lockup is on the node now. */
export type LockupWhereabouts = 'confirmed' | 'mempool' | 'spent' | 'vanished' | 'doubleSpent';

/** Statuses a reorg can move a user lockup out of (before or after Ferry acted), or a lost one back into the swap. */
const CHECKED = [...new Set(['lockup.doubleSpent', 'lockup.lost', 'lockup.found'].flatMap(statusesWithAny))];
/** A claim in a block for longer than this is old news (as own-transactions.ts follows Ferry's claims). */
const RECENT_MS = 24 * 3600_000;

export const lossOf = (swap: SwapRecord): LockupLoss | undefined => swap.data.lockupLost as LockupLoss | undefined;

function checked(swap: SwapRecord): boolean {
  const machine = machineFor(swap.type);
  if (statusesWith(machine, 'lockup.doubleSpent').includes(swap.status)) return true;
  if (lossOf(swap) !== undefined) return eventApplies(machine, swap.status, swap.data, 'lockup.found');
  if (!eventApplies(machine, swap.status, swap.data, 'lockup.lost')) return false;
  // Ferry's claim in a block long ago: the lockup it spent is not looked for again.
  const claimed = statusesReachedBy(machine, 'claim.broadcast').includes(swap.status);
  return !claimed || swap.data.claimConfirmed !== true || swap.updatedAt >= Date.now() - RECENT_MS;
}

const vanishedOf = (swap: SwapRecord): LockupRecord | undefined => swap.data.vanishedLockup as LockupRecord | undefined;

/**
 * Records that the user lockup Ferry acted on is lost (the caller holds the swap's lock): the machine moves the swap
 * to its failed status. Also used for a contract chain's lock taken back by a reorg (contract-reorg.ts).
 */
export async function loseUserLockup(ctx: EngineContext, swap: SwapRecord, lockup: { txid: string; vout: number }, reason: LockupLoss['reason']): Promise<boolean> {
  const lockupLost: LockupLoss = { txid: lockup.txid, vout: lockup.vout, reason, status: lossOf(swap)?.status ?? swap.status, at: Date.now() };
  const applied = await ctx.swaps.applyLocked(swap.id, { type: 'lockup.lost', data: { lockupLost, failureReason: lockupLossReason(reason) } });
  if (applied.applied) ctx.logger.error('the user lockup Ferry acted on is lost', { swap: swap.id, status: swap.status, to: applied.swap.status, txid: lockup.txid, reason });
  return applied.applied;
}

/** The lost user lockup is on the chain again (the caller holds the swap's lock): the machine takes the swap on. */
export async function findUserLockup(ctx: EngineContext, swap: SwapRecord, lockup: LockupRecord): Promise<boolean> {
  const applied = await ctx.swaps.applyLocked(swap.id, { type: 'lockup.found', data: { lockup } });
  if (applied.applied) ctx.logger.warn('the lost user lockup is back on chain', { swap: swap.id, to: applied.swap.status, txid: lockup.txid });
  return applied.applied;
}

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
  const machine = machineFor(swap.type);
  const lost = where === 'vanished' || where === 'doubleSpent';
  const loss = lossOf(swap);
  if (loss !== undefined && recorded !== undefined) {
    if (!lost) await findUserLockup(ctx, swap, { ...recorded, confirmed: where === 'confirmed' || (where === 'spent' && recorded.confirmed) });
    else if (where !== loss.reason) await loseUserLockup(ctx, swap, recorded, where);
    return where;
  }
  // After Ferry acted (paid the invoice, locked its coins): the swap fails, and is still watched.
  if (lost && recorded !== undefined && eventApplies(machine, swap.status, swap.data, 'lockup.lost')) {
    await loseUserLockup(ctx, swap, recorded, where);
    return where;
  }
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
 * in statuses a reorg may undo. Returns whether a vanished lockup is still waiting to come back or be double spent,
 * or a lost one to come back.
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
    if (where === 'vanished' || (where === 'doubleSpent' && lossOf(await ctx.swaps.require(swap.id)) !== undefined)) unresolved = true;
  }
  return unresolved;
}
