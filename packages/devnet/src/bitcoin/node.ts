// The regtest node: chain + mempool + miner behind one object. Every transaction enters through
// acceptTransaction (RPC sendrawtransaction and the wallets alike); blocks are assembled from the
// already-verified mempool; invalidateBlock is a real reorg with undo data.
import { EventEmitter } from 'node:events';
import { buildCoinbase, computeMerkleRoot, genesisBlock, makeBlock, mineHeader, parseBlock, type Block } from './block.ts';
import { fromHex } from './bytes.ts';
import { ChainState, isUnspendable, type BlockEntry, type Coin } from './chain.ts';
import { MAX_BLOCK_WEIGHT, REGTEST_BITS, blockSubsidy } from './consensus.ts';
import { checkForMempool, RPC_VERIFY_ALREADY_IN_CHAIN, RPC_VERIFY_ERROR, TxRejected, type AcceptView } from './accept.ts';
import { Mempool, type MempoolEntry } from './mempool.ts';
import { addressToScript } from './script.ts';
import type { NodeStore } from './store.ts';
import { isCoinbase, outpointKey, parseTx, type Tx } from './tx.ts';

/** Weight Core's miner keeps free for the coinbase. */
const COINBASE_RESERVED_WEIGHT = 4000;
const BLOCK_VERSION = 0x20000000;
/** Bounds the memory of the script cache; clearing it only costs re-verification. */
const SCRIPT_CACHE_LIMIT = 200_000;

export interface SubmitOptions {
  /** Refuse fee rates above this many sat/kvB (sendrawtransaction's maxfeerate); 0 = no limit. */
  maxFeeRateSatPerKvB?: bigint;
  /** Refuse transactions burning more than this many sat in unspendable outputs. */
  maxBurnSat?: bigint;
}

export interface TestAcceptResult {
  txid: string;
  wtxid: string;
  allowed: boolean;
  vsize?: number;
  fee?: bigint;
  rejectReason?: string;
}

export interface FoundTransaction {
  tx: Tx;
  block?: BlockEntry; // confirmed in this active block
  mempool?: MempoolEntry;
}

export interface UnspentOutput {
  coin: Coin;
  confirmations: number; // 0 for mempool outputs
}

interface NodeEventMap {
  /** A block joined the active chain. */
  blockConnected: [BlockEntry];
  /** A block left the active chain (invalidateblock). */
  blockDisconnected: [BlockEntry];
  /** A transaction entered the mempool. */
  transaction: [Tx, MempoolEntry];
  /** The mempool was rebuilt after a reorg. */
  mempoolReset: [];
}

export class BitcoinNode extends EventEmitter<NodeEventMap> {
  readonly chain = new ChainState(genesisBlock());
  readonly mempool = new Mempool();
  private readonly scriptCache = new Set<string>();
  /**
   * Core 28's full RBF: a conflicting transaction that pays more replaces what it conflicts with. Off by default,
   * where the devnet refuses every conflict ("txn-mempool-conflict") so races between spends stay deterministic.
   */
  fullRbf = false;

  constructor(private readonly store: NodeStore) {
    super();
    this.setMaxListeners(0);
  }

  /** Rebuilds chain state and mempool from the store (no script re-verification: this node checked them). */
  load(): void {
    for (const stored of this.store.blocks()) {
      const block = parseBlock(stored.raw);
      if (stored.active) this.chain.connect(block);
      else this.chain.addInvalid(block, stored.height);
    }
    const saved = this.store.mempool();
    this.store.transaction(() => {
      this.store.clearMempool();
      for (const { raw, time } of saved) {
        try {
          this.addToMempool(parseTx(raw), time, true);
        } catch {
          // No longer valid on this chain: dropped, as Core drops such entries of mempool.dat.
        }
      }
    });
  }

  // ---- reads ----

  get height(): number {
    return this.chain.height;
  }

  get tip(): BlockEntry {
    return this.chain.tip;
  }

  blockAt(height: number): BlockEntry | undefined {
    return this.chain.active[height];
  }

  block(hash: string): BlockEntry | undefined {
    return this.chain.blocks.get(hash);
  }

  /** A mempool or active-chain transaction (this node keeps a full txindex). */
  transaction(txid: string): FoundTransaction | undefined {
    const pending = this.mempool.get(txid);
    if (pending) return { tx: pending.tx, mempool: pending };
    const indexed = this.chain.txIndex.get(txid);
    if (indexed) return { tx: indexed.entry.block.txs[indexed.index], block: indexed.entry };
    return undefined;
  }

  /** An unspent output; with includeMempool, outputs of mempool txs count and outputs spent in the mempool do not. */
  unspent(txid: string, vout: number, includeMempool = true): UnspentOutput | undefined {
    if (includeMempool && this.mempool.spender(txid, vout) !== undefined) return undefined;
    const coin = this.chain.utxos.get(outpointKey(txid, vout));
    if (coin) return { coin, confirmations: this.height - coin.height + 1 };
    if (!includeMempool) return undefined;
    const pending = this.mempool.outputCoin(txid, vout, this.height + 1);
    return pending && !isUnspendable(pending.script) ? { coin: pending, confirmations: 0 } : undefined;
  }

