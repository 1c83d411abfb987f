// Routes every chain watcher's events to the swap leg they concern (through the engine's watch index), fires
// the timeout event of every swap whose timeout block its chain has reached, and at each block (and after a reorg)
// has Ferry's own transactions on that chain looked after (own-transactions.ts) and the user lockups waiting for
// their depth checked (lockup-depth.ts). Contract chains' events (lockups,
// claims, refunds of a preimage hash) go to the leg of the swap with that hash on that chain.
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { LockupEvent, SpendEvent } from '@ferry/sdk/chains/events.js';
import type { SwapRecord } from '../db/index.ts';
import { eventApplies, followsChain, machineFor, statusesWith, statusesWithAny } from '../swaps/index.ts';
import type { EngineContext } from './context.ts';
import { lockupLegsOf, timeoutLegOf } from './legs/lockup-leg.ts';
import { onServerContractLockup, onServerContractSpend, onServerLockup, onServerLockupSpend } from './legs/server-lockup.ts';
import { onContractReorg, recheckLostContractLockups } from './legs/contract-reorg.ts';
import { recheckUserLockups } from './legs/lockup-reorg.ts';
import { recheckContractLockupDepths, recheckLockupDepths } from './legs/lockup-depth.ts';
import { ownTransactionsOn, restoreOwnTransaction, SPEND_RECORDS } from './legs/own-transactions.ts';
import { bumpIfStuck } from './legs/fee-bump.ts';
import { onUserContractLockup, onUserContractSpend, onUserLockup, onUserLockupSpend } from './legs/user-lockup.ts';
import type { ContractChain, ContractSwapEvent } from '@ferry/sdk/chains/contract-chain.js';
import { UnconfirmedWatch } from '../alerts/unconfirmed.ts';

/**
 * Confirmations after which Ferry's own transactions are checked again only when a reorg comes, and after which
 * Ferry's claim ends its swap on chain (claim.settled): the lockup it spent is no longer followed for a reorg.
 */
export const SETTLED_DEPTH = 6;
/** Statuses in which a swap may time out (the machines decide whether it does). */
const TIMEOUT_CANDIDATES = statusesWithAny('timeout');

/** Whether a swap may still have chain events the engine must act on. */
export const needsChain = (swap: SwapRecord): boolean => followsChain(machineFor(swap.type), swap.status, swap.data);

/** A handler failing (e.g. a busy database) is retried briefly: the watcher moves on after its handlers return. */
async function withRetries(ctx: EngineContext, what: string, fn: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 3) throw error;
      ctx.logger.warn(`${what} failed, retrying`, { attempt, error: String(error) });
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

export class ChainEventRouter {
  private readonly detach: (() => void)[] = [];
  /** Ferry's transactions per chain buried SETTLED_DEPTH deep: not looked at again at blocks, only after a reorg. */
  private readonly settled = new Map<string, Set<string>>();
  /** Chains a reorg went through where a user's lockup vanished and may still come back or be double spent. */
  private readonly userReorged = new Set<string>();
  /**
   * Chains where a user lockup may be recorded short of the depth its amount needs (lockup-depth.ts): every chain
   * at start, and a chain again after a user lockup event or a reorg on it; dropped once a block finds none.
   */
  private readonly shallow = new Set<string>();
  /** Counts marks of `shallow`, so a recheck that found none does not drop a mark made while it ran. */
  private shallowMarks = 0;
  /** Ferry's transactions unconfirmed past the operator's target: the 'unconfirmed' alert. */
  private readonly unconfirmed: UnconfirmedWatch;
  /** The height of each chain's last block the timeouts were checked at (see timeoutIfPassed). */
  private readonly checkedHeights = new Map<string, number>();

  constructor(private readonly ctx: EngineContext) {
    this.unconfirmed = new UnconfirmedWatch(ctx);
  }

