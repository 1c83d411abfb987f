// The BTC/BTC pair as the engine wants it, from the [pair] section of the configuration.
import type { PairConfig } from '../swaps/pairs.ts';
import type { FerryConfig } from './schema.ts';

export function pairFromConfig(config: FerryConfig): PairConfig {
  const pair = config.pair;
  return {
    id: 'BTC/BTC',
    base: 'BTC',
    quote: 'BTC',
    rate: pair.rate,
    fees: { percentage: pair.feePercentage, percentageSwapIn: pair.feePercentageSwapIn },
    limits: { minimal: pair.minimal, maximal: pair.maximal, maximalZeroConf: pair.maximalZeroConf },
    timeouts: { reverse: pair.timeoutReverse, swapMinimal: pair.timeoutSwapMinimal, swapMaximal: pair.timeoutSwapMaximal },
  };
}
