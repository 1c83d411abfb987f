// The Elements regtest node: chain + mempool + miner behind one object. Every transaction enters through
// acceptTransaction (verified for real, asynchronously); state changes run one at a time behind a queue so a
// verification in flight never sees the chain move under it. invalidateBlock is a real reorg with undo data.
import { EventEmitter } from 'node:events';
import { RPC_VERIFY_ALREADY_IN_CHAIN } from '../bitcoin/accept.ts';
import type { NodeStore } from '../bitcoin/store.ts';
import { checkForMempool, RPC_VERIFY_ERROR, TxRejected, type ElementsAcceptView } from './accept.ts';
import { BLOCK_VERSION, SIGNBLOCK_CHALLENGE, buildCoinbase, computeMerkleRoot, genesisBlock, makeBlock, parseBlock, type ElementsBlock } from './block.ts';
import { ElementsChain, type ElementsBlockEntry, type ElementsCoin } from './chain.ts';
import { ElementsMempool, type ElementsMempoolEntry } from './mempool.ts';
import { evictionSet } from '../common/replacement.ts';
import { COINBASE_RESERVED_WEIGHT, MAX_BLOCK_WEIGHT, addressToScript, blockSubsidy } from './params.ts';
import { isUnspendable, outpointKey, parseTx, prevout, type ElementsTx } from './tx.ts';

export interface ElementsTestAcceptResult {
  txid: string;
  wtxid: string;
  allowed: boolean;
  vsize?: number;
  fee?: bigint;
  rejectReason?: string;
}

interface ElementsNodeEvents {
  blockConnected: [ElementsBlockEntry];
  blockDisconnected: [ElementsBlockEntry];
  transaction: [ElementsTx, ElementsMempoolEntry];
}

