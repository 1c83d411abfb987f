// How deep a user's lockup must be before Ferry acts on it (pays the invoice of a submarine swap, locks its own
// coins in a chain swap): a number of blocks that rises with the amount at risk, per chain and network. A reorg
// shallower than this cannot take back a lockup Ferry acted on; the deeper the reorg, the more it costs the attacker,
// so the depth follows the money. The pair's `confirmations` setting overrides the defaults below. Pure.
import type { Network } from '@ferry/sdk/keys/index.js';

/** Amounts up to and including `upTo` (sat, or 10^-8 of the chain's asset) need `confirmations` blocks. */
export interface ConfirmationTier {
  /** Inclusive; Infinity for the last tier (`*`). */
  upTo: number;
  confirmations: number;
}

/** Ascending by `upTo`, the last one open-ended. */
export type ConfirmationTiers = readonly ConfirmationTier[];

/**
 * The built-in defaults, per network and chain, in the syntax a pair's `confirmations` setting takes: the single
 * source of truth (docs/operating.md, "Confirmations", says what each protects against). Regtest is the devnet, where anyone
 * mines on demand and depth protects nothing: one block for every amount.
 */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<Network, Readonly<Record<string, string>>>> = {
  mainnet: {
    // 10-minute proof-of-work blocks: 2 up to 0.01 BTC, 3 up to 0.1, 4 up to 1, 6 above.
    BTC: '1000000:2,10000000:3,100000000:4,*:6',
    // Federation-signed 1-minute blocks; Liquid treats a block with one on top (2 deep) as final.
    'L-BTC': '2',
    // 30-second blocks merge-mined by part of Bitcoin's hash rate: short reorgs are common, 20 blocks ≈ 10 minutes.
    RBTC: '1000000:3,10000000:6,100000000:10,*:20',
  },
  testnet: {
    BTC: '1000000:2,10000000:3,100000000:4,*:6',
    'L-BTC': '2',
    RBTC: '1000000:3,10000000:6,100000000:10,*:20',
  },
  signet: {
    BTC: '1000000:2,10000000:3,100000000:4,*:6',
    'L-BTC': '2',
    RBTC: '1000000:3,10000000:6,100000000:10,*:20',
  },
  regtest: { BTC: '1', 'L-BTC': '1', RBTC: '1' },
};

/** A chain the table does not name (not served by Ferry today) waits as long as the most cautious one. */
const UNKNOWN_CHAIN: Readonly<Record<Network, string>> = {
  mainnet: DEFAULT_CONFIRMATIONS.mainnet.RBTC,
  testnet: DEFAULT_CONFIRMATIONS.testnet.RBTC,
  signet: DEFAULT_CONFIRMATIONS.signet.RBTC,
  regtest: '1',
};

const TIER = /^(\d+|\*):(\d+)$/;

/**
 * Reads a `confirmations` setting: a whole number of blocks for every amount ("3", or 3 in TOML), or tiers by
 * amount "UPTO:BLOCKS,...,*:BLOCKS" — amounts in sat (inclusive) strictly rising, blocks at least 1 and never fewer
 * for a larger amount, the last tier `*` (every larger amount). Throws an Error saying what is wrong.
 */
export function parseConfirmations(setting: string | number): ConfirmationTiers {
  const text = String(setting).trim();
  const syntax = `expected a number of blocks (e.g. 2) or tiers "UPTO_SAT:BLOCKS,...,*:BLOCKS" (e.g. "1000000:2,*:6")`;
  if (/^\d+$/.test(text)) return [{ upTo: Infinity, confirmations: blocksOf(text, text) }];
  const parts = text.split(',').map((part) => part.trim());
  const tiers: ConfirmationTier[] = [];
  for (const [index, part] of parts.entries()) {
    const match = TIER.exec(part);
    if (match === null) throw new Error(`confirmations "${text}": "${part}" is not a tier; ${syntax}`);
    const last = index === parts.length - 1;
    if (match[1] === '*' && !last) throw new Error(`confirmations "${text}": "*" must be the last tier`);
    if (match[1] !== '*' && last) throw new Error(`confirmations "${text}": the last tier must be "*:BLOCKS" (every larger amount)`);
    const upTo = match[1] === '*' ? Infinity : Number(match[1]);
    if (!Number.isSafeInteger(upTo) && upTo !== Infinity) throw new Error(`confirmations "${text}": amount ${match[1]} is too large`);
    const confirmations = blocksOf(text, match[2]);
    const previous = tiers.at(-1);
    if (previous !== undefined && upTo <= previous.upTo) throw new Error(`confirmations "${text}": amounts must rise (${match[1]} after ${previous.upTo})`);
    if (previous !== undefined && confirmations < previous.confirmations) {
      throw new Error(`confirmations "${text}": a larger amount must not need fewer blocks (${confirmations} after ${previous.confirmations})`);
    }
    tiers.push({ upTo, confirmations });
  }
  return tiers;
}

function blocksOf(text: string, digits: string): number {
  const blocks = Number(digits);
  if (!Number.isSafeInteger(blocks) || blocks < 1) throw new Error(`confirmations "${text}": blocks must be a whole number ≥ 1, got ${digits}`);
  return blocks;
}

/** The setting as written back: "2", or "1000000:2,*:6". */
export function formatConfirmations(tiers: ConfirmationTiers): string {
  if (tiers.length === 1) return String(tiers[0].confirmations);
  return tiers.map((tier) => `${tier.upTo === Infinity ? '*' : tier.upTo}:${tier.confirmations}`).join(',');
}

/** The built-in tiers of a chain on a network. */
export function defaultConfirmations(network: Network, chain: string): ConfirmationTiers {
  return parseConfirmations(DEFAULT_CONFIRMATIONS[network][chain] ?? UNKNOWN_CHAIN[network]);
}

/** Blocks a lockup of `amount` must be deep in before Ferry acts on it. */
export function requiredConfirmations(tiers: ConfirmationTiers, amount: number): number {
  return (tiers.find((tier) => amount <= tier.upTo) ?? tiers.at(-1)!).confirmations;
}

/**
 * The largest unconfirmed lockup Ferry accepts (0-conf) when the pair does not say: none outside regtest. Bitcoin
 * Core replaces any unconfirmed transaction by a higher-paying one since v28 (full RBF by default), so a lockup that
 * signals nothing can still be double spent without a block; an operator who accepts that risk sets
 * `maximalZeroConf`. On regtest (the devnet) 1,000,000 sat, so 0-conf can be tried there.
 */
export function defaultMaximalZeroConf(network: Network): number {
  return network === 'regtest' ? 1_000_000 : 0;
}
