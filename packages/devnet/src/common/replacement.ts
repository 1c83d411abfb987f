// Replacement of mempool transactions (BIP125 rules, as full RBF: no signalling needed), shared by the devnet's
// Bitcoin and Elements nodes, each behind its own `fullRbf` switch: simplified from Core's policy/rbf.cpp — the
// replacement must not spend what it evicts, must pay a higher fee rate than each transaction it conflicts with
// directly, and must pay for everything it evicts plus its own relay at the node's incremental rate.
import { TxRejected } from './rejection.ts';

/** A mempool transaction a replacement would evict, as acceptance judges it (vsize: what fee rates are judged by). */
export interface EvictionCandidate {
  txid: string;
  fee: bigint;
  vsize: number;
}

/** What either node's mempool entry offers: its fee, its size, its children in the mempool. */
export interface ReplaceableEntry {
  fee: bigint;
  tx: { vsize: number };
  children: Set<string>;
}

/** Core's MAX_REPLACEMENT_CANDIDATES. */
const MAX_REPLACEMENT_CANDIDATES = 100;

/** The direct conflicts and, with all their mempool descendants (each once), everything a replacement evicts. */
export function evictionSet(entry: (txid: string) => ReplaceableEntry | undefined, conflicts: string[]): { direct: EvictionCandidate[]; all: EvictionCandidate[] } {
  const candidate = (txid: string): EvictionCandidate => {
    const found = entry(txid)!;
    return { txid, fee: found.fee, vsize: found.tx.vsize };
  };
  const all = new Set(conflicts);
  const stack = [...conflicts];
  while (stack.length > 0) {
    for (const child of entry(stack.pop()!)?.children ?? []) {
      if (!all.has(child)) {
        all.add(child);
        stack.push(child);
      }
    }
  }
  return { direct: conflicts.map(candidate), all: [...all].map(candidate) };
}

/** The replacing transaction: its txid, the size its fee rate is judged by, and the txids its inputs spend. */
export interface Replacement {
  txid: string;
  vsize: number;
  spends: string[];
}

/**
 * Checks `tx` (paying `fee`) against what it conflicts with; returns the txids it evicts. `money` writes amounts
 * in the node's messages (Core's FormatMoney); `incrementalSatPerKvB` is the node's -incrementalrelayfee.
 */
export function checkReplacement(
  tx: Replacement,
  fee: bigint,
  eviction: { direct: EvictionCandidate[]; all: EvictionCandidate[] },
  incrementalSatPerKvB: bigint,
  money: (sat: bigint) => string,
): string[] {
  const { direct, all } = eviction;
  const evicted = new Set(all.map((entry) => entry.txid));
  if (all.length > MAX_REPLACEMENT_CANDIDATES) {
    throw new TxRejected('too many potential replacements', `rejecting replacement ${tx.txid}; too many potential replacements (${all.length} > ${MAX_REPLACEMENT_CANDIDATES})`);
  }
  for (const spent of tx.spends) {
    if (evicted.has(spent)) throw new TxRejected('bad-txns-spends-conflicting-tx', `${tx.txid} spends conflicting transaction ${spent}`);
  }
  const rate = (amount: bigint, vsize: number) => `${money((amount * 1000n) / BigInt(vsize))} BTC/kvB`;
  for (const original of direct) {
    // fee / vsize compared without division: fee × other vsize.
    if (fee * BigInt(original.vsize) <= original.fee * BigInt(tx.vsize)) {
      throw new TxRejected('insufficient fee', `rejecting replacement ${tx.txid}; new feerate ${rate(fee, tx.vsize)} <= old feerate ${rate(original.fee, original.vsize)}`);
    }
  }
  const evictedFees = all.reduce((sum, entry) => sum + entry.fee, 0n);
  if (fee < evictedFees) {
    throw new TxRejected('insufficient fee', `rejecting replacement ${tx.txid}, less fees than conflicting txs; ${money(fee)} < ${money(evictedFees)}`);
  }
  const additional = fee - evictedFees;
  const relay = (BigInt(tx.vsize) * incrementalSatPerKvB) / 1000n;
  if (additional < relay) {
    throw new TxRejected('insufficient fee', `rejecting replacement ${tx.txid}, not enough additional fees to relay; ${money(additional)} < ${money(relay)}`);
  }
  return [...evicted];
}
