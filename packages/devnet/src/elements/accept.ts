// Mempool acceptance for Elements: elementsd's PreChecks order and reject reasons (standalone checks,
// finality, conflicts, missing inputs, BIP68, coinbase maturity), then the amounts, proofs and scripts through
// verifyElementsTransaction, then the fee (explicit L-BTC fee outputs) against the relay floor.
import { COINBASE_MATURITY, isFinalTx, sequenceLocksSatisfied, type LockFields, type SequenceContext } from '../bitcoin/consensus.ts';
import type { ElementsCoin } from './chain.ts';
import { RPC_VERIFY_ERROR, TxRejected } from '../bitcoin/accept.ts';
import { formatMoney } from '../bitcoin/amount.ts';
import { checkReplacement, type EvictionCandidate } from '../common/replacement.ts';
import { MAX_BLOCK_WEIGHT } from './params.ts';
import { explicitValue, outpointKey, policyFee, prevout, toPrevout, type ElementsTx } from './tx.ts';
import { verifyElementsTransaction } from './verify/index.ts';

export { TxRejected, RPC_VERIFY_ERROR };

/**
 * Liquid's relay floor, 0.1 sat/vB (-minrelaytxfee=0.000001 rather than elementsd's default 1 sat/vB), on the
 * discounted virtual size of confidential transactions (-acceptdiscountct=1): what swaps on Liquid pay.
 */
export const MIN_RELAY_SAT_PER_KVB = 100n;
const MAX_MONEY = 21_000_000n * 100_000_000n;
const MAX_STANDARD_TX_WEIGHT = 400_000;

/** What acceptance needs to know about the chain and mempool. */
export interface ElementsAcceptView extends SequenceContext {
  coin(txid: string, vout: number): ElementsCoin | undefined;
  hasChainOutputs(tx: ElementsTx): boolean;
  mempoolSpender(txid: string, vout: number): string | undefined;
  mempoolHasTxid(txid: string): boolean;
  mempoolHasWtxid(wtxid: string): boolean;
  genesisBlockHash: string;
  /** With full RBF on: the direct conflicts and all their mempool descendants, for a replacement's fee checks. */
  evictionSet?(conflicts: string[]): { direct: EvictionCandidate[]; all: EvictionCandidate[] };
}

export interface ElementsAccepted {
  fee: bigint;
  spentCoins: ElementsCoin[];
  /** Mempool transactions this one replaces (full RBF): the direct conflicts and their descendants. */
  replaces: string[];
}

/** The fields consensus.ts's finality rules read, from a liquidjs transaction. */
function lockView(etx: ElementsTx): LockFields {
  return { version: etx.tx.version, locktime: etx.tx.locktime, inputs: etx.tx.ins };
}

/** CheckTransaction and the parts of IsStandardTx the devnet applies. */
function checkStandalone(etx: ElementsTx): void {
  const { tx } = etx;
  if (tx.ins.length === 0) throw new TxRejected('bad-txns-vin-empty');
  if (tx.outs.length === 0) throw new TxRejected('bad-txns-vout-empty');
  if (etx.fullWeight > MAX_BLOCK_WEIGHT) throw new TxRejected('bad-txns-oversize');
  for (const out of tx.outs) {
    const value = explicitValue(out);
    if (value !== undefined && value > MAX_MONEY) throw new TxRejected('bad-txns-vout-toolarge');
  }
  const seen = new Set<string>();
  tx.ins.forEach((_, i) => {
    const { txid, vout } = prevout(tx, i);
    const key = outpointKey(txid, vout);
    if (seen.has(key)) throw new TxRejected('bad-txns-inputs-duplicate');
    seen.add(key);
  });
  if (tx.isCoinbase()) throw new TxRejected('coinbase');
  if (tx.version < 1 || tx.version > 2) throw new TxRejected('version');
  if (etx.fullWeight > MAX_STANDARD_TX_WEIGHT) throw new TxRejected('tx-size');
}

export interface ElementsAcceptOptions {
  /** Skip the verifier for transactions this node verified before (its own mempool after a reorg or restart). */
  trusted?: boolean;
}

/** Validates a transaction for the mempool; throws TxRejected with elementsd's reason and RPC code. */
export async function checkForMempool(etx: ElementsTx, view: ElementsAcceptView, options: ElementsAcceptOptions = {}): Promise<ElementsAccepted> {
  const { tx } = etx;
  checkStandalone(etx);
  if (!isFinalTx(lockView(etx), view.nextHeight, view.tipMedianTime)) throw new TxRejected('non-final');
  if (view.mempoolHasWtxid(etx.wtxid)) throw new TxRejected('txn-already-in-mempool');
  if (view.mempoolHasTxid(etx.txid)) throw new TxRejected('txn-same-nonwitness-data-in-mempool');
  const outpoints = tx.ins.map((_, i) => prevout(tx, i));
  const conflicts = new Set<string>();
  for (const { txid, vout } of outpoints) {
    const spender = view.mempoolSpender(txid, vout);
    if (spender === undefined) continue;
    // Without full RBF (or in a package test) a conflict is a plain refusal.
    if (view.evictionSet === undefined) throw new TxRejected('txn-mempool-conflict');
    conflicts.add(spender);
  }
  const spentCoins: ElementsCoin[] = [];
  for (const { txid, vout } of outpoints) {
    const coin = view.coin(txid, vout);
    if (!coin) {
      if (view.hasChainOutputs(etx)) throw new TxRejected('txn-already-known');
      throw new TxRejected('bad-txns-inputs-missingorspent', '', RPC_VERIFY_ERROR);
    }
    spentCoins.push(coin);
  }
  if (!sequenceLocksSatisfied(lockView(etx), spentCoins.map((coin) => coin.height), view)) throw new TxRejected('non-BIP68-final');
  for (const coin of spentCoins) {
    if (coin.coinbase && view.nextHeight - coin.height < COINBASE_MATURITY) {
      throw new TxRejected('bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${view.nextHeight - coin.height}`);
    }
  }
  if (!options.trusted) {
    // elementsd checks the amounts (CheckTxInputs) before the fee and the scripts after it; the verifier
    // does both, so a transaction failing both its fee and its scripts is refused for its scripts here.
    const check = await verifyElementsTransaction(etx.raw.toString('hex'), spentCoins.map((coin) => toPrevout(coin.output)), {
      genesisBlockHash: view.genesisBlockHash,
    });
    if (!check.ok) throw new TxRejected(check.reason, check.detail ?? '');
  }
  const fee = policyFee(tx);
  // Rounded up as CFeeRate::GetFee does: a fractional rate must not let a fee below it through.
  const minFee = (BigInt(etx.vsize) * MIN_RELAY_SAT_PER_KVB + 999n) / 1000n;
  if (fee < minFee) throw new TxRejected('min relay fee not met', `${fee} < ${minFee}`);
  const replacing = { txid: etx.txid, vsize: etx.vsize, spends: outpoints.map((outpoint) => outpoint.txid) };
  // The incremental relay fee follows the lowered floor (elementsd's default is 1 sat/vB for both).
  const replaces = conflicts.size === 0 ? [] : checkReplacement(replacing, fee, view.evictionSet!([...conflicts]), MIN_RELAY_SAT_PER_KVB, formatMoney);
  return { fee, spentCoins, replaces };
}