  attach(): void {
    if (this.detach.length > 0) return;
    for (const chain of this.ctx.chains.values()) {
      // A reorg handled before a restart may have left a lockup to recheck: each chain is checked at its next block.
      this.userReorged.add(chain.symbol);
      this.markShallow(chain.symbol);
      this.detach.push(
        chain.watcher.subscribe({
          lockup: (event) => (this.markShallow(chain.symbol), withRetries(this.ctx, 'lockup handling', () => this.lockup(chain, event))),
          spend: (event) => withRetries(this.ctx, 'spend handling', () => this.spend(chain, event)),
          block: async (event) => {
            await withRetries(this.ctx, 'timeout check', () => this.timeouts(event.height, chain.symbol));
            await withRetries(this.ctx, 'own transactions', () => this.ownTransactions(chain.symbol, event.height));
            if (this.userReorged.has(chain.symbol)) await withRetries(this.ctx, 'user lockup recheck', () => this.recheckUserLockups(chain.symbol));
            // User lockups in a block but not yet as deep as their amount needs (legs/lockup-depth.ts).
            if (this.shallow.has(chain.symbol)) await withRetries(this.ctx, 'user lockup depth', () => this.recheckDepths(chain.symbol));
          },
          reorg: async () => {
            this.settled.delete(chain.symbol);
            this.markShallow(chain.symbol);
            await withRetries(this.ctx, 'own transactions', () => this.ownTransactions(chain.symbol));
            await withRetries(this.ctx, 'user lockup recheck', () => this.recheckUserLockups(chain.symbol));
          },
        }),
      );
    }
    for (const chain of this.ctx.contracts.values()) {
      this.markShallow(chain.symbol);
      this.detach.push(
        chain.subscribe({
          event: (event) => (this.markShallow(chain.symbol), withRetries(this.ctx, 'contract event handling', () => this.contractEvent(chain, event))),
          block: async (event) => {
            await withRetries(this.ctx, 'timeout check', () => this.timeouts(event.height, chain.symbol));
            if (this.shallow.has(chain.symbol)) await withRetries(this.ctx, 'user lockup depth', () => this.recheckContractDepths(chain));
            await withRetries(this.ctx, 'lost lockup recheck', () => recheckLostContractLockups(this.ctx, chain));
            await this.sendAgainDropped(chain);
            await this.unconfirmed.checkContract(chain, event.height);
          },
          // A lockup taken back before Ferry acted is caught by the checks of the contract state before paying or
          // locking; one taken back after is rechecked here (contract-reorg.ts).
          reorg: (reorg) => (this.markShallow(chain.symbol), withRetries(this.ctx, 'contract reorg handling', () => onContractReorg(this.ctx, chain, reorg))),
        }),
      );
    }
  }

  stop(): void {
    for (const detach of this.detach.splice(0)) detach();
  }

  /**
   * Times out the swaps whose timing leg (timeoutLegOf) is on `chain` (every chain when omitted) and reached its
   * timeout at `height`.
   */
  async timeouts(height: number, chain?: string): Promise<void> {
    if (chain !== undefined) this.checkedHeights.set(chain, height);
    const due = (await this.ctx.storage.swaps.listByStatus(TIMEOUT_CANDIDATES)).filter((swap) => {
      const leg = timeoutLegOf(swap);
      // Only where a timeout row applies: a failed swap waiting for its lost lockup is not asked at every block.
      return leg.timeoutBlockHeight <= height && (chain === undefined || leg.chain === chain) && eventApplies(machineFor(swap.type), swap.status, swap.data, 'timeout');
    });
    for (const swap of due) await this.ctx.swaps.dispatch(swap.id, { type: 'timeout', data: { timedOutAtHeight: height } });
  }

  /**
   * After a transition: a swap that entered a status with a `timeout` row when its timing chain's last block is
   * already at or past its timeout gets its timeout now, not at the next block. The timeout check of that block ran
   * before the swap got here (it was listed in the status before, or its guard refused: e.g. Ferry's lockup being
   * sent); waiting a block would leave Ferry's refund a block late (minutes on Liquid, ~10 on Bitcoin) while the
   * client can still claim. The machines' guards keep this to one timeout per swap. Called under the swap's lock:
   * the dispatch queues behind it.
   */
  timeoutIfPassed(swap: SwapRecord): void {
    if (!statusesWith(machineFor(swap.type), 'timeout').includes(swap.status)) return;
    const leg = timeoutLegOf(swap);
    const height = this.checkedHeights.get(leg.chain);
    if (height === undefined || leg.timeoutBlockHeight > height) return;
    void this.ctx.swaps.dispatch(swap.id, { type: 'timeout', data: { timedOutAtHeight: height } }).catch((error: unknown) => {
      // The next block's timeout check tries again.
      this.ctx.logger.warn('timeout after a transition failed', { swap: swap.id, error: String(error) });
    });
  }

