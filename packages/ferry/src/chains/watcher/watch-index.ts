// What the watcher looks for, kept in hash maps so that scanning a block costs one lookup per output
// and per input however many swaps are open.
import { internalTxid } from './codec.ts';
import type { Outpoint } from '@ferry/sdk/chains/events.js';

/** Key of an outpoint as it appears on the wire (internal txid byte order), so inputs need no reversal. */
const wireKey = (txidInternal: string, vout: number): string => `${txidInternal}:${vout}`;

interface WatchedOutpoint {
  outpoint: Outpoint;
  /** Set when the outpoint was found as a lockup of this script; unwatching the script drops it. */
  viaScript?: string;
}

export class WatchIndex {
  /** scriptPubKey hex → wire keys of the outpoints found paying it (null until the first lockup). */
  private readonly scripts = new Map<string, Set<string> | null>();
  private readonly outpoints = new Map<string, WatchedOutpoint>();
  private readonly txids = new Set<string>();

  watchScript(scriptHex: string): void {
    const key = scriptHex.toLowerCase();
    if (!this.scripts.has(key)) this.scripts.set(key, null);
  }

  /** Stops watching the script and the outpoints that were tracked only because they paid it. */
  unwatchScript(scriptHex: string): void {
    const key = scriptHex.toLowerCase();
    for (const outpointKey of this.scripts.get(key) ?? []) {
      if (this.outpoints.get(outpointKey)?.viaScript === key) this.outpoints.delete(outpointKey);
    }
    this.scripts.delete(key);
  }

  isScriptWatched(scriptHex: string): boolean {
    return this.scripts.has(scriptHex);
  }

  watchOutpoint(txid: string, vout: number): void {
    const key = wireKey(internalTxid(txid.toLowerCase()), vout);
    this.outpoints.set(key, { outpoint: { txid: txid.toLowerCase(), vout } });
  }

  unwatchOutpoint(txid: string, vout: number): void {
    this.outpoints.delete(wireKey(internalTxid(txid.toLowerCase()), vout));
  }

  /** Records an output found paying a watched script, so its spend is reported too. */
  trackLockup(scriptHex: string, txid: string, vout: number): void {
    const key = wireKey(internalTxid(txid), vout);
    if (this.outpoints.has(key)) return;
    this.outpoints.set(key, { outpoint: { txid, vout }, viaScript: scriptHex });
    let found = this.scripts.get(scriptHex);
    if (!found) this.scripts.set(scriptHex, (found = new Set()));
    found.add(key);
  }

  /** The watched outpoint an input spends, if any. */
  spentOutpoint(prevTxidInternal: string, prevVout: number): Outpoint | undefined {
    return this.outpoints.get(wireKey(prevTxidInternal, prevVout))?.outpoint;
  }

  watchTransaction(txid: string): void {
    this.txids.add(txid.toLowerCase());
  }

  unwatchTransaction(txid: string): void {
    this.txids.delete(txid.toLowerCase());
  }

  isTransactionWatched(txid: string): boolean {
    return this.txids.has(txid);
  }

  get size(): { scripts: number; outpoints: number; transactions: number } {
    return { scripts: this.scripts.size, outpoints: this.outpoints.size, transactions: this.txids.size };
  }
}
