// The pair data of the deprecated v1 API (GET /getpairs, GET /timeouts), built from the same pair config and
// fee estimate as the v2 listings, so both versions always quote the same prices.
import { pairHash, type MinerFees, type PairConfig } from '../swaps/pairs.ts';
import type { V1MinerFees, V1PairBody, V1TimeoutsBody } from '../protocol/index.ts';

function v1MinerFees(fees: MinerFees): V1MinerFees {
  return { normal: fees.normal, reverse: { claim: fees.reverse.claim, lockup: fees.reverse.lockup } };
}

/**
 * One v1 pair. Ferry's pairs have bitcoin on both sides (the chain as base, Lightning as quote), so the quote
 * asset's chain figures are the base asset's: they are paid on the same chain.
 */
export function v1PairBody(pair: PairConfig, fees: MinerFees): V1PairBody {
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
      minerFees: { baseAsset: minerFees, quoteAsset: v1MinerFees(fees) },
    },
  };
  return { hash: pairHash(rest), ...rest };
}

export function v1TimeoutsBody(pair: PairConfig): V1TimeoutsBody {
  const { reverse, swapMinimal, swapMaximal } = pair.timeouts;
  return { base: { reverse, swapMinimal, swapMaximal }, quote: { reverse, swapMinimal, swapMaximal } };
}
