// How deep a user's lockup must be before Ferry acts on it, and the block-time check that notices when it is. The
// watcher reports a lockup when it is seen and when it first enters a block; a lockup whose amount needs more
// blocks than that (the pair's `confirmations`, or the chain's default for the network: src/swaps/confirmations.ts)
// is recorded unconfirmed, and at each block of its chain the swaps waiting on such a lockup are checked again:
// once deep enough, `lockup.confirmed` moves them on (Ferry pays or locks). A contract chain's Lockup event is
// delivered once `evm.confirmations` deep; its depth is followed the same way at that chain's blocks.
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { SwapRecord } from '../../db/index.ts';
import { defaultConfirmations, requiredConfirmations } from '../../swaps/confirmations.ts';
import { classifySubmarineLockup, MACHINES, machineFor, statusesReachedBy, statusesWith, statusesWithAny, type LockupObservation } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import type { LockupRecord } from '../data.ts';
import { legChain, userLockupOf, type LockupLeg } from './lockup-leg.ts';

/** Events that record a user lockup Ferry has not (or no longer) counted as confirmed. */
const UNCONFIRMED_RECORDS = ['lockup.mempool', 'lockup.zeroConf', 'lockup.rejected', 'lockup.unconfirmed'];

/**
 * Statuses that can hold such a lockup and that a `lockup.confirmed` row moves on (transaction.mempool, and a
 * chain swap's transaction.lockupFailed, whose quote waits for it): listed at each block, not every open swap.
 */
const WAITING = statusesWithAny('lockup.confirmed').filter((status) =>
  Object.values(MACHINES).some((machine) => UNCONFIRMED_RECORDS.some((event) => statusesReachedBy(machine, event).includes(status))),
);

/** Blocks a user lockup of `amount` on the leg's chain must be deep in: the swap's pair's tiers, or the chain's default. */
export function lockupConfirmationsFor(ctx: EngineContext, leg: LockupLeg, amount: number): number {
  const swap = leg.swap;
  const [from, to] = swap.pair.split('/');
  // A chain swap's pair may be configured either way round (BTC/L-BTC or L-BTC/BTC).
  const pair = ctx.settings.pairs.get(swap.pair) ?? ctx.settings.pairs.get(`${to}/${from}`);
  return requiredConfirmations(pair?.confirmations ?? defaultConfirmations(ctx.settings.network, leg.chain), amount);
}

/** A swap whose recorded user lockup on `chain` is not yet deep enough, in a status its confirmation moves. */
function waitingOn(swap: SwapRecord, chain: string, kind: 'utxo' | 'contract'): boolean {
  if (!statusesWith(machineFor(swap.type), 'lockup.confirmed').includes(swap.status)) return false;
  const leg = userLockupOf(swap);
  const lockup = leg.lockup as LockupRecord | undefined;
  if (leg.chain !== chain || lockup === undefined || lockup.confirmed) return false;
  return kind === 'utxo' ? leg.contract === undefined && lockup.hex !== '' : leg.contract !== undefined && lockup.blockHeight !== undefined;
}

/** Under the swap's lock: `lockup.confirmed` once the recorded lockup (unchanged since `recorded`) is `depth` deep enough. */
async function confirmIfDeep(ctx: EngineContext, swapId: string, chain: string, kind: 'utxo' | 'contract', recorded: LockupRecord, depth: number): Promise<void> {
  await ctx.locks.run(swapId, async () => {
    const fresh = await ctx.swaps.require(swapId);
    if (!waitingOn(fresh, chain, kind)) return;
    const leg = userLockupOf(fresh);
    const lockup = leg.lockup as LockupRecord;
    if (lockup.txid !== recorded.txid || lockup.vout !== recorded.vout) return;
    const seen: LockupObservation = { txid: lockup.txid, vout: lockup.vout, value: lockup.value, hex: lockup.hex, confirmations: depth, signalsRbf: false };
    const confirmations = lockupConfirmationsFor(ctx, leg, lockup.value);
    const classified = classifySubmarineLockup({ lockup, expectedAmount: leg.expectedAmount }, seen, {
      maximalZeroConf: 0,
      minZeroConfFeeRate: Infinity,
      overpaymentTolerancePercent: ctx.settings.overpaymentTolerancePercent,
      confirmations,
    });
    if (classified === undefined) return;
    const applied = await ctx.swaps.applyLocked(swapId, classified);
    if (applied.applied) ctx.logger.info('user lockup deep enough', { swap: swapId, txid: lockup.txid, confirmations: depth, required: confirmations });
  });
}

/**
 * At a block of `chain`: every swap waiting for its user lockup there to be deep enough is checked against the node
 * (one listing of the waiting statuses, one read per waiting lockup), and moved on with `lockup.confirmed` once it is.
 * Returns whether any was waiting (checked before this block's moves), so the caller may skip blocks while none is.
 */
export async function recheckLockupDepths(ctx: EngineContext, chain: string): Promise<boolean> {
  const waiting = (await ctx.storage.swaps.listByStatus(WAITING)).filter((swap) => waitingOn(swap, chain, 'utxo'));
  let still = false;
  for (const swap of waiting) {
    const recorded = userLockupOf(swap).lockup as LockupRecord;
    const depth = await legChain(ctx, userLockupOf(swap)).unspentConfirmations(recorded.txid, recorded.vout);
    still = true;
    if (depth === undefined || depth === 0) continue; // gone or back in the mempool: lockup-reorg.ts's business
    await confirmIfDeep(ctx, swap.id, chain, 'utxo', recorded, depth);
  }
  return still;
}

/**
 * At a block of a contract chain: the same for user lockups there, their depth counted from the block of their
 * Lockup event to the chain's tip, and only while the contract still holds them (a reorg may have taken one back).
 */
export async function recheckContractLockupDepths(ctx: EngineContext, chain: ContractChain): Promise<boolean> {
  const waiting = (await ctx.storage.swaps.listByStatus(WAITING)).filter((swap) => waitingOn(swap, chain.symbol, 'contract'));
  if (waiting.length === 0) return false;
  const tip = await chain.height();
  for (const swap of waiting) {
    const recorded = userLockupOf(swap).lockup as LockupRecord;
    const depth = tip - recorded.blockHeight! + 1;
    if (depth < 1 || !(await chain.isLocked(recorded.contract!))) continue;
    await confirmIfDeep(ctx, swap.id, chain.symbol, 'contract', recorded, depth);
  }
  return true;
}
