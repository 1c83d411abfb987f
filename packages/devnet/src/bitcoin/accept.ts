// Mempool acceptance: Core's PreChecks, policy and consensus input checks, in Core's order and with Core's
// reject reasons, then every input's script through the verifier.
import { MAX_MONEY, formatMoney } from './amount.ts';
import { toHex } from './bytes.ts';
import type { Coin } from './chain.ts';
import {
  COINBASE_MATURITY,
  MAX_BLOCK_WEIGHT,
  MAX_STANDARD_TX_WEIGHT,
  MIN_STANDARD_TX_NONWITNESS_SIZE,
  isFinalTx,
  sequenceLocksSatisfied,
  type SequenceContext,
} from './consensus.ts';
import { classifyScript, isPushOnly } from './script.ts';
import { isCoinbase, isNullPrevout, outpointKey, type Tx } from './tx.ts';
import { verifyTransactionScripts } from './verify/index.ts';

import { RPC_VERIFY_ERROR, TxRejected } from '../common/rejection.ts';
import { checkReplacement, type EvictionCandidate } from '../common/replacement.ts';

export { RPC_VERIFY_ERROR, RPC_VERIFY_REJECTED, RPC_VERIFY_ALREADY_IN_CHAIN, TxRejected } from '../common/rejection.ts';
export type { EvictionCandidate } from '../common/replacement.ts';

/** What acceptance needs to know about the chain and mempool (or a package being tested on top of it). */
export interface AcceptView extends SequenceContext {
  /** Unspent output from the chain or the mempool; mempool outputs have height nextHeight. */
  coin(txid: string, vout: number): Coin | undefined;
  /** Whether any output of this txid is still in the chain's UTXO set. */
  hasChainOutputs(tx: Tx): boolean;
  mempoolSpender(txid: string, vout: number): string | undefined;
  mempoolHasTxid(txid: string): boolean;
  mempoolHasWtxid(wtxid: string): boolean;
  /** The direct conflicts and all their mempool descendants (each once), for a replacement's fee checks. */
  evictionSet?(conflicts: string[]): { direct: EvictionCandidate[]; all: EvictionCandidate[] };
}

export interface Accepted {
  fee: bigint;
  spentCoins: Coin[];
  /** Mempool transactions this one replaces (BIP 125, full RBF): the direct conflicts and their descendants. */
  replaces: string[];
}

/** Core's relay floor: 1 sat/vB (-minrelaytxfee=0.00001). */
export const MIN_RELAY_SAT_PER_KVB = 1000n;
/** Core's dust relay fee: 3 sat/vB. */
const DUST_RELAY_SAT_PER_KVB = 3000n;
const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
const MAX_OP_RETURN_RELAY = 83;

/** Core's GetDustThreshold: the cost of spending the output at the dust relay fee rate. */
export function dustThreshold(script: Uint8Array): bigint {
  if (script.length > 0 && script[0] === 0x6a) return 0n;
  const outputSize = 8 + varintSize(script.length) + script.length;
  const type = classifyScript(script);
  const witness = type.startsWith('witness_') || type === 'anchor';
  const spendSize = witness ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputSize + spendSize) * DUST_RELAY_SAT_PER_KVB) / 1000n;
}

const varintSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

/** Checks that need no chain state (Core's CheckTransaction plus IsStandardTx). */
function checkStandalone(tx: Tx): void {
  if (tx.inputs.length === 0) throw new TxRejected('bad-txns-vin-empty');
  if (tx.outputs.length === 0) throw new TxRejected('bad-txns-vout-empty');
  if (tx.strippedSize * 4 > MAX_BLOCK_WEIGHT) throw new TxRejected('bad-txns-oversize');
  let total = 0n;
  for (const output of tx.outputs) {
    if (output.value > MAX_MONEY) throw new TxRejected('bad-txns-vout-toolarge');
    total += output.value;
    if (total > MAX_MONEY) throw new TxRejected('bad-txns-txouttotal-toolarge');
  }
  const seen = new Set<string>();
  for (const input of tx.inputs) {
    const key = outpointKey(input.prevTxid, input.vout);
    if (seen.has(key)) throw new TxRejected('bad-txns-inputs-duplicate');
    seen.add(key);
  }
  if (isCoinbase(tx)) throw new TxRejected('coinbase');
  if (tx.inputs.some(isNullPrevout)) throw new TxRejected('bad-txns-prevout-null');

  if (tx.version < 1 || tx.version > 2) throw new TxRejected('version');
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) throw new TxRejected('tx-size');
  for (const input of tx.inputs) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) throw new TxRejected('scriptsig-size');
    if (!isPushOnly(input.scriptSig)) throw new TxRejected('scriptsig-not-pushonly');
  }
  let dataOutputs = 0;
  for (const output of tx.outputs) {
    const type = classifyScript(output.script);
    if (type === 'nonstandard' || (type === 'nulldata' && output.script.length > MAX_OP_RETURN_RELAY))
      throw new TxRejected('scriptpubkey');
    if (type === 'nulldata') dataOutputs++;
    else if (output.value < dustThreshold(output.script)) throw new TxRejected('dust');
  }
  if (dataOutputs > 1) throw new TxRejected('multi-op-return');
  if (tx.strippedSize < MIN_STANDARD_TX_NONWITNESS_SIZE) throw new TxRejected('tx-size-small');
}

