// estimatesmartfee: fee rates actually paid in recent blocks, with Core's relay floor. A short target asks
// for a higher percentile. With no transactions to learn from, a default of 2 sat/vB.
import type { BitcoinNode } from './node.ts';

const LOOKBACK_BLOCKS = 10;
export const FLOOR_SAT_PER_KVB = 1000;
export const DEFAULT_SAT_PER_KVB = 2000;
export const MAX_CONF_TARGET = 1008;

export interface FeeEstimate {
  satPerKvB: number;
  blocks: number;
}

export function estimateSmartFee(node: BitcoinNode, confTarget: number): FeeEstimate {
  // Core never answers for a 1-block target: its estimates start at 2.
  const blocks = Math.max(2, Math.min(confTarget, MAX_CONF_TARGET));
  const rates: number[] = [];
  for (let height = node.height; height > Math.max(0, node.height - LOOKBACK_BLOCKS); height--) {
    const entry = node.blockAt(height)!;
    entry.block.txs.forEach((tx, index) => {
      const fee = node.chain.feeOf(entry, index);
      if (fee !== undefined) rates.push((Number(fee) * 1000) / tx.vsize);
    });
  }
  if (rates.length === 0) return { satPerKvB: DEFAULT_SAT_PER_KVB, blocks };
  rates.sort((a, b) => a - b);
  const percentile = blocks <= 2 ? 0.75 : blocks <= 6 ? 0.5 : 0.25;
  const rate = rates[Math.min(rates.length - 1, Math.floor(rates.length * percentile))];
  return { satPerKvB: Math.max(FLOOR_SAT_PER_KVB, Math.ceil(rate)), blocks };
}
