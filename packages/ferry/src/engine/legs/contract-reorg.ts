// A contract chain's reorg taking back a lockup, claim or refund Ferry already acted on (the follower's `removed`
// events). The contract's state on the new chain decides: a lockup there again (re-mined) needs nothing. Ferry's own
// lock gone — while it could refund it, or after the client claimed it (Ferry was paid) — is sent again with the
// same values when its transaction left the node: EtherSwap refuses a second lock of values locked, and a lost lock
// still known to the node (mined again, so perhaps claimed) is never sent twice; the client can still claim what it
// paid for. A user's lockup gone is marked and, as on a UTXO chain, lost (lockup.lost: a failed status, an alert):
// Ferry then never takes "no longer locked" for its own claim (claimFromContract records the loss instead of a claim
// that did not happen). A lost lock locked again — the follower's next Lockup event of the same values, or the
// contract asked at each block — is found (lockup.found), and claimed with the preimage if Ferry paid. Ferry's claim
// of a user's lock or refund of its own lock taken back while the values stay locked is sent again at once (the
// contract refuses a second claim or refund).
import { ContractCallRefused, type ContractChain, type ContractChainEvents } from '@ferry/sdk/chains/contract-chain.js';
import type { SwapRecord } from '../../db/index.ts';
import { eventApplies, machineFor, statusesWith, statusesWithAny } from '../../swaps/index.ts';
import type { ContractLockupEvent, ContractSwapEvent } from '@ferry/sdk/chains/contract-chain.js';
import type { LockupRecord } from '../data.ts';
import type { EngineContext } from '../context.ts';
import { lockupLegsOf, serverLockupOf, userLockupOf } from './lockup-leg.ts';
import { findUserLockup, loseUserLockup, lossOf } from './lockup-reorg.ts';

const reorgedKey = (swapId: string): string => `contract.lockup.reorged:${swapId}`;

/** Whether the user's contract lockup of this swap was taken back by a reorg and not seen locked since. */
export async function userLockupReorged(ctx: EngineContext, swapId: string): Promise<boolean> {
  return (await ctx.storage.kv.get(reorgedKey(swapId))) !== undefined;
}

/** The user's lockup is locked again (the new chain has it): the mark is lifted. */
export async function clearUserLockupReorged(ctx: EngineContext, swapId: string): Promise<void> {
  await ctx.storage.kv.delete(reorgedKey(swapId));
}

/** Statuses in which Ferry's lockup is out: those its refund broadcast leaves. */
const serverLocked = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'refund.broadcast').includes(swap.status);