  /**
   * Ferry's own lockups, claims and refunds on `chain`: any the node lost is broadcast again; at a block (`height`),
   * any stuck unconfirmed for too long is fee-bumped.
   */
  async ownTransactions(chain: string, height?: number): Promise<void> {
    const settled = this.settled.get(chain) ?? new Set<string>();
    this.settled.set(chain, settled);
    const owned = await ownTransactionsOn(this.ctx, chain);
    const listed = new Set(owned.map((own) => own.tx.txid));
    for (const txid of settled) if (!listed.has(txid)) settled.delete(txid);
    for (const own of owned) {
      if (height !== undefined && settled.has(own.tx.txid)) continue;
      const restored = await restoreOwnTransaction(this.ctx, own);
      if (restored.where === 'confirmed' && restored.confirmations >= SETTLED_DEPTH) settled.add(own.tx.txid);
      // In a block: recorded, so once its swap is old news the claim or refund is no longer listed.
      const records = own.kind === 'lockup' ? undefined : SPEND_RECORDS[own.kind];
      if (restored.where === 'confirmed' && records !== undefined && own.swap.data[records.confirmedFlag] !== true) {
        await this.ctx.swaps.dispatch(own.swap.id, { type: records.confirmed });
      }
      // Buried this deep, the claim is the end of the swap: it stops being followed on chain (needsChain).
      if (own.kind === 'claim' && restored.where === 'confirmed' && restored.confirmations >= SETTLED_DEPTH && own.swap.data.claimSettled !== true) {
        await this.ctx.swaps.dispatch(own.swap.id, { type: 'claim.settled' });
      }
      if (restored.where === 'mempool' && height !== undefined) await bumpIfStuck(this.ctx, own, height);
      await this.unconfirmed.check(own, restored, height);
    }
  }

  /** Rolls back swaps whose user lockup left `chain`; the chain is rechecked at its blocks while a lockup stays vanished. */
  async recheckUserLockups(chain: string): Promise<void> {
    if (await recheckUserLockups(this.ctx, chain)) this.userReorged.add(chain);
    else this.userReorged.delete(chain);
  }

  /**
   * A contract chain's transactions of Ferry's that the node dropped before mining them are sent again, unchanged:
   * every later transaction of Ferry's account waits behind them. Never fails the block handler.
   */
  private async sendAgainDropped(chain: ContractChain): Promise<void> {
    try {
      for (const outcome of (await chain.sendAgainDropped?.()) ?? []) {
        if (outcome.sent) this.ctx.logger.warn('a transaction of Ferry\'s the node dropped was sent again', { chain: chain.symbol, txHash: outcome.txHash });
        else this.ctx.logger.info('a transaction of Ferry\'s the node dropped is refused again', { chain: chain.symbol, txHash: outcome.txHash, error: outcome.error });
      }
    } catch (error) {
      this.ctx.logger.warn('could not look for dropped transactions', { chain: chain.symbol, error: String(error) });
    }
  }

  private markShallow(chain: string): void {
    this.shallow.add(chain);
    this.shallowMarks++;
  }

  /** The user lockups on `chain` short of their depth; the chain is skipped at its blocks once none is. */
  private async recheckDepths(chain: string): Promise<void> {
    const marks = this.shallowMarks;
    if (!(await recheckLockupDepths(this.ctx, chain)) && marks === this.shallowMarks) this.shallow.delete(chain);
  }

  private async recheckContractDepths(chain: ContractChain): Promise<void> {
    const marks = this.shallowMarks;
    if (!(await recheckContractLockupDepths(this.ctx, chain)) && marks === this.shallowMarks) this.shallow.delete(chain.symbol);
  }

  private async lockup(chain: ChainBackend, event: LockupEvent): Promise<void> {
    const by = this.ctx.watching.ofScript(chain.symbol, event.scriptHex);
    const swap = by === undefined ? undefined : await this.ctx.swaps.get(by.swapId);
    if (swap === undefined) return;
    if (by!.leg === 'userLockup') await onUserLockup(this.ctx, swap, event);
    else await onServerLockup(this.ctx, swap, event);
  }

  /** A contract event concerns the swap of its preimage hash, on that swap's leg on this chain. */
  private async contractEvent(chain: ContractChain, event: ContractSwapEvent): Promise<void> {
    const swap = await this.ctx.storage.swaps.getByPreimageHash(event.preimageHash);
    const leg = swap && lockupLegsOf(swap).find((candidate) => candidate.chain === chain.symbol && candidate.contract !== undefined);
    if (swap === undefined || leg === undefined) return;
    if (leg.name === 'userLockup') {
      if (event.type === 'lockup') await onUserContractLockup(this.ctx, swap, event);
      else await onUserContractSpend(this.ctx, swap, event);
    } else if (event.type === 'lockup') {
      await onServerContractLockup(this.ctx, swap, event);
    } else {
      await onServerContractSpend(this.ctx, swap, event);
    }
  }

  private async spend(chain: ChainBackend, event: SpendEvent): Promise<void> {
    const by = this.ctx.watching.ofOutpoint(chain.symbol, event.outpoint.txid, event.outpoint.vout);
    const swap = by === undefined ? undefined : await this.ctx.swaps.get(by.swapId);
    if (swap === undefined) return;
    if (by!.leg === 'userLockup') await onUserLockupSpend(this.ctx, swap, event);
    else await onServerLockupSpend(this.ctx, swap, event);
  }
}
