// Unconfirmed transactions: entries in arrival order (parents always arrive before their children), the
// outpoints they spend, parent/child links, and fee-rate block selection that never puts a child
// before its parent.
import type { EvictionCandidate } from './accept.ts';
import type { Coin } from './chain.ts';
import { outpointKey, type Tx } from './tx.ts';

export interface MempoolEntry {
  tx: Tx;
  fee: bigint;
  time: number; // unix seconds it entered
  height: number; // chain height when it entered
  spentCoins: Coin[]; // per input
  parents: Set<string>;
  children: Set<string>;
}

export class Mempool {
  readonly entries = new Map<string, MempoolEntry>();
  private readonly spenders = new Map<string, string>();
  private readonly byWtxid = new Map<string, string>();
  totalWeight = 0;

  get size(): number {
    return this.entries.size;
  }

  get(txid: string): MempoolEntry | undefined {
    return this.entries.get(txid);
  }

  hasWtxid(wtxid: string): boolean {
    return this.byWtxid.has(wtxid);
  }

  /** The mempool transaction spending an outpoint, if any. */
  spender(txid: string, vout: number): string | undefined {
    return this.spenders.get(outpointKey(txid, vout));
  }

  /** An output of a mempool transaction, as a coin at height `nextHeight`. */
  outputCoin(txid: string, vout: number, nextHeight: number): Coin | undefined {
    const output = this.entries.get(txid)?.tx.outputs[vout];
    return output ? { value: output.value, script: output.script, height: nextHeight, coinbase: false } : undefined;
  }

  add(entry: MempoolEntry): void {
    const { tx } = entry;
    for (const input of tx.inputs) {
      this.spenders.set(outpointKey(input.prevTxid, input.vout), tx.txid);
      const parent = this.entries.get(input.prevTxid);
      if (parent) {
        entry.parents.add(input.prevTxid);
        parent.children.add(tx.txid);
      }
    }
    this.entries.set(tx.txid, entry);
    this.byWtxid.set(tx.wtxid, tx.txid);
    this.totalWeight += tx.weight;
  }

  /** Removes one entry (its children stay; callers remove them or they are being mined too). */
  remove(txid: string): MempoolEntry | undefined {
    const entry = this.entries.get(txid);
    if (!entry) return undefined;
    for (const input of entry.tx.inputs) this.spenders.delete(outpointKey(input.prevTxid, input.vout));
    for (const parent of entry.parents) this.entries.get(parent)?.children.delete(txid);
    for (const child of entry.children) this.entries.get(child)?.parents.delete(txid);
    this.entries.delete(txid);
    this.byWtxid.delete(entry.tx.wtxid);
    this.totalWeight -= entry.tx.weight;
    return entry;
  }

  clear(): MempoolEntry[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.spenders.clear();
    this.byWtxid.clear();
    this.totalWeight = 0;
    return all;
  }

  private walk(txid: string, next: (entry: MempoolEntry) => Set<string>): Set<string> {
    const seen = new Set<string>();
    const stack = [txid];
    while (stack.length > 0) {
      const entry = this.entries.get(stack.pop()!);
      if (!entry) continue;
      for (const other of next(entry)) {
        if (!seen.has(other)) {
          seen.add(other);
          stack.push(other);
        }
      }
    }
    return seen;
  }

  ancestors(txid: string): Set<string> {
    return this.walk(txid, (entry) => entry.parents);
  }

  descendants(txid: string): Set<string> {
    return this.walk(txid, (entry) => entry.children);
  }

  /** What replacing these mempool transactions would evict: them (direct) and, with their descendants, all. */
  evictionSet(conflicts: string[]): { direct: EvictionCandidate[]; all: EvictionCandidate[] } {
    const candidate = (txid: string): EvictionCandidate => {
      const entry = this.entries.get(txid)!;
      return { txid, fee: entry.fee, vsize: entry.tx.vsize };
    };
    const all = new Set(conflicts);
    for (const txid of conflicts) for (const descendant of this.descendants(txid)) all.add(descendant);
    return { direct: conflicts.map(candidate), all: [...all].map(candidate) };
  }

  /**
   * Picks transactions for a block by fee rate. Only transactions whose mempool parents are already
   * picked are candidates, so the order is always valid; O(n log n).
   */
  selectForBlock(maxWeight: number): MempoolEntry[] {
    const pendingParents = new Map<string, number>();
    const heap = new FeeRateHeap();
    for (const [txid, entry] of this.entries) {
      pendingParents.set(txid, entry.parents.size);
      if (entry.parents.size === 0) heap.push(entry);
    }
    const picked: MempoolEntry[] = [];
    let weight = 0;
    while (heap.size > 0) {
      const entry = heap.pop()!;
      if (weight + entry.tx.weight > maxWeight) continue; // its descendants never become candidates
      picked.push(entry);
      weight += entry.tx.weight;
      for (const child of entry.children) {
        const left = pendingParents.get(child)! - 1;
        pendingParents.set(child, left);
        if (left === 0) heap.push(this.entries.get(child)!);
      }
    }
    return picked;
  }
}

/** Max-heap on fee per weight unit; ties go to the earlier arrival. */
class FeeRateHeap {
  private readonly items: { entry: MempoolEntry; rate: number; order: number }[] = [];
  private counter = 0;

  get size(): number {
    return this.items.length;
  }

  private before(a: number, b: number): boolean {
    const x = this.items[a];
    const y = this.items[b];
    return x.rate > y.rate || (x.rate === y.rate && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
  }

  push(entry: MempoolEntry): void {
    this.items.push({ entry, rate: Number(entry.fee) / entry.tx.weight, order: this.counter++ });
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): MempoolEntry | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0].entry;
    const last = this.items.pop()!;
    if (this.items.length > 0) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let best = i;
        if (left < this.items.length && this.before(left, best)) best = left;
        if (right < this.items.length && this.before(right, best)) best = right;
        if (best === i) break;
        this.swap(i, best);
        i = best;
      }
    }
    return top;
  }
}
