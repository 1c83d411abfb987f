// The JSON views Core's RPC gives of transactions, blocks and mempool entries (TxToUniv,
// blockheaderToJSON on common/header-json.ts, blockToJSON, entryToJSON), with Core's field names.
import { headerJson } from '../common/header-json.ts';
import { satToBtc } from './amount.ts';
import { difficulty } from './block.ts';
import { toHex } from './bytes.ts';
import type { BlockEntry, Coin } from './chain.ts';
import type { MempoolEntry } from './mempool.ts';
import type { BitcoinNode } from './node.ts';
import { scriptPubKeyJson, scriptToAsm } from './script.ts';
import { isCoinbase, type Tx } from './tx.ts';

export interface TxJsonOptions {
  hex?: boolean;
  fee?: bigint;
  /** verbosity 3: the coin each input spends */
  prevouts?: Coin[];
}

export function txToJson(tx: Tx, options: TxJsonOptions = {}): Record<string, unknown> {
  const coinbase = isCoinbase(tx);
  const vin = tx.inputs.map((input, i) => {
    const entry: Record<string, unknown> = coinbase
      ? { coinbase: toHex(input.scriptSig) }
      : {
          txid: input.prevTxid,
          vout: input.vout,
          scriptSig: { asm: scriptToAsm(input.scriptSig, true), hex: toHex(input.scriptSig) },
        };
    if (input.witness.length > 0) entry.txinwitness = input.witness.map(toHex);
    const prevout = options.prevouts?.[i];
    if (prevout && !coinbase) {
      entry.prevout = {
        generated: prevout.coinbase,
        height: prevout.height,
        value: satToBtc(prevout.value),
        scriptPubKey: scriptPubKeyJson(prevout.script),
      };
    }
    entry.sequence = input.sequence;
    return entry;
  });
  const vout = tx.outputs.map((output, n) => ({
    value: satToBtc(output.value),
    n,
    scriptPubKey: scriptPubKeyJson(output.script),
  }));
  const result: Record<string, unknown> = {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout,
  };
  if (options.fee !== undefined) result.fee = satToBtc(options.fee);
  if (options.hex) result.hex = toHex(tx.raw);
  return result;
}

export function headerToJson(node: BitcoinNode, entry: BlockEntry): Record<string, unknown> {
  const { bits, nonce } = entry.block.header;
  return headerJson(node, entry, {
    nonce,
    bits: (bits >>> 0).toString(16).padStart(8, '0'),
    difficulty: difficulty(bits),
    chainwork: entry.chainWork.toString(16).padStart(64, '0'),
  });
}

export function blockToJson(node: BitcoinNode, entry: BlockEntry, verbosity: 1 | 2 | 3): Record<string, unknown> {
  const { block } = entry;
  const tx =
    verbosity === 1
      ? block.txs.map((t) => t.txid)
      : block.txs.map((t, index) =>
          txToJson(t, {
            hex: true,
            fee: node.chain.feeOf(entry, index),
            prevouts: verbosity === 3 && entry.status === 'active' ? entry.undo?.[index] : undefined,
          }),
        );
  return {
    ...headerToJson(node, entry),
    strippedsize: block.strippedSize,
    size: block.size,
    weight: block.weight,
    tx,
  };
}

function signalsReplacement(tx: Tx): boolean {
  return tx.inputs.some((input) => input.sequence < 0xfffffffe);
}

export function mempoolEntryToJson(node: BitcoinNode, entry: MempoolEntry): Record<string, unknown> {
  const { mempool } = node;
  const ancestors = [...mempool.ancestors(entry.tx.txid)].map((txid) => mempool.get(txid)!);
  const descendants = [...mempool.descendants(entry.tx.txid)].map((txid) => mempool.get(txid)!);
  const sum = (list: MempoolEntry[], pick: (e: MempoolEntry) => bigint): bigint => list.reduce((acc, e) => acc + pick(e), 0n);
  const fee = (e: MempoolEntry): bigint => e.fee;
  const vsize = (e: MempoolEntry): bigint => BigInt(e.tx.vsize);
  const spentby: string[] = [];
  entry.tx.outputs.forEach((_, vout) => {
    const spender = mempool.spender(entry.tx.txid, vout);
    if (spender !== undefined) spentby.push(spender);
  });
  return {
    vsize: entry.tx.vsize,
    weight: entry.tx.weight,
    time: entry.time,
    height: entry.height,
    descendantcount: descendants.length + 1,
    descendantsize: Number(sum(descendants, vsize)) + entry.tx.vsize,
    ancestorcount: ancestors.length + 1,
    ancestorsize: Number(sum(ancestors, vsize)) + entry.tx.vsize,
    wtxid: entry.tx.wtxid,
    fees: {
      base: satToBtc(entry.fee),
      modified: satToBtc(entry.fee),
      ancestor: satToBtc(sum(ancestors, fee) + entry.fee),
      descendant: satToBtc(sum(descendants, fee) + entry.fee),
    },
    depends: [...entry.parents],
    spentby,
    'bip125-replaceable': signalsReplacement(entry.tx) || ancestors.some((a) => signalsReplacement(a.tx)),
    unbroadcast: false,
  };
}
