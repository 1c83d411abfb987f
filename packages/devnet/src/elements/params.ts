// The chain parameters the devnet's Elements node runs with: block limits, the block subsidy (where it departs
// from elementsregtest) and elementsregtest's addresses.
import { address as laddress, networks } from 'liquidjs-lib';

/** Weight elementsd's miner keeps free for the coinbase. */
export const COINBASE_RESERVED_WEIGHT = 4000;
export const MAX_BLOCK_WEIGHT = 4_000_000;
const COIN = 100_000_000n;

/**
 * The devnet's block subsidy: 50 L-BTC halving every 150 blocks, as elementsd runs with -con_blocksubsidy=5000000000
 * (elementsregtest's default is 0 with no initial free coins, which would leave the devnet without money).
 */
export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / 150);
  return halvings >= 64 ? 0n : (50n * COIN) >> BigInt(halvings);
}

export class InvalidAddress extends Error {}

/** An elementsregtest address (unconfidential ert1…/base58, or confidential el1…) to its output script. */
export function addressToScript(text: string): Buffer {
  try {
    const unconfidential = laddress.isConfidential(text) ? laddress.fromConfidential(text).unconfidentialAddress : text;
    return laddress.toOutputScript(unconfidential, networks.regtest);
  } catch {
    throw new InvalidAddress(`invalid address ${text}`);
  }
}
