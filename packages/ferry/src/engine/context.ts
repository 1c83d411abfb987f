// Everything the engine's parts share: the chain and Lightning backends by symbol, settings, the swap store and
// effect runner, the locks, and the index of scripts and outpoints the engine watches on chain.
import type { OperatorAlerts } from '../alerts/index.ts';
import type { ChainBackend, SwapOutputKind } from '@ferry/sdk/chains/backend.js';
import { isContractChain, type ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { Storage, SwapRecord } from '../db/index.ts';
import type { SwapKeys } from '@ferry/sdk/keys/index.js';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import { invalidPairHash, noLightningSupport, pairNotFound } from '@ferry/sdk/protocol/index.js';
import { minerFeesFor, type MinerFees, type PairConfig } from '../swaps/pairs.ts';
import type { EffectRunner } from './effects.ts';
import type { KeyIndexes } from './key-indexes.ts';
import type { NamedLocks } from './locks.ts';
import type { SigningSessions } from './signing-sessions.ts';
import type { EngineSettings } from './options.ts';
import { sharedMinerFees } from './coalesced-reads.ts';
import type { SwapStore } from './swap-store.ts';
import type { WatchIndex } from './watch-index.ts';

export interface EngineContext {
  storage: Storage;
  chains: ReadonlyMap<string, ChainBackend>;
  /** The account/contract chains (RBTC): their legs go through ContractChain instead of ChainBackend. */
  contracts: ReadonlyMap<string, ContractChain>;
  lightning: ReadonlyMap<string, LightningBackend>;
  keys: SwapKeys;
  logger: Logger;
  /** Money events for the operator (src/alerts). */
  alerts: OperatorAlerts;
  settings: EngineSettings;
  swaps: SwapStore;
  effects: EffectRunner;
  watching: WatchIndex;
  /** Per swap (its id) and per operator wallet (`wallet:<symbol>`): lockups from one wallet go one at a time. */
  locks: NamedLocks;
  /** MuSig2 sessions opened with clients, kept in the database. */
  sessions: SigningSessions;
  /** Fresh swap key indexes for new swaps. */
  keyIndexes: KeyIndexes;
}

export function chainOf(ctx: EngineContext, symbol: string): ChainBackend {
  const chain = ctx.chains.get(symbol);
  if (chain === undefined) throw new Error(`no chain backend for ${symbol}`);
  return chain;
}

/** Either kind of chain: what every chain answers (height, fees, block time). */
export type AnyChain = ChainBackend | ContractChain;

export function anyChainOf(ctx: EngineContext, symbol: string): AnyChain {
  const chain = ctx.chains.get(symbol) ?? ctx.contracts.get(symbol);
  if (chain === undefined) throw new Error(`no chain backend for ${symbol}`);
  return chain;
}

/** Whether Ferry serves a chain of that symbol, of either kind. */
export const servesChain = (ctx: EngineContext, symbol: string): boolean => ctx.chains.has(symbol) || ctx.contracts.has(symbol);

export function contractChainOf(ctx: EngineContext, symbol: string): ContractChain {
  const chain = ctx.contracts.get(symbol);
  if (chain === undefined) throw new Error(`no contract chain for ${symbol}`);
  return chain;
}

export function lightningOf(ctx: EngineContext, symbol: string): LightningBackend {
  const node = ctx.lightning.get(symbol);
  if (node === undefined) throw new Error(`no Lightning backend for ${symbol}`);
  return node;
}

/** A chain → Lightning pair; a quote that is a chain without Lightning gets the interface's own refusal. */
export function pairOf(ctx: EngineContext, from: string, to: string): PairConfig {
  const id = `${from}/${to}`;
  const pair = ctx.settings.pairs.get(id);
  if (pair !== undefined) return pair;
  if (!ctx.lightning.has(to) && [...ctx.settings.pairs.values()].some((served) => served.base === to)) throw noLightningSupport(to);
  throw pairNotFound(id);
}

/** The pair a stored swap was created on. */
export const pairOfSwap = (ctx: EngineContext, swap: SwapRecord): PairConfig => ctx.settings.pairs.get(swap.pair)!;

/** The Lightning node of a swap between a chain and Lightning: the pair's quote currency. */
export const swapLightning = (ctx: EngineContext, swap: SwapRecord): LightningBackend => lightningOf(ctx, swap.pair.split('/')[1]);

/** The chain's swap fees now; legacy (v1) swaps' spends are priced at their own, larger sizes. */
async function readMinerFees(chain: AnyChain, outputKind: SwapOutputKind): Promise<MinerFees> {
  if (isContractChain(chain)) {
    // A contract chain prices its calls in gas: Ferry's claim, its lock, and the client's claim (a claim call too).
    const { claim, lockup } = await chain.swapFees();
    return { normal: claim, reverse: { lockup, claim } };
  }
  return minerFeesFor(await chain.feeRate(), (outputKind === 'legacy' ? chain.legacySizes : undefined) ?? chain.typicalSizes);
}

const minerFees: Record<SwapOutputKind, ReturnType<typeof sharedMinerFees>> = {
  taproot: sharedMinerFees((chain) => readMinerFees(chain, 'taproot')),
  legacy: sharedMinerFees((chain) => readMinerFees(chain, 'legacy')),
};

/**
 * The miner fees a quote or a new swap is priced with (legacy swaps' at legacy sizes): one read per chain and output
 * kind shared by the quotes of the last second.
 */
export const currentMinerFees = (chain: AnyChain, outputKind: SwapOutputKind = 'taproot'): Promise<MinerFees> => minerFees[outputKind].get(chain);

/** The miner fees of the last minute's quotes, newest first: what a client's pair hash may have been made with. */
export const recentMinerFees = (chain: AnyChain, outputKind: SwapOutputKind = 'taproot'): MinerFees[] => minerFees[outputKind].recent(chain);

/**
 * A pair to create a swap on, its chain and Lightning node, and its prices: now's, or — when the client's hash names
 * a quote of the last minute — that quote's, which the client checked and agreed to.
 */
export async function quotedPair(
  ctx: EngineContext,
  id: { base: string; quote: string },
  pairHash: string | undefined,
  hashOf: (pair: PairConfig, fees: MinerFees) => string,
  outputKind: SwapOutputKind = 'taproot',
): Promise<{ pair: PairConfig; chain: AnyChain; lightning: LightningBackend; fees: MinerFees }> {
  const pair = pairOf(ctx, id.base, id.quote);
  const chain = anyChainOf(ctx, pair.base);
  const current = await currentMinerFees(chain, outputKind);
  const fees =
    pairHash === undefined || pairHash === hashOf(pair, current) ? current : recentMinerFees(chain, outputKind).find((quoted) => hashOf(pair, quoted) === pairHash);
  if (fees === undefined) throw invalidPairHash();
  return { pair, chain, lightning: lightningOf(ctx, pair.quote), fees };
}
