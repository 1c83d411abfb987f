// Which state each reported transaction was last reported in (mempool, or a given block), so the same
// transaction is not reported twice for the same state, is reported again after a reorg drops its
// block, and keeps producing confirmation events as blocks arrive on top of it.
import type { BlockRef } from '@ferry/sdk/chains/events.js';

type ReportedState = { inBlock: false } | { inBlock: true; height: number; hash: string };

export class TrackedTransactions {
  private readonly states = new Map<string, ReportedState>();

  isReported(txid: string): boolean {
    return this.states.has(txid);
  }

  isReportedInBlock(txid: string, blockHash: string): boolean {
    const state = this.states.get(txid);
    return state !== undefined && state.inBlock && state.hash === blockHash;
  }

  markMempool(txid: string): void {
    this.states.set(txid, { inBlock: false });
  }

  markBlock(txid: string, block: BlockRef): void {
    this.states.set(txid, { inBlock: true, height: block.height, hash: block.hash });
  }

  /** Forgets mempool transactions the node dropped (evicted, replaced), so they are reported if they return. */
  forgetLeftMempool(mempool: Set<string>): void {
    for (const [txid, state] of this.states) if (!state.inBlock && !mempool.has(txid)) this.states.delete(txid);
  }

  /** Forgets transactions of disconnected blocks so they are reported again where they reappear; returns them. */
  disconnect(blockHashes: Set<string>): string[] {
    const dropped: string[] = [];
    for (const [txid, state] of this.states) {
      if (state.inBlock && blockHashes.has(state.hash)) {
        this.states.delete(txid);
        dropped.push(txid);
      }
    }
    return dropped;
  }

  /**
   * Transactions that reached a confirmation count in 2..maxConfirmations with the block at tipHeight
   * (the first confirmation is reported with the block that includes them). Forgets those deeper than
   * keepDepth, past which no reorg is followed.
   */
  deepened(tipHeight: number, maxConfirmations: number, keepDepth: number) {
    const deepened: { txid: string; confirmations: number; height: number; hash: string }[] = [];
    for (const [txid, state] of this.states) {
      if (!state.inBlock) continue;
      const confirmations = tipHeight - state.height + 1;
      if (confirmations >= 2 && confirmations <= maxConfirmations) {
        deepened.push({ txid, confirmations, height: state.height, hash: state.hash });
      }
      if (confirmations > keepDepth) this.states.delete(txid);
    }
    return deepened;
  }

  get size(): number {
    return this.states.size;
  }
}