export async function onContractReorg(ctx: EngineContext, chain: ContractChain, reorg: ContractChainEvents['reorg']): Promise<void> {
  ctx.logger.warn('contract chain reorganisation', { chain: chain.symbol, forkHeight: reorg.forkHeight, removed: reorg.removed.length, complete: reorg.complete });
  for (const removed of reorg.removed) {
    if (removed.type === 'refund') {
      await onRefundReorged(ctx, chain, removed);
      continue;
    }
    if (removed.type === 'claim') {
      await onClaimReorged(ctx, chain, removed);
      continue;
    }
    if (removed.type !== 'lockup') continue;
    const swap = await ctx.storage.swaps.getByPreimageHash(removed.preimageHash);
    const leg = swap && lockupLegsOf(swap).find((candidate) => candidate.chain === chain.symbol && candidate.contract !== undefined);
    const values = leg?.lockup?.contract;
    if (swap === undefined || leg === undefined || values === undefined || leg.lockup!.txid !== removed.txHash) continue;
    await ctx.locks.run(swap.id, async () => {
      if (await chain.isLocked(values)) {
        ctx.logger.info('a lockup taken back by a reorg is locked on the new chain', { swap: swap.id, leg: leg.name });
        return;
      }
      if (leg.name === 'userLockup') {
        await ctx.storage.kv.set(reorgedKey(swap.id), String(reorg.forkHeight));
        const fresh = await ctx.swaps.require(swap.id);
        // After Ferry acted (paid, locked): lost. Before, the checks before paying and locking catch it.
        if (lossOf(fresh) === undefined && eventApplies(machineFor(fresh.type), fresh.status, fresh.data, 'lockup.lost')) {
          await loseUserLockup(ctx, fresh, leg.lockup!, 'vanished');
        } else {
          ctx.logger.warn('a user lockup was taken back by a reorg: no claim is recorded until it is locked again', { swap: swap.id, status: fresh.status, txHash: removed.txHash });
        }
        return;
      }
      const fresh = await ctx.swaps.require(swap.id);
      // Ferry's lock is out while it could refund it, and stays the client's once the client claimed it (the preimage
      // known: Ferry was paid, so the claim taken back with the lock must find it again).
      if (!serverLocked(fresh) && typeof fresh.data.preimage !== 'string') return;
      // Only Ferry locks with its own refund address: its lost transaction still known to the node (mined again, or
      // waiting to be) is the lock, and values unlocked then are claimed or refunded — a second lock would pay twice.
      if (await chain.isKnown(removed.txHash)) {
        ctx.logger.info('Ferry\'s lock taken back by a reorg is on the new chain or waiting to be', { swap: swap.id, txHash: removed.txHash });
        return;
      }
      const prepay = serverLockupOf(fresh).prepayAmount;
      try {
        const sent = await chain.lock(values, prepay === undefined ? undefined : chain.toBaseUnits(prepay));
        ctx.logger.warn('Ferry\'s lock was taken back by a reorg: locked again with the same values', { swap: swap.id, txHash: sent.txHash });
      } catch (error) {
        // Refused: the lost transaction was mined again meanwhile (the same values exist), or the account is short.
        if (!(error instanceof ContractCallRefused)) throw error;
        ctx.logger.error('Ferry\'s lock taken back by a reorg could not be sent again', { swap: swap.id, locked: await chain.isLocked(values), error: error.message });
      }
    });
  }
}

/**
 * The swap and contract leg a removed claim or refund was of. Only the claim address can claim and only the refund
 * address refund, so a claim of a user's lock and a refund of Ferry's lock are Ferry's own.
 */
async function legOfRemoved(ctx: EngineContext, chain: ContractChain, removed: ContractSwapEvent, name: 'serverLockup' | 'userLockup') {
  const swap = await ctx.storage.swaps.getByPreimageHash(removed.preimageHash);
  const leg = swap && lockupLegsOf(swap).find((candidate) => candidate.name === name && candidate.chain === chain.symbol && candidate.contract !== undefined);
  const values = leg?.lockup?.contract;
  return swap === undefined || values === undefined ? undefined : { swap, values };
}

/**
 * Ferry's refund of its own lock taken back: the lock stands again on the new chain, and the client (who may hold
 * the preimage) could claim what Ferry already gave back off chain (a cancelled payment). The timelock is past, so
 * the same refund is sent again; the contract refuses a second refund of the same values, so never two.
 */
async function onRefundReorged(ctx: EngineContext, chain: ContractChain, removed: ContractSwapEvent): Promise<void> {
  const found = await legOfRemoved(ctx, chain, removed, 'serverLockup');
  if (found === undefined) return;
  await ctx.locks.run(found.swap.id, async () => {
    if (!(await chain.isLocked(found.values))) return;
    try {
      const sent = await chain.refund(found.values);
      ctx.logger.warn('Ferry\'s refund was taken back by a reorg: refunded again', { swap: found.swap.id, txHash: sent.txHash });
    } catch (error) {
      // Refused: claimed or refunded meanwhile (the lost refund mined again), or the new tip is below the timelock.
      if (!(error instanceof ContractCallRefused)) throw error;
      ctx.logger.error('Ferry\'s refund taken back by a reorg could not be sent again', { swap: found.swap.id, locked: await chain.isLocked(found.values), error: error.message });
    }
  });
}

