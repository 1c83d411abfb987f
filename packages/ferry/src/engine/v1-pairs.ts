// The pair data of the deprecated v1 API (GET /getpairs, GET /timeouts), built from the same pair config and
// fee estimate as the v2 listings, so both versions always quote the same prices.
import { pairHash, type MinerFees, type PairConfig } from '../swaps/pairs.ts';
import { lightningBlocksFor } from './block-time.ts';
import { anyChainOf, currentMinerFees, type EngineContext } from './context.ts';
import type { V1MinerFees, V1PairBody, V1TimeoutsBody } from '@ferry/sdk/protocol/index.js';

function v1MinerFees(fees: MinerFees): V1MinerFees {
  return { normal: fees.normal, reverse: { claim: fees.reverse.claim, lockup: fees.reverse.lockup } };
}

/**
 * One v1 pair: the chain as base, Lightning as quote. The quote asset's chain figures are those of the quote's own
 * chain (Bitcoin's for L-BTC/BTC; the same chain's for BTC/BTC).
 */
export function v1PairBody(pair: PairConfig, fees: MinerFees, quoteFees: MinerFees = fees): V1PairBody {
  const minerFees = v1MinerFees(fees);
  const rest = {
    rate: pair.rate,
    limits: {
      minimal: pair.limits.minimal,
      maximal: pair.limits.maximal,
      maximalZeroConf: { baseAsset: pair.limits.maximalZeroConf, quoteAsset: pair.limits.maximalZeroConf },
    },
    fees: {
      percentage: pair.fees.percentage,
      percentageSwapIn: pair.fees.percentageSwapIn,
      minerFees: { baseAsset: minerFees, quoteAsset: v1MinerFees(quoteFees) },
    },
  };
  return { hash: pairHash(rest), ...rest };
}

/** A pair's v1 body now: v1 swaps are legacy swaps, so its fees are those of legacy spends. */
export async function currentV1Pair(ctx: EngineContext, pair: PairConfig): Promise<V1PairBody> {
  const quoteChain = ctx.chains.get(pair.quote);
  const fees = await currentMinerFees(anyChainOf(ctx, pair.base), 'legacy');
  return v1PairBody(pair, fees, quoteChain && (await currentMinerFees(quoteChain, 'legacy')));
}

/** The pair's timeouts in the base chain's blocks, and the same times in the quote's (Lightning's Bitcoin) blocks. */
export function v1TimeoutsBody(pair: PairConfig, chain: { blockSeconds: number }): V1TimeoutsBody {
  const { reverse, swapMinimal, swapMaximal } = pair.timeouts;
  const quote = (blocks: number) => lightningBlocksFor(chain, blocks);
  return { base: { reverse, swapMinimal, swapMaximal }, quote: { reverse: quote(reverse), swapMinimal: quote(swapMinimal), swapMaximal: quote(swapMaximal) } };
}
