// Pair configuration (rate, fees, limits, timeouts) and the pair bodies the v2 API lists, with their hash.
import { createHash } from 'node:crypto';
import type { ReversePairBody, SubmarinePairBody } from '@ferry/sdk/protocol/index.js';
import { minerFee } from './amounts.ts';
import { formatConfirmations, parseConfirmations, type ConfirmationTiers } from './confirmations.ts';

export interface PairConfig {
  /** "BASE/QUOTE": the chain asset first, the Lightning asset second. */
  id: string;
  base: string;
  quote: string;
  rate: number;
  fees: {
    /** Percent of the invoice charged on reverse swaps (Lightning → chain). */
    percentage: number;
    /** Percent of the invoice charged on submarine swaps (chain → Lightning). */
    percentageSwapIn: number;
    /** Percent of the user's lockup charged on chain swaps (chain → chain, either direction). */
    percentageChain: number;
  };
  limits: {
    /** Smallest invoice amount, sat. */
    minimal: number;
    /** Largest invoice amount, sat. */
    maximal: number;
    /** Largest submarine lockup accepted before it confirms; 0 turns 0-conf off. */
    maximalZeroConf: number;
  };
  /**
   * Blocks a user lockup must be deep in, by its amount, before Ferry pays or locks against it — on whichever of
   * the pair's chains the user locks. Unset: each chain's default for the network (DEFAULT_CONFIRMATIONS).
   */
  confirmations?: ConfirmationTiers;
  /** In blocks of the base chain. */
  timeouts: {
    reverse: number;
    swapMinimal: number;
    swapMaximal: number;
  };
}

/**
 * BTC/BTC defaults. The fees and timeouts are the reference deployment's. The minimal is 10 000 sat rather than
 * its 50 000 so devnet swaps stay cheap, and 0-conf is on up to 1 000 000 sat so the 0-conf path is exercised;
 * an operator on mainnet will want to lower maximalZeroConf (or set 0).
 */
export const DEFAULT_BTC_PAIR: PairConfig = {
  id: 'BTC/BTC',
  base: 'BTC',
  quote: 'BTC',
  rate: 1,
  fees: { percentage: 0.25, percentageSwapIn: 0.1, percentageChain: 0.1 },
  limits: { minimal: 10_000, maximal: 10_000_000, maximalZeroConf: 1_000_000 },
  timeouts: { reverse: 144, swapMinimal: 144, swapMaximal: 288 },
};

/** Typical virtual sizes of Taproot swap transactions on Bitcoin (REFERENCE.md). */
export const TYPICAL_VSIZE = {
  /** The service's script-path claim of a submarine lockup. */
  claim: 151,
  /** The service's reverse lockup transaction. */
  reverseLockup: 154,
  /** The user's key-path claim of a reverse lockup. */
  reverseClaim: 111,
} as const;

export interface MinerFees {
  /** Submarine: the service's claim. */
  normal: number;
  reverse: { lockup: number; claim: number };
}

/** Virtual sizes of a chain's swap transactions, as its ChainBackend states them. */
export interface SwapSizes {
  claim: number;
  serverLockup: number;
  clientClaim: number;
}

const BITCOIN_TAPROOT_SIZES: SwapSizes = { claim: TYPICAL_VSIZE.claim, serverLockup: TYPICAL_VSIZE.reverseLockup, clientClaim: TYPICAL_VSIZE.reverseClaim };

export function minerFeesFor(satPerVbyte: number, sizes: SwapSizes = BITCOIN_TAPROOT_SIZES): MinerFees {
  return {
    normal: minerFee(satPerVbyte, sizes.claim),
    reverse: {
      lockup: minerFee(satPerVbyte, sizes.serverLockup),
      claim: minerFee(satPerVbyte, sizes.clientClaim),
    },
  };
}

/** Hex SHA256 of JSON.stringify({rate, fees, limits}), keys in exactly that order. */
export function pairHash(body: { rate: number; fees: unknown; limits: unknown }): string {
  const json = JSON.stringify({ rate: body.rate, fees: body.fees, limits: body.limits });
  return createHash('sha256').update(json).digest('hex');
}

export function submarinePairBody(pair: PairConfig, fees: MinerFees): SubmarinePairBody {
  const rest = {
    rate: pair.rate,
    limits: { maximal: pair.limits.maximal, minimal: pair.limits.minimal, maximalZeroConf: pair.limits.maximalZeroConf },
    fees: { percentage: pair.fees.percentageSwapIn, minerFees: fees.normal },
  };
  return { hash: pairHash(rest), ...rest };
}

export function reversePairBody(pair: PairConfig, fees: MinerFees): ReversePairBody {
  const rest = {
    rate: pair.rate,
    limits: { maximal: pair.limits.maximal, minimal: pair.limits.minimal },
    fees: { percentage: pair.fees.percentage, minerFees: { lockup: fees.reverse.lockup, claim: fees.reverse.claim } },
  };
  return { hash: pairHash(rest), ...rest };
}

/** Checks a pair config once at start-up, so a typo fails loudly instead of mispricing swaps. */
export function validatePair(pair: PairConfig): void {
  const problems: string[] = [];
  if (!(pair.rate > 0)) problems.push('rate must be positive');
  for (const [name, value] of Object.entries(pair.fees)) {
    if (!(value >= 0 && value < 100)) problems.push(`fees.${name} must be a percentage in [0, 100)`);
  }
  const { minimal, maximal, maximalZeroConf } = pair.limits;
  if (!Number.isSafeInteger(minimal) || minimal <= 0) problems.push('limits.minimal must be a positive integer');
  if (!Number.isSafeInteger(maximal) || maximal < minimal) problems.push('limits.maximal must be an integer ≥ minimal');
  if (!Number.isSafeInteger(maximalZeroConf) || maximalZeroConf < 0) problems.push('limits.maximalZeroConf must be ≥ 0');
  const { reverse, swapMinimal, swapMaximal } = pair.timeouts;
  for (const [name, value] of Object.entries({ reverse, swapMinimal, swapMaximal })) {
    if (!Number.isSafeInteger(value) || value < 2) problems.push(`timeouts.${name} must be an integer ≥ 2 blocks`);
  }
  if (swapMaximal < swapMinimal) problems.push('timeouts.swapMaximal must be ≥ swapMinimal');
  if (pair.confirmations !== undefined) {
    try {
      if (pair.confirmations.length === 0 || pair.confirmations.at(-1)!.upTo !== Infinity) throw new Error('the last tier must cover every amount');
      parseConfirmations(formatConfirmations(pair.confirmations));
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new Error(`pair ${pair.id}: ${problems.join('; ')}`);
}
