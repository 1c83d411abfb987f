// Unconfirmed transactions: entries in arrival order (parents always arrive before their children), the
// outpoints they spend, parent/child links, and ancestor-fee-rate block selection (Core's), which never puts a
// child before its parent and lets a child pay for its parent.
import { evictionSet, type EvictionCandidate } from '../common/replacement.ts';
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
    return evictionSet((txid) => this.entries.get(txid), conflicts);
  }

  /**
   * Picks transactions for a block by ancestor fee rate, as Core's BlockAssembler: the best package (a transaction
   * with its ancestors not yet picked, judged by their fees over their weight) goes in whole, parents first, and the
   * descendants of what went in are judged again without it. So a child paying for its parent (CPFP) takes the
   * parent in, and a child is never before its parent. A package that does not fit is left out.
   */
  selectForBlock(maxWeight: number): MempoolEntry[] {
    const picked = new Set<string>();
    const order: MempoolEntry[] = [];
    const version = new Map<string, number>();
    const heap = new FeeRateHeap();
    // Ancestors not yet picked: the walk stops at picked ones, whose own ancestors are all picked.
    const unpickedAncestors = (txid: string): Set<string> =>
      this.walk(txid, (entry) => new Set([...entry.parents].filter((id) => !picked.has(id))));
    const packageOf = (txid: string): MempoolEntry[] => [txid, ...unpickedAncestors(txid)].map((id) => this.entries.get(id)!);
    const judge = (txid: string): void => {
      const members = packageOf(txid);
      const stamp = (version.get(txid) ?? 0) + 1;
      version.set(txid, stamp);
      const fee = members.reduce((sum, entry) => sum + entry.fee, 0n);
      const weight = members.reduce((sum, entry) => sum + entry.tx.weight, 0);
      heap.push({ txid, rate: Number(fee) / weight, weight, stamp });
    };
    for (const txid of this.entries.keys()) judge(txid);
    let weight = 0;
    while (heap.size > 0) {
      const top = heap.pop()!;
      if (picked.has(top.txid) || version.get(top.txid) !== top.stamp) continue;
      if (weight + top.weight > maxWeight) continue;
      // Parents first: within a package, fewer in-package ancestors first.
      const members = packageOf(top.txid);
      const inPackage = new Set(members.map((entry) => entry.tx.txid));
      const depth = (entry: MempoolEntry) => [...unpickedAncestors(entry.tx.txid)].filter((id) => inPackage.has(id)).length;
      members.sort((a, b) => depth(a) - depth(b));
      const touched = new Set<string>();
      for (const entry of members) {
        picked.add(entry.tx.txid);
        order.push(entry);
        weight += entry.tx.weight;
        for (const descendant of this.descendants(entry.tx.txid)) touched.add(descendant);
      }
      for (const txid of touched) if (!picked.has(txid)) judge(txid);
    }
    return order;
  }
}

interface Candidate {
  txid: string;
  rate: number; // package fee per weight unit
  weight: number;
  stamp: number; // the judgement this is: older ones are stale
}

/** Max-heap of candidates on package fee rate; ties go to the earlier judgement. */
class FeeRateHeap {
  private readonly items: { candidate: Candidate; order: number }[] = [];
  private counter = 0;

  get size(): number {
    return this.items.length;
  }

  private before(a: number, b: number): boolean {
    const x = this.items[a];
    const y = this.items[b];
    return x.candidate.rate > y.candidate.rate || (x.candidate.rate === y.candidate.rate && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
  }

  push(candidate: Candidate): void {
    this.items.push({ candidate, order: this.counter++ });
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): Candidate | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0].candidate;
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
