// Matches transactions against the watch index: one map lookup per output and per input.
import type { ChainCodec, WatchedTransaction } from './codec.ts';
import type { WatchIndex } from './watch-index.ts';
import type { Outpoint } from '@ferry/sdk/chains/events.js';

export interface LockupMatch<T extends WatchedTransaction> {
  tx: T;
  vout: number;
  value: bigint;
  scriptHex: string;
  refusal?: string;
}

export interface SpendMatch<T extends WatchedTransaction> {
  tx: T;
  inputIndex: number;
  outpoint: Outpoint;
}

/**
 * Outputs paying watched scripts, valued by the chain's codec; their outpoints join the index so that spends are
 * found, also within the same batch — which is why callers scan every output of a batch before any input.
 */
export function findLockups<T extends WatchedTransaction>(transactions: T[], index: WatchIndex, codec: ChainCodec<T>): LockupMatch<T>[] {
  const found: LockupMatch<T>[] = [];
  for (const tx of transactions) {
    for (let vout = 0; vout < tx.outputs.length; vout++) {
      const { scriptHex } = tx.outputs[vout];
      if (!index.isScriptWatched(scriptHex)) continue;
      index.trackLockup(scriptHex, tx.txid, vout);
      found.push({ tx, vout, scriptHex, ...codec.lockupValue(tx, vout) });
    }
  }
  return found;
}

export function findSpends<T extends WatchedTransaction>(transactions: T[], index: WatchIndex): SpendMatch<T>[] {
  const found: SpendMatch<T>[] = [];
  for (const tx of transactions) {
    if (tx.isCoinbase) continue;
    for (let inputIndex = 0; inputIndex < tx.inputs.length; inputIndex++) {
      const { prevTxidInternal, prevVout } = tx.inputs[inputIndex];
      const outpoint = index.spentOutpoint(prevTxidInternal, prevVout);
      if (outpoint) found.push({ tx, inputIndex, outpoint });
    }
  }
  return found;
}
