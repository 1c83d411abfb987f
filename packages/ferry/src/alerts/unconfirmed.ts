// Ferry's own lockups, claims and refunds that stay unconfirmed: once one has waited `unconfirmedAfterBlocks` blocks
// since it first entered the mempool (fee bumps included: a replacement does not restart the count), the operator
// is told ('unconfirmed', warn) — a claim that does not confirm is a lockup the user may still refund, a refund that
// does not confirm one the user may still claim. Cleared once a block has it. Fed by the chain router's pass over
// Ferry's transactions at each block (engine/chain-events.ts, ownTransactions) on UTXO chains, and on contract chains
// (RBTC) at each block from the chain's own list of Ferry's transactions sent and not yet mined: there every
// transaction of Ferry's account waits in one queue behind the one before, so one stuck lock, claim or refund holds up
// all the others too.
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { EngineContext } from '../engine/context.ts';
import { legChain, lockupLegsOf } from '../engine/legs/lockup-leg.ts';
import type { OwnTransaction, Restored } from '../engine/legs/own-transactions.ts';

export class UnconfirmedWatch {
  /** Per swap and kind, the lowest mempool entry height seen while unconfirmed (since this process started). */
  private readonly since = new Map<string, number>();
  /** Per contract chain, the keys of the alerts raised for its pending transactions (cleared once mined). */
  private readonly contractRaised = new Map<string, Set<string>>();

  constructor(private readonly ctx: EngineContext) {}

  /**
   * Looks at one of Ferry's transactions as the router found it (`height`: at a block; undefined after a reorg).
   * Never fails the router's pass: a node that does not answer is asked again at the next block.
   */
  async check(own: OwnTransaction, restored: Restored, height: number | undefined): Promise<void> {
    try {
      await this.look(own, restored, height);
    } catch (error) {
      this.ctx.logger.warn('unconfirmed check failed', { swap: own.swap.id, kind: own.kind, error: String(error) });
    }
  }

  /**
   * At a block (`height`) of a contract chain: raises the alert for each of Ferry's transactions that has waited the
   * target since it was sent (once per swap and kind), and clears those raised whose transaction is no longer pending.
   * Never fails the router's block handler.
   */
  async checkContract(chain: ContractChain, height: number): Promise<void> {
    try {
      await this.lookAtContract(chain, height);
    } catch (error) {
      this.ctx.logger.warn('unconfirmed check failed', { chain: chain.symbol, error: String(error) });
    }
  }

  private async lookAtContract(chain: ContractChain, height: number): Promise<void> {
    const raised = this.contractRaised.get(chain.symbol) ?? new Set<string>();
    this.contractRaised.set(chain.symbol, raised);
    const after = this.ctx.settings.alertUnconfirmedAfterBlocks;
    const waiting = new Set<string>();
    for (const tx of chain.pendingTransactions?.() ?? []) {
      const waited = height - tx.sentAtHeight;
      for (const preimageHash of tx.preimageHashes) {
        const swap = await this.ctx.storage.swaps.getByPreimageHash(preimageHash);
        const key = `${swap?.id ?? preimageHash}:${tx.kind}`;
        waiting.add(key);
        if (after <= 0 || waited < after || raised.has(key)) continue;
        const leg = swap && lockupLegsOf(swap).find((candidate) => candidate.chain === chain.symbol && candidate.contract !== undefined);
        await this.ctx.alerts.raise({
          kind: 'unconfirmed',
          severity: 'warn',
          key,
          chain: chain.symbol,
          ...(swap && { swapId: swap.id, pair: swap.pair }),
          ...(leg && { amount: leg.lockup?.value ?? leg.amount }),
          message: `Ferry's ${tx.kind} ${swap ? `of swap ${swap.id} ` : ''}has waited ${waited} blocks unmined on ${chain.symbol}`,
          details: { txid: tx.txHash, transaction: tx.kind, waitedBlocks: waited, targetBlocks: after },
        });
        raised.add(key);
      }
    }
    for (const key of raised) {
      if (waiting.has(key)) continue;
      raised.delete(key);
      await this.ctx.alerts.clear('unconfirmed', key);
    }
  }

  private async look(own: OwnTransaction, restored: Restored, height: number | undefined): Promise<void> {
    const key = `${own.swap.id}:${own.kind}`;
    if (restored.where === 'confirmed') {
      this.since.delete(key);
      await this.ctx.alerts.clear('unconfirmed', key);
      return;
    }
    const after = this.ctx.settings.alertUnconfirmedAfterBlocks;
    if (restored.where !== 'mempool' || height === undefined || after <= 0) return;
    const entry = await legChain(this.ctx, own.leg).mempoolEntry(own.tx.txid);
    if (entry === undefined) return;
    const first = Math.min(this.since.get(key) ?? entry.height, entry.height);
    this.since.set(key, first);
    const waited = height - first;
    if (waited < after) return;
    await this.ctx.alerts.raise({
      kind: 'unconfirmed',
      severity: 'warn',
      key,
      swapId: own.swap.id,
      pair: own.swap.pair,
      chain: own.leg.chain,
      amount: own.leg.lockup?.value ?? own.leg.amount,
      message: `Ferry's ${own.kind} of swap ${own.swap.id} has waited ${waited} blocks unconfirmed on ${own.leg.chain}`,
      details: { txid: own.tx.txid, transaction: own.kind, waitedBlocks: waited, targetBlocks: after },
    });
  }
}
