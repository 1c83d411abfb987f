// A contract chain's reorg taking back a lockup Ferry already acted on (the follower's `removed` events). The
// contract's state on the new chain decides: a lockup there again (re-mined) needs nothing. Ferry's own lock gone
// is sent again with the same values — EtherSwap keys a lock by its values and refuses a second one, so this can
// never lock twice — so the client can still claim what it paid for. A user's lockup gone is marked: Ferry then
// never takes "no longer locked" for its own claim (claimFromContract waits for the lock to come back instead of
// recording a claim that did not happen), and the error is logged for the operator.
import { ContractCallRefused, type ContractChain, type ContractChainEvents } from '../../chains/contract-chain.ts';
import type { SwapRecord } from '../../db/index.ts';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import { lockupLegsOf, serverLockupOf } from './lockup-leg.ts';

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
        ctx.logger.error('the user lockup Ferry acted on was taken back by a reorg: no claim is recorded until it is locked again', {
          swap: swap.id,
          status: swap.status,
          txHash: removed.txHash,
        });
        return;
      }
      const fresh = await ctx.swaps.require(swap.id);
      if (!serverLocked(fresh)) return;
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
