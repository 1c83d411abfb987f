// Matches transactions against the watch index: one map lookup per output and per input.
import type { RawTransaction } from './raw-block.ts';
import type { WatchIndex } from './watch-index.ts';
import type { Outpoint } from '../events.ts';

export interface LockupMatch {
  tx: RawTransaction;
  vout: number;
  value: bigint;
  scriptHex: string;
}

export interface SpendMatch {
  tx: RawTransaction;
  inputIndex: number;
  outpoint: Outpoint;
}

/**
 * Outputs paying watched scripts; their outpoints join the index so that spends are found, also
 * within the same batch — which is why callers scan every output of a batch before any input.
 */
export function findLockups(transactions: RawTransaction[], index: WatchIndex): LockupMatch[] {
  const found: LockupMatch[] = [];
  for (const tx of transactions) {
    for (let vout = 0; vout < tx.outputs.length; vout++) {
      const { scriptHex, value } = tx.outputs[vout];
      if (!index.isScriptWatched(scriptHex)) continue;
      index.trackLockup(scriptHex, tx.txid, vout);
      found.push({ tx, vout, value, scriptHex });
    }
  }
  return found;
}

export function findSpends(transactions: RawTransaction[], index: WatchIndex): SpendMatch[] {
  const found: SpendMatch[] = [];
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