/**
 * Ferry's claim of a user's lock taken back while the lock stays (re-mined, or never reorganised): the swap is
 * claimed on Ferry's books, but after the timelock the user could refund coins Ferry paid for. The same claim is
 * sent again with the preimage Ferry has; the contract refuses a second claim, so never two. A lock taken back with
 * the claim is not locked: the removed lockup (lockup.lost, then lockup.found) takes that case.
 */
async function onClaimReorged(ctx: EngineContext, chain: ContractChain, removed: ContractSwapEvent): Promise<void> {
  const found = await legOfRemoved(ctx, chain, removed, 'userLockup');
  const preimage = found?.swap.data.preimage;
  if (found === undefined || typeof preimage !== 'string') return;
  await ctx.locks.run(found.swap.id, async () => {
    if (!(await chain.isLocked(found.values))) return;
    try {
      const sent = await chain.claim(found.values, preimage);
      ctx.logger.warn('Ferry\'s claim was taken back by a reorg: claimed again', { swap: found.swap.id, txHash: sent.txHash });
    } catch (error) {
      // Refused: claimed meanwhile (the lost claim mined again) or refunded by the user.
      if (!(error instanceof ContractCallRefused)) throw error;
      ctx.logger.error('Ferry\'s claim taken back by a reorg could not be sent again', { swap: found.swap.id, locked: await chain.isLocked(found.values), error: error.message });
    }
  });
}

/** Statuses a lost lockup can be found in. */
const FINDABLE = statusesWithAny('lockup.found');

const sameValues = (a: object, b: object): boolean => JSON.stringify(a).toLowerCase() === JSON.stringify(b).toLowerCase();

/** A lockup found locked again: the mark is lifted and the swap taken on (the caller holds the swap's lock). */
async function found(ctx: EngineContext, swap: SwapRecord, lockup: LockupRecord): Promise<void> {
  await clearUserLockupReorged(ctx, swap.id);
  await findUserLockup(ctx, swap, lockup);
}

/**
 * A Lockup event for a swap whose user lockup is lost: the same values locked again (the same transaction mined
 * again, or the user's new lock of them) bring the lockup back. Returns whether the swap's lockup is lost.
 */
export async function onLostContractLockup(ctx: EngineContext, chain: ContractChain, swap: SwapRecord, event: ContractLockupEvent): Promise<boolean> {
  if (lossOf(swap) === undefined) return false;
  await ctx.locks.run(swap.id, async () => {
    const fresh = await ctx.swaps.require(swap.id);
    const recorded = userLockupOf(fresh).lockup as LockupRecord | undefined;
    if (lossOf(fresh) === undefined || recorded?.contract === undefined) return;
    const { preimageHash, amount, claimAddress, refundAddress, timelock } = event;
    if (event.refusal !== undefined || !sameValues({ preimageHash, amount, claimAddress, refundAddress, timelock }, recorded.contract)) return;
    if (!(await chain.isLocked(recorded.contract))) return;
    await found(ctx, fresh, { ...recorded, txid: event.txHash, vout: event.logIndex });
  });
  return true;
}

/** At each block of a contract chain: the lost user lockups on it that are locked again are found. */
export async function recheckLostContractLockups(ctx: EngineContext, chain: ContractChain): Promise<void> {
  for (const candidate of await ctx.storage.swaps.listByStatus(FINDABLE)) {
    const leg = lossOf(candidate) === undefined ? undefined : userLockupOf(candidate);
    const values = leg?.lockup?.contract;
    if (leg === undefined || leg.chain !== chain.symbol || values === undefined) continue;
    if (!(await chain.isLocked(values))) continue;
    await ctx.locks.run(candidate.id, async () => {
      const fresh = await ctx.swaps.require(candidate.id);
      if (lossOf(fresh) !== undefined) await found(ctx, fresh, userLockupOf(fresh).lockup as LockupRecord);
    });
  }
}
