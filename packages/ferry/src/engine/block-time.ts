// Chains keep time in their own blocks (Liquid's minute, Bitcoin's ten minutes) while Lightning's CLTV deltas count
// Bitcoin blocks: conversions between the two, always rounded to the safe side, and ETAs in UNIX seconds.
/** What the conversions need of a chain (UTXO or contract). */
type Timed = { blockSeconds: number };

/** Lightning's CLTV deltas count Bitcoin blocks. */
export const LIGHTNING_BLOCK_SECONDS = 600;

/** The chain's blocks that last at least `lightningBlocks` Lightning blocks. */
export const chainBlocksFor = (chain: Timed, lightningBlocks: number): number =>
  Math.ceil((lightningBlocks * LIGHTNING_BLOCK_SECONDS) / chain.blockSeconds);

/** The Lightning blocks that last at least `chainBlocks` of the chain's blocks. */
export const lightningBlocksFor = (chain: Timed, chainBlocks: number): number =>
  Math.ceil((chainBlocks * chain.blockSeconds) / LIGHTNING_BLOCK_SECONDS);

/** The Lightning blocks that pass within `chainBlocks` of the chain's blocks: rounded down, a limit never outlasts them. */
export const lightningBlocksWithin = (chain: Timed, chainBlocks: number): number =>
  Math.floor((chainBlocks * chain.blockSeconds) / LIGHTNING_BLOCK_SECONDS);

/** When a height `blocksLeft` blocks away is expected, UNIX seconds. */
export const etaOf = (chain: Timed, blocksLeft: number): number => Math.floor(Date.now() / 1000) + blocksLeft * chain.blockSeconds;
