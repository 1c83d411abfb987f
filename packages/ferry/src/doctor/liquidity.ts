// Whether a Lightning node's channels can carry the pairs' largest swaps: a submarine swap is paid out of the
// node's outbound capacity, a reverse swap's invoice is paid into its inbound capacity. Short of either, the
// larger swaps fail (a warning: smaller ones still work).
import type { PairConfig } from '../swaps/pairs.ts';
import type { CheckList } from './check.ts';

export interface LiquidityNeeds {
  largestSubmarineSat: number;
  largestReverseSat: number;
}

/** The largest swap of the pairs paid to or from Lightning (a pair's quote is its Lightning side). */
export function liquidityNeeds(pairs: PairConfig[]): LiquidityNeeds {
  const largest = Math.max(0, ...pairs.filter((p) => p.quote === 'BTC').map((p) => p.limits.maximal));
  return { largestSubmarineSat: largest, largestReverseSat: largest };
}

export function judgeLiquidity(list: CheckList, have: { outboundSat: number; inboundSat: number }, needs: LiquidityNeeds): void {
  const outbound = `${have.outboundSat} sat outbound, the largest submarine swap pays ${needs.largestSubmarineSat}`;
  if (have.outboundSat < needs.largestSubmarineSat) list.warn('outbound liquidity', `${outbound}: larger submarine swaps cannot be paid`);
  else list.ok('outbound liquidity', outbound);
  const inbound = `${have.inboundSat} sat inbound, the largest reverse swap receives ${needs.largestReverseSat}`;
  if (have.inboundSat < needs.largestReverseSat) list.warn('inbound liquidity', `${inbound}: larger reverse swaps cannot be received`);
  else list.ok('inbound liquidity', inbound);
}