export interface AcceptOptions {
  /** Skip script checks for transactions this node verified before (re-loading its own mempool). */
  trusted?: boolean;
  /** wtxids whose scripts already passed: script validity depends only on the tx and the coins it spends. */
  scriptCache?: Set<string>;
}

/** Validates a transaction for the mempool; throws TxRejected with Core's reason. */
export function checkForMempool(tx: Tx, view: AcceptView, options: AcceptOptions = {}): Accepted {
  checkStandalone(tx);
  if (!isFinalTx(tx, view.nextHeight, view.tipMedianTime)) throw new TxRejected('non-final');
  if (view.mempoolHasWtxid(tx.wtxid)) throw new TxRejected('txn-already-in-mempool');
  if (view.mempoolHasTxid(tx.txid)) throw new TxRejected('txn-same-nonwitness-data-in-mempool');
  const conflicts = new Set<string>();
  for (const input of tx.inputs) {
    const spender = view.mempoolSpender(input.prevTxid, input.vout);
    if (spender === undefined) continue;
    // A view without eviction support (a package test) keeps refusing conflicts outright.
    if (view.evictionSet === undefined) throw new TxRejected('txn-mempool-conflict');
    conflicts.add(spender);
  }
  const spentCoins: Coin[] = [];
  for (const input of tx.inputs) {
    const coin = view.coin(input.prevTxid, input.vout);
    if (!coin) {
      if (view.hasChainOutputs(tx)) throw new TxRejected('txn-already-known');
      throw new TxRejected('bad-txns-inputs-missingorspent', '', RPC_VERIFY_ERROR);
    }
    spentCoins.push(coin);
  }
  const coinHeights = spentCoins.map((coin) => coin.height);
  if (!sequenceLocksSatisfied(tx, coinHeights, view)) throw new TxRejected('non-BIP68-final');

  let valueIn = 0n;
  for (const coin of spentCoins) {
    if (coin.coinbase && view.nextHeight - coin.height < COINBASE_MATURITY) {
      throw new TxRejected('bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${view.nextHeight - coin.height}`);
    }
    valueIn += coin.value;
    if (coin.value > MAX_MONEY || valueIn > MAX_MONEY) throw new TxRejected('bad-txns-inputvalues-outofrange');
  }
  let valueOut = 0n;
  for (const output of tx.outputs) valueOut += output.value;
  if (valueIn < valueOut) {
    throw new TxRejected('bad-txns-in-belowout', `value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})`);
  }
  const fee = valueIn - valueOut;
  const minFee = (BigInt(tx.vsize) * MIN_RELAY_SAT_PER_KVB) / 1000n;
  if (fee < minFee) throw new TxRejected('min relay fee not met', `${fee} < ${minFee}`);
  const replaces =
    conflicts.size === 0
      ? []
      : checkReplacement({ txid: tx.txid, vsize: tx.vsize, spends: tx.inputs.map((input) => input.prevTxid) }, fee, view.evictionSet!([...conflicts]), MIN_RELAY_SAT_PER_KVB, formatMoney);

  if (!options.trusted && !options.scriptCache?.has(tx.wtxid)) {
    const prevouts = spentCoins.map((coin) => ({ script: coin.script, value: coin.value }));
    const check = verifyTransactionScripts(toHex(tx.raw), prevouts);
    if (!check.ok) throw new TxRejected(check.reason);
    options.scriptCache?.add(tx.wtxid);
  }
  return { fee, spentCoins, replaces };
}

