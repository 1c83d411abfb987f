// The pairs the engine serves, from the configuration: the [[pairs]] list, or the BTC/BTC pair of [pair]. A pair
// between a chain and Lightning names its chain first (the base) and its Lightning currency second (the quote).
import { defaultMaximalZeroConf, parseConfirmations } from '../swaps/confirmations.ts';
import type { Network } from '@ferry/sdk/keys/index.js';
import type { PairConfig } from '../swaps/pairs.ts';
import { servesEvm, servesLiquid } from './load.ts';
import { knownPairDefaults, type FerryConfig, type PairSettings } from './schema.ts';

function pairOf(id: string, pair: PairSettings, network: Network): PairConfig {
  const [base, quote] = id.split('/');
  return {
    id,
    base,
    quote,
    rate: pair.rate,
    fees: { percentage: pair.feePercentage, percentageSwapIn: pair.feePercentageSwapIn, percentageChain: pair.feePercentageChain },
    limits: { minimal: pair.minimal, maximal: pair.maximal, maximalZeroConf: pair.maximalZeroConf === '' ? defaultMaximalZeroConf(network) : pair.maximalZeroConf },
    timeouts: { reverse: pair.timeoutReverse, swapMinimal: pair.timeoutSwapMinimal, swapMaximal: pair.timeoutSwapMaximal },
    ...(pair.confirmations !== '' && { confirmations: parseConfirmations(pair.confirmations) }),
  };
}

/** The BTC/BTC pair of the [pair] section. */
export const pairFromConfig = (config: FerryConfig): PairConfig => pairOf('BTC/BTC', config.pair, config.network);

/**
 * The [[pairs]] list; without one, BTC/BTC from [pair] and, where Liquid is served, L-BTC/BTC with [pair]'s prices
 * and Liquid's timeouts, and where the EVM chain is, RBTC/BTC with RSK's.
 */
export function pairsFromConfig(config: FerryConfig): PairConfig[] {
  if (config.pairs.length === 0) {
    const liquid = servesLiquid(config) ? [pairOf('L-BTC/BTC', { ...config.pair, ...knownPairDefaults['L-BTC/BTC'] }, config.network)] : [];
    const evm = servesEvm(config) ? [pairOf('RBTC/BTC', { ...config.pair, ...knownPairDefaults['RBTC/BTC'] }, config.network)] : [];
    return [pairFromConfig(config), ...liquid, ...evm];
  }
  return config.pairs.map((pair) => pairOf(pair.id, pair, config.network));
}