  medianTimePast(): number {
    return this.chain.tip.medianTime;
  }

  // ---- transactions ----

  private view(): AcceptView {
    const nextHeight = this.height + 1;
    return {
      nextHeight,
      tipMedianTime: this.chain.tip.medianTime,
      medianTimeAt: (height) => this.chain.medianTimeAt(height),
      coin: (txid, vout) => this.chain.utxos.get(outpointKey(txid, vout)) ?? this.mempool.outputCoin(txid, vout, nextHeight),
      hasChainOutputs: (tx) => tx.outputs.some((_, vout) => this.chain.utxos.has(outpointKey(tx.txid, vout))),
      mempoolSpender: (txid, vout) => this.mempool.spender(txid, vout),
      mempoolHasTxid: (txid) => this.mempool.get(txid) !== undefined,
      mempoolHasWtxid: (wtxid) => this.mempool.hasWtxid(wtxid),
      evictionSet: this.fullRbf ? (conflicts) => this.mempool.evictionSet(conflicts) : undefined,
    };
  }

  private rememberScripts(): Set<string> {
    if (this.scriptCache.size > SCRIPT_CACHE_LIMIT) this.scriptCache.clear();
    return this.scriptCache;
  }

  private addToMempool(tx: Tx, time: number, trusted: boolean, limits: SubmitOptions = {}): MempoolEntry {
    const accepted = checkForMempool(tx, this.view(), { trusted, scriptCache: this.rememberScripts() });
    checkLimits(tx, accepted.fee, limits);
    for (const txid of accepted.replaces) {
      if (this.mempool.remove(txid)) this.store.removeMempoolTx(txid);
    }
    const entry: MempoolEntry = {
      tx,
      fee: accepted.fee,
      time,
      height: this.height,
      spentCoins: accepted.spentCoins,
      parents: new Set(),
      children: new Set(),
    };
    this.mempool.add(entry);
    this.store.addMempoolTx(tx.txid, tx.raw, time);
    return entry;
  }

  /**
   * sendrawtransaction: validates and adds a transaction to the mempool. Throws TxRejected with Core's
   * code and message. Re-submitting a mempool transaction returns its txid, as Core does.
   */
  acceptTransaction(input: Tx | Uint8Array | string, options: SubmitOptions = {}): string {
    const tx = input instanceof Uint8Array ? parseTx(input) : typeof input === 'string' ? parseTx(fromHex(input)) : input;
    if (tx.outputs.some((_, vout) => this.chain.utxos.has(outpointKey(tx.txid, vout)))) {
      throw new TxRejected('Transaction already in block chain', '', RPC_VERIFY_ALREADY_IN_CHAIN);
    }
    if (this.mempool.get(tx.txid)) return tx.txid;
    const entry = this.addToMempool(tx, Math.floor(Date.now() / 1000), false, options);
    this.emit('transaction', tx, entry);
    return tx.txid;
  }

  /** testmempoolaccept: each transaction may spend outputs of the ones before it (a package). */
  testAccept(txs: Tx[], options: SubmitOptions = {}): TestAcceptResult[] {
    const base = this.view();
    const pending = new Map<string, Tx>();
    const spent = new Map<string, string>();
    const view: AcceptView = {
      ...base,
      coin: (txid, vout) => {
        const output = pending.get(txid)?.outputs[vout];
        if (output) return { value: output.value, script: output.script, height: base.nextHeight, coinbase: false };
        return base.coin(txid, vout);
      },
      mempoolSpender: (txid, vout) => spent.get(outpointKey(txid, vout)) ?? base.mempoolSpender(txid, vout),
      mempoolHasTxid: (txid) => pending.has(txid) || base.mempoolHasTxid(txid),
      // A replacement is judged alone; within a package a conflict stays a plain refusal.
      evictionSet: txs.length === 1 ? base.evictionSet : undefined,
    };
    let failed = false;
    return txs.map((tx) => {
      const result: TestAcceptResult = { txid: tx.txid, wtxid: tx.wtxid, allowed: false };
      if (failed) return { ...result, rejectReason: 'package-error' };
      try {
        const accepted = checkForMempool(tx, view, { scriptCache: this.rememberScripts() });
        checkLimits(tx, accepted.fee, options, true);
        pending.set(tx.txid, tx);
        for (const input of tx.inputs) spent.set(outpointKey(input.prevTxid, input.vout), tx.txid);
        return { ...result, allowed: true, vsize: tx.vsize, fee: accepted.fee };
      } catch (error) {
        if (!(error instanceof TxRejected)) throw error;
        failed = txs.length > 1;
        return { ...result, rejectReason: error.reason };
      }
    });
  }

  // ---- blocks ----