export class ElementsNode extends EventEmitter<ElementsNodeEvents> {
  readonly chain = new ElementsChain(genesisBlock());
  readonly mempool = new ElementsMempool();
  /**
   * Full RBF, as the devnet's Bitcoin node has it (common/replacement.ts): a conflicting transaction that pays more
   * replaces what it conflicts with. Off by default, where every conflict is refused ("txn-mempool-conflict").
   */
  fullRbf = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: NodeStore) {
    super();
    this.setMaxListeners(0);
  }

  /** Runs `task` after every state change queued before it. */
  private exclusive<T>(task: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every state change queued so far has finished (before closing the store). */
  idle(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  /** Rebuilds chain and mempool from the store (this node verified every stored transaction already). */
  async load(): Promise<void> {
    for (const stored of this.store.blocks()) {
      const block = parseBlock(stored.raw);
      if (stored.active) this.chain.connect(block);
      else this.chain.addInvalid(block, stored.height);
    }
    const saved = this.store.mempool();
    this.store.clearMempool();
    for (const { raw, time } of saved) await this.tryReadd(parseTx(raw), time);
  }

  get height(): number {
    return this.chain.height;
  }

  get tip(): ElementsBlockEntry {
    return this.chain.tip;
  }

  blockAt(height: number): ElementsBlockEntry | undefined {
    return this.chain.active[height];
  }

  block(hash: string): ElementsBlockEntry | undefined {
    return this.chain.blocks.get(hash);
  }

  /** A mempool or active-chain transaction (full txindex). */
  transaction(txid: string): { tx: ElementsTx; block?: ElementsBlockEntry; mempool?: ElementsMempoolEntry } | undefined {
    const pending = this.mempool.get(txid);
    if (pending) return { tx: pending.tx, mempool: pending };
    const indexed = this.chain.txIndex.get(txid);
    return indexed ? { tx: indexed.entry.block.txs[indexed.index], block: indexed.entry } : undefined;
  }

  /** gettxout: an unspent output; with includeMempool, mempool outputs count and mempool-spent ones do not. */
  unspent(txid: string, vout: number, includeMempool = true): { coin: ElementsCoin; confirmations: number } | undefined {
    if (includeMempool && this.mempool.spender(txid, vout) !== undefined) return undefined;
    const coin = this.chain.utxos.get(outpointKey(txid, vout));
    if (coin) return { coin, confirmations: this.height - coin.height + 1 };
    if (!includeMempool) return undefined;
    const pending = this.mempool.outputCoin(txid, vout, this.height + 1);
    return pending ? { coin: pending, confirmations: 0 } : undefined;
  }

  private view(overlay?: Map<string, ElementsTx>, spent?: Map<string, string>): ElementsAcceptView {
    const nextHeight = this.height + 1;
    return {
      nextHeight,
      tipMedianTime: this.chain.tip.medianTime,
      medianTimeAt: (height) => this.chain.medianTimeAt(height),
      coin: (txid, vout) => {
        const output = overlay?.get(txid)?.tx.outs[vout];
        if (output && !isUnspendable(output)) return { output, height: nextHeight, coinbase: false };
        return this.chain.utxos.get(outpointKey(txid, vout)) ?? this.mempool.outputCoin(txid, vout, nextHeight);
      },
      hasChainOutputs: (etx) => etx.tx.outs.some((_, vout) => this.chain.utxos.has(outpointKey(etx.txid, vout))),
      mempoolSpender: (txid, vout) => spent?.get(outpointKey(txid, vout)) ?? this.mempool.spender(txid, vout),
      mempoolHasTxid: (txid) => overlay?.has(txid) === true || this.mempool.get(txid) !== undefined,
      mempoolHasWtxid: (wtxid) => this.mempool.hasWtxid(wtxid),
      genesisBlockHash: this.chain.active[0].hash,
      // A replacement is judged alone; within a package (testmempoolaccept) a conflict stays a plain refusal.
      evictionSet: this.fullRbf && overlay === undefined ? (conflicts) => evictionSet((txid) => this.mempool.get(txid), conflicts) : undefined,
    };
  }

  private async addToMempool(etx: ElementsTx, time: number, trusted: boolean, maxFeeRate?: bigint): Promise<ElementsMempoolEntry> {
    const accepted = await checkForMempool(etx, this.view(), { trusted });
    checkMaxFeeRate(etx, accepted.fee, maxFeeRate);
    for (const txid of accepted.replaces) {
      if (this.mempool.remove(txid)) this.store.removeMempoolTx(txid);
    }
    const entry: ElementsMempoolEntry = { tx: etx, fee: accepted.fee, time, height: this.height, spentCoins: accepted.spentCoins, parents: new Set(), children: new Set() };
    this.mempool.add(entry);
    this.store.addMempoolTx(etx.txid, etx.raw, time);
    return entry;
  }

  /**
   * sendrawtransaction: verifies and adds to the mempool; throws TxRejected with elementsd's reason and code.
   * maxFeeRate: refuse fee rates above this many sat/kvB (0 = no limit).
   */
  acceptTransaction(input: ElementsTx | Uint8Array | string, maxFeeRate?: bigint): Promise<string> {
    const etx = typeof input === 'string' ? parseTx(Buffer.from(input, 'hex')) : input instanceof Uint8Array ? parseTx(input) : input;
    return this.exclusive(async () => {
      if (etx.tx.outs.some((_, vout) => this.chain.utxos.has(outpointKey(etx.txid, vout)))) {
        throw new TxRejected('Transaction already in block chain', '', RPC_VERIFY_ALREADY_IN_CHAIN);
      }
      if (this.mempool.get(etx.txid)) return etx.txid;
      const entry = await this.addToMempool(etx, Math.floor(Date.now() / 1000), false, maxFeeRate);
      this.emit('transaction', etx, entry);
      return etx.txid;
    });
  }

  /** testmempoolaccept: each transaction may spend outputs of the ones before it; nothing is kept. */
  testAccept(txs: ElementsTx[], maxFeeRate?: bigint): Promise<ElementsTestAcceptResult[]> {
    return this.exclusive(async () => {
      const pending = new Map<string, ElementsTx>();
      const spent = new Map<string, string>();
      const results: ElementsTestAcceptResult[] = [];
      let failed = false;
      for (const etx of txs) {
        const result: ElementsTestAcceptResult = { txid: etx.txid, wtxid: etx.wtxid, allowed: false };
        if (failed) {
          results.push({ ...result, rejectReason: 'package-error' });
          continue;
        }
        try {
          const accepted = await checkForMempool(etx, this.view(pending, spent));
          checkMaxFeeRate(etx, accepted.fee, maxFeeRate, true);
          pending.set(etx.txid, etx);
          etx.tx.ins.forEach((_, i) => {
            const spends = prevout(etx.tx, i);
            spent.set(outpointKey(spends.txid, spends.vout), etx.txid);
          });
          results.push({ ...result, allowed: true, vsize: etx.vsize, fee: accepted.fee });
        } catch (error) {
          if (!(error instanceof TxRejected)) throw error;
          failed = txs.length > 1;
          results.push({ ...result, rejectReason: error.reason });
        }
      }
      return results;
    });
  }

  /** Mines `count` blocks paying subsidy + fees in explicit L-BTC to `payTo` (address or script). */
  mine(count: number, payTo: string | Uint8Array): Promise<string[]> {
    const script = typeof payTo === 'string' ? addressToScript(payTo) : payTo;
    return this.exclusive(() => {
      const hashes: string[] = [];
      for (let i = 0; i < count; i++) hashes.push(this.mineOne(script).hash);
      return hashes;
    });
  }

  /** generateblock: one block of exactly these mempool transactions, parents before children. */
  mineWith(payTo: string | Uint8Array, txids: string[]): Promise<string> {
    const script = typeof payTo === 'string' ? addressToScript(payTo) : payTo;
    return this.exclusive(() => {
      const picked: ElementsMempoolEntry[] = [];
      for (const txid of txids) {
        const entry = this.mempool.get(txid);
        if (entry === undefined) throw new Error(`Transaction ${txid} not in mempool.`);
        if ([...entry.parents].some((parent) => !picked.includes(this.mempool.get(parent)!))) {
          throw new Error(`TestBlockValidity failed: bad-txns-inputs-missingorspent, ${txid} comes before a transaction it spends`);
        }
        picked.push(entry);
      }
      return this.mineOne(script, picked).hash;
    });
  }

  private mineOne(script: Uint8Array, chosen?: ElementsMempoolEntry[]): ElementsBlockEntry {
    const height = this.height + 1;
    const picked = chosen ?? this.mempool.selectForBlock(MAX_BLOCK_WEIGHT - COINBASE_RESERVED_WEIGHT);
    const txs = picked.map((entry) => entry.tx);
    const fees = picked.reduce((sum, entry) => sum + entry.fee, 0n);
    const all = [buildCoinbase(height, { script, value: blockSubsidy(height) + fees }, txs), ...txs];
    let time = Math.max(Math.floor(Date.now() / 1000), this.chain.tip.medianTime + 1);
    let block: ElementsBlock;
    for (;;) {
      const header = { version: BLOCK_VERSION, prevHash: this.tip.hash, merkleRoot: computeMerkleRoot(all), time, height, challenge: SIGNBLOCK_CHALLENGE, solution: Buffer.alloc(0) };
      block = makeBlock(header, all);
      // The same block as an invalidated one (same second, same contents) would repeat its hash.
      if (!this.chain.blocks.has(block.hash)) break;
      time++;
    }
    const entry = this.chain.connect(block);
    this.store.transaction(() => {
      this.store.putBlock(entry.hash, entry.height, block.raw);
      for (const etx of block.txs) if (this.mempool.remove(etx.txid)) this.store.removeMempoolTx(etx.txid);
    });
    this.emit('blockConnected', entry);
    return entry;
  }

  /**
   * invalidateblock: disconnects the block and all after it, returns their transactions to the mempool (those
   * still valid on the shorter chain) ahead of the mempool's own, and drops what lost its inputs.
   */
  invalidateBlock(hash: string): Promise<void> {
    return this.exclusive(async () => {
      const target = this.chain.blocks.get(hash);
      if (!target) throw new Error('Block not found');
      if (target.height === 0) throw new Error('cannot invalidate the genesis block');
      if (!this.chain.isActive(target)) {
        target.status = 'invalid';
        this.store.markInvalid(hash);
        return;
      }
      const disconnected: ElementsBlockEntry[] = [];
      while (this.height >= target.height) disconnected.push(this.chain.disconnectTip());
      const previous = this.mempool.clear();
      this.store.transaction(() => {
        for (const entry of disconnected) this.store.markInvalid(entry.hash);
        this.store.clearMempool();
      });
      const now = Math.floor(Date.now() / 1000);
      const returning = [...disconnected].reverse().flatMap((entry) => entry.block.txs.slice(1));
      for (const etx of returning) await this.tryReadd(etx, now);
      for (const entry of previous) await this.tryReadd(entry.tx, entry.time);
      for (const entry of disconnected) this.emit('blockDisconnected', entry);
    });
  }

  private async tryReadd(etx: ElementsTx, time: number): Promise<void> {
    try {
      await this.addToMempool(etx, time, true);
    } catch (error) {
      if (!(error instanceof TxRejected)) throw error;
    }
  }
}

/** sendrawtransaction's and testmempoolaccept's maxfeerate, over the discounted vsize the fee is judged by. */
function checkMaxFeeRate(etx: ElementsTx, fee: bigint, maxFeeRate: bigint | undefined, testOnly = false): void {
  if (maxFeeRate === undefined || maxFeeRate <= 0n || fee * 1000n <= maxFeeRate * BigInt(etx.vsize)) return;
  if (testOnly) throw new TxRejected('max-fee-exceeded');
  throw new TxRejected('Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', '', RPC_VERIFY_ERROR);
}

export { TxRejected, RPC_VERIFY_ERROR };
