// Everything the engine's parts share: backends, settings, the swap store and effect runner, and the index of
// scripts and outpoints the engine watches on chain.
import type { BitcoinRpcClient } from '../chains/bitcoin-rpc.ts';
import type { ChainWatcher } from '../chains/watcher.ts';
import type { Storage } from '../db/index.ts';
import type { SwapKeys } from '../keys/index.ts';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import { minerFeesFor, type MinerFees, type PairConfig } from '../swaps/pairs.ts';
import type { ChainTools } from './chain-tools.ts';
import type { EffectRunner } from './effects.ts';
import { pairNotFound } from './errors.ts';
import type { Mutex } from './locks.ts';
import type { EngineSettings } from './options.ts';
import type { SwapStore } from './swap-store.ts';

/** Which swap a watched script or outpoint belongs to. */
export class WatchIndex {
  private readonly scripts = new Map<string, string>();
  private readonly outpoints = new Map<string, string>();
  private readonly bySwap = new Map<string, { script?: string; outpoint?: { txid: string; vout: number } }>();

  constructor(private readonly watcher: ChainWatcher) {}

  script(swapId: string, scriptHex: string): void {
    this.scripts.set(scriptHex, swapId);
    this.entry(swapId).script = scriptHex;
    this.watcher.watchScript(scriptHex);
  }

  outpoint(swapId: string, txid: string, vout: number): void {
    this.outpoints.set(`${txid}:${vout}`, swapId);
    this.entry(swapId).outpoint = { txid, vout };
    this.watcher.watchOutpoint(txid, vout);
  }

  swapOfScript(scriptHex: string): string | undefined {
    return this.scripts.get(scriptHex);
  }

  swapOfOutpoint(txid: string, vout: number): string | undefined {
    return this.outpoints.get(`${txid}:${vout}`);
  }

  forget(swapId: string): void {
    const entry = this.bySwap.get(swapId);
    if (entry === undefined) return;
    if (entry.script !== undefined) {
      this.scripts.delete(entry.script);
      this.watcher.unwatchScript(entry.script);
    }
    if (entry.outpoint !== undefined) {
      this.outpoints.delete(`${entry.outpoint.txid}:${entry.outpoint.vout}`);
      this.watcher.unwatchOutpoint(entry.outpoint.txid, entry.outpoint.vout);
    }
    this.bySwap.delete(swapId);
  }

  private entry(swapId: string) {
    let entry = this.bySwap.get(swapId);
    if (entry === undefined) {
      entry = {};
      this.bySwap.set(swapId, entry);
    }
    return entry;
  }
}

export interface EngineContext {
  storage: Storage;
  watcher: ChainWatcher;
  rpc: BitcoinRpcClient;
  lightning: LightningBackend;
  keys: SwapKeys;
  logger: Logger;
  settings: EngineSettings;
  chain: ChainTools;
  swaps: SwapStore;
  effects: EffectRunner;
  watching: WatchIndex;
  /** Reverse lockups are sent one at a time: they share the wallet, and each checks for an earlier send first. */
  lockups: Mutex;
}

export function pairOf(ctx: EngineContext, from: string, to: string): PairConfig {
  const id = `${from}/${to}`;
  const pair = ctx.settings.pairs.get(id);
  if (pair === undefined) throw pairNotFound(id);
  return pair;
}

export async function currentMinerFees(ctx: EngineContext): Promise<MinerFees> {
  return minerFeesFor(await ctx.chain.feeRate());
}