  /** Mines `count` blocks paying subsidy + fees to `payTo` (address or output script); returns their hashes. */
  mine(count: number, payTo: string | Uint8Array): string[] {
    const script = typeof payTo === 'string' ? addressToScript(payTo) : payTo;
    const hashes: string[] = [];
    for (let i = 0; i < count; i++) hashes.push(this.mineOne(script).hash);
    return hashes;
  }

  /**
   * generateblock: one block holding exactly these mempool transactions, in this order (none: an empty block), so
   * a test can keep a transaction unconfirmed while the chain moves on.
   */
  mineWith(payTo: string | Uint8Array, txids: string[]): string {
    const script = typeof payTo === 'string' ? addressToScript(payTo) : payTo;
    const picked: MempoolEntry[] = [];
    for (const txid of txids) {
      const entry = this.mempool.get(txid);
      if (entry === undefined) throw new Error(`Transaction ${txid} not in mempool.`);
      if ([...entry.parents].some((parent) => !picked.some((earlier) => earlier.tx.txid === parent))) {
        throw new Error(`TestBlockValidity failed: bad-txns-inputs-missingorspent, ${txid} comes before a transaction it spends`);
      }
      picked.push(entry);
    }
    return this.mineOne(script, picked).hash;
  }

  private mineOne(script: Uint8Array, chosen?: MempoolEntry[]): BlockEntry {
    const height = this.height + 1;
    const picked = chosen ?? this.mempool.selectForBlock(MAX_BLOCK_WEIGHT - COINBASE_RESERVED_WEIGHT);
    const txs = picked.map((entry) => entry.tx);
    let fees = 0n;
    for (const entry of picked) fees += entry.fee;
    const coinbase = buildCoinbase(height, { value: blockSubsidy(height) + fees, script }, txs);
    const all = [coinbase, ...txs];
    const merkleRoot = computeMerkleRoot(all);
    let time = Math.max(Math.floor(Date.now() / 1000), this.chain.tip.medianTime + 1);
    let block: Block;
    for (;;) {
      const { header } = mineHeader({ version: BLOCK_VERSION, prevHash: this.chain.tip.hash, merkleRoot, time, bits: REGTEST_BITS });
      block = makeBlock(header, all);
      // The same block as an invalidated one (same second, same contents) would repeat its hash.
      if (!this.chain.blocks.has(block.hash)) break;
      time++;
    }
    return this.connectBlock(block);
  }

  private connectBlock(block: Block): BlockEntry {
    const entry = this.chain.connect(block);
    this.store.transaction(() => {
      this.store.putBlock(entry.hash, entry.height, block.raw);
      for (const tx of block.txs) {
        if (this.mempool.remove(tx.txid)) this.store.removeMempoolTx(tx.txid);
      }
    });
    this.emit('blockConnected', entry);
    return entry;
  }

  /**
   * invalidateblock: disconnects the block and every block after it, returns their transactions to the
   * mempool (those still valid on the shorter chain) and drops mempool transactions that lost their inputs.
   */
  invalidateBlock(hash: string): void {
    const target = this.chain.blocks.get(hash);
    if (!target) throw new Error('Block not found');
    if (target.height === 0) throw new Error('cannot invalidate the genesis block');
    if (!this.chain.isActive(target)) {
      target.status = 'invalid';
      this.store.markInvalid(hash);
      return;
    }
    const disconnected: BlockEntry[] = [];
    while (this.height >= target.height) disconnected.push(this.chain.disconnectTip());
    const previous = this.mempool.clear();
    const now = Math.floor(Date.now() / 1000);
    this.store.transaction(() => {
      for (const entry of disconnected) this.store.markInvalid(entry.hash);
      this.store.clearMempool();
      const returning = [...disconnected].reverse().flatMap((entry) => entry.block.txs.filter((tx) => !isCoinbase(tx)));
      for (const tx of returning) this.tryReadd(tx, now);
      for (const entry of previous) this.tryReadd(entry.tx, entry.time);
    });
    for (const entry of disconnected) this.emit('blockDisconnected', entry);
    this.emit('mempoolReset');
  }

  private tryReadd(tx: Tx, time: number): void {
    try {
      this.addToMempool(tx, time, true);
    } catch (error) {
      if (!(error instanceof TxRejected)) throw error;
    }
  }
}

function checkLimits(tx: Tx, fee: bigint, limits: SubmitOptions, testOnly = false): void {
  const { maxFeeRateSatPerKvB, maxBurnSat } = limits;
  if (maxFeeRateSatPerKvB !== undefined && maxFeeRateSatPerKvB > 0n && fee * 1000n > maxFeeRateSatPerKvB * BigInt(tx.vsize)) {
    if (testOnly) throw new TxRejected('max-fee-exceeded');
    throw new TxRejected('Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', '', RPC_VERIFY_ERROR);
  }
  if (maxBurnSat !== undefined) {
    let burnt = 0n;
    for (const output of tx.outputs) if (isUnspendable(output.script)) burnt += output.value;
    if (burnt > maxBurnSat) {
      throw new TxRejected('Unspendable output exceeds maximum configured by user (maxburnamount)', '', RPC_VERIFY_ERROR);
    }
  }
}

export { TxRejected };
