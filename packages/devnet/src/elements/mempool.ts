// Unconfirmed Elements transactions: entries in arrival order, the outpoints they spend, parent/child links,
// and block selection by fee rate (policy-asset fee per discounted vbyte) that never puts a child first.
import type { ElementsCoin } from './chain.ts';
import { isUnspendable, outpointKey, prevout, type ElementsTx } from './tx.ts';

export interface ElementsMempoolEntry {
  tx: ElementsTx;
  fee: bigint; // L-BTC, satoshi
  time: number;
  height: number; // chain height when it entered
  spentCoins: ElementsCoin[];
  parents: Set<string>;
  children: Set<string>;
}

export class ElementsMempool {
  readonly entries = new Map<string, ElementsMempoolEntry>();
  private readonly spenders = new Map<string, string>();
  private readonly byWtxid = new Map<string, string>();

  get size(): number {
    return this.entries.size;
  }

  get(txid: string): ElementsMempoolEntry | undefined {
    return this.entries.get(txid);
  }

  hasWtxid(wtxid: string): boolean {
    return this.byWtxid.has(wtxid);
  }

  spender(txid: string, vout: number): string | undefined {
    return this.spenders.get(outpointKey(txid, vout));
  }

  /** A spendable output of a mempool transaction (not a fee or OP_RETURN output), as a coin at `nextHeight`. */
  outputCoin(txid: string, vout: number, nextHeight: number): ElementsCoin | undefined {
    const output = this.entries.get(txid)?.tx.tx.outs[vout];
    return output && !isUnspendable(output) ? { output, height: nextHeight, coinbase: false } : undefined;
  }

  add(entry: ElementsMempoolEntry): void {
    const { tx } = entry;
    tx.tx.ins.forEach((_, i) => {
      const { txid, vout } = prevout(tx.tx, i);
      this.spenders.set(outpointKey(txid, vout), tx.txid);
      const parent = this.entries.get(txid);
      if (parent) {
        entry.parents.add(txid);
        parent.children.add(tx.txid);
      }
    });
    this.entries.set(tx.txid, entry);
    this.byWtxid.set(tx.wtxid, tx.txid);
  }

  remove(txid: string): ElementsMempoolEntry | undefined {
    const entry = this.entries.get(txid);
    if (!entry) return undefined;
    entry.tx.tx.ins.forEach((_, i) => {
      const spent = prevout(entry.tx.tx, i);
      this.spenders.delete(outpointKey(spent.txid, spent.vout));
    });
    for (const parent of entry.parents) this.entries.get(parent)?.children.delete(txid);
    for (const child of entry.children) this.entries.get(child)?.parents.delete(txid);
    this.entries.delete(txid);
    this.byWtxid.delete(entry.tx.wtxid);
    return entry;
  }

  clear(): ElementsMempoolEntry[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.spenders.clear();
    this.byWtxid.clear();
    return all;
  }

  /** Transactions for a block, best fee rate first among those whose mempool parents are already picked. */
  selectForBlock(maxWeight: number): ElementsMempoolEntry[] {
    const picked: ElementsMempoolEntry[] = [];
    const done = new Set<string>();
    const skipped = new Set<string>();
    let weight = 0;
    for (;;) {
      let best: ElementsMempoolEntry | undefined;
      for (const entry of this.entries.values()) {
        const txid = entry.tx.txid;
        if (done.has(txid) || skipped.has(txid) || [...entry.parents].some((p) => !done.has(p))) continue;
        // fee/vsize compared without division; ties keep arrival order.
        if (!best || entry.fee * BigInt(best.tx.vsize) > best.fee * BigInt(entry.tx.vsize)) best = entry;
      }
      if (!best) return picked;
      if (weight + best.tx.fullWeight > maxWeight) {
        skipped.add(best.tx.txid);
        continue;
      }
      picked.push(best);
      done.add(best.tx.txid);
      weight += best.tx.fullWeight;
    }
  }
}
