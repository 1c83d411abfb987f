// Which swap, and which of its lockup legs, a script or outpoint watched on a chain belongs to; registering one
// here also tells that chain's watcher to report it.
import type { ChainWatch } from '@ferry/sdk/chains/backend.js';

export type LockupLegName = 'userLockup' | 'serverLockup';

export interface WatchedBy {
  swapId: string;
  leg: LockupLegName;
}

interface Entry {
  chain: string;
  script?: string;
  outpoint?: { txid: string; vout: number };
}

export class WatchIndex {
  private readonly scripts = new Map<string, WatchedBy>();
  private readonly outpoints = new Map<string, WatchedBy>();
  private readonly bySwap = new Map<string, Map<LockupLegName, Entry>>();

  constructor(private readonly watcherOf: (chain: string) => ChainWatch) {}

  script(chain: string, scriptHex: string, by: WatchedBy): void {
    this.scripts.set(`${chain}|${scriptHex}`, by);
    this.entry(by, chain).script = scriptHex;
    this.watcherOf(chain).watchScript(scriptHex);
  }

  outpoint(chain: string, txid: string, vout: number, by: WatchedBy): void {
    this.outpoints.set(`${chain}|${txid}:${vout}`, by);
    this.entry(by, chain).outpoint = { txid, vout };
    this.watcherOf(chain).watchOutpoint(txid, vout);
  }

  ofScript(chain: string, scriptHex: string): WatchedBy | undefined {
    return this.scripts.get(`${chain}|${scriptHex}`);
  }

  ofOutpoint(chain: string, txid: string, vout: number): WatchedBy | undefined {
    return this.outpoints.get(`${chain}|${txid}:${vout}`);
  }

  forget(swapId: string): void {
    const legs = this.bySwap.get(swapId);
    if (legs === undefined) return;
    for (const entry of legs.values()) {
      const watcher = this.watcherOf(entry.chain);
      if (entry.script !== undefined) {
        this.scripts.delete(`${entry.chain}|${entry.script}`);
        watcher.unwatchScript(entry.script);
      }
      if (entry.outpoint !== undefined) {
        this.outpoints.delete(`${entry.chain}|${entry.outpoint.txid}:${entry.outpoint.vout}`);
        watcher.unwatchOutpoint(entry.outpoint.txid, entry.outpoint.vout);
      }
    }
    this.bySwap.delete(swapId);
  }

  private entry(by: WatchedBy, chain: string): Entry {
    let legs = this.bySwap.get(by.swapId);
    if (legs === undefined) {
      legs = new Map();
      this.bySwap.set(by.swapId, legs);
    }
    let entry = legs.get(by.leg);
    if (entry === undefined) {
      entry = { chain };
      legs.set(by.leg, entry);
    }
    return entry;
  }
}
