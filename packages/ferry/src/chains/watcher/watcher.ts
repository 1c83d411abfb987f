// Follows a node of Bitcoin Core's family (Bitcoin Core, Elements; the chain's codec reads its blocks) by polling (getbestblockhash, getblockhash, getblock, getrawmempool,
// getrawtransaction) and reports lockups to watched scripts, spends of watched outpoints (with the
// spending witness), confirmations and reorgs. The last processed block is saved after each block,
// so a restarted watcher carries on where it stopped instead of rescanning or skipping blocks.
import { RpcError, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { BlockWindow } from './block-window.ts';
import type { CheckpointStore } from '../checkpoint.ts';
import type { BlockRef, ChainEventHandler, ChainEventType, ChainSubscriber } from '@ferry/sdk/chains/events.js';
import { consoleLogger, type WatcherLogger } from '../logger.ts';
import { Poller } from '../poller.ts';
import { MempoolFollower } from './mempool.ts';
import type { ChainCodec, WatchedBlock, WatchedTransaction } from './codec.ts';
import { findLockups, findSpends } from './scan.ts';
import { Subscribers } from '../subscribers.ts';
import { TrackedTransactions } from './tracked-txs.ts';
import { WatchIndex } from './watch-index.ts';

export interface ChainWatcherOptions {
  /** Name used in events and as the checkpoint key, e.g. 'BTC'. */
  chain: string;
  rpc: CoreRpcClient;
  /** How this chain's blocks and transactions are read. */
  codec: ChainCodec;
  checkpoints: CheckpointStore;
  pollIntervalMs?: number;
  /** First block to scan when there is no checkpoint; without either, scanning starts after the current tip. */
  startHeight?: number;
  logger?: WatcherLogger;
  /** Report unconfirmed transactions (default true). */
  mempool?: boolean;
  /** How many processed blocks are remembered to detect and walk back reorgs (default 100). */
  reorgDepth?: number;
  /** Confirmation events are sent up to this count per tracked transaction (default 6). */
  maxConfirmations?: number;
}

/** Core error codes the watcher expects in normal operation. */
const BLOCK_HEIGHT_OUT_OF_RANGE = -8;
const BLOCK_NOT_FOUND = -5;

export class ChainWatcher {
  readonly chain: string;
  private readonly rpc: CoreRpcClient;
  private readonly codec: ChainCodec<WatchedTransaction>;
  private readonly checkpoints: CheckpointStore;
  private readonly logger: WatcherLogger;
  private readonly followMempool: boolean;
  private readonly reorgDepth: number;
  private readonly maxConfirmations: number;
  private readonly index = new WatchIndex();
  private readonly tracked = new TrackedTransactions();
  private readonly window: BlockWindow;
  private readonly mempool: MempoolFollower<WatchedTransaction>;
  private readonly subscribers: Subscribers;
  private position?: BlockRef;
  private readonly poller: Poller;

  constructor(private readonly options: ChainWatcherOptions) {
    this.chain = options.chain;
    this.rpc = options.rpc;
    this.codec = options.codec;
    this.checkpoints = options.checkpoints;
    this.logger = options.logger ?? consoleLogger;
    this.poller = new Poller('chain watcher', this.chain, options.pollIntervalMs ?? 1000, this.logger, () => this.round());
    this.followMempool = options.mempool ?? true;
    this.reorgDepth = options.reorgDepth ?? 100;
    this.maxConfirmations = options.maxConfirmations ?? 6;
    this.window = new BlockWindow(this.reorgDepth);
    this.mempool = new MempoolFollower(this.rpc, this.codec);
    this.subscribers = new Subscribers(this.logger);
  }

  watchScript(scriptHex: string): void {
    this.index.watchScript(scriptHex);
  }

  /** Also stops following the outputs that were found paying this script. */
  unwatchScript(scriptHex: string): void {
    this.index.unwatchScript(scriptHex);
  }

  /** Report spends of an output (lockups of watched scripts are followed without this). */
  watchOutpoint(txid: string, vout: number): void {
    this.index.watchOutpoint(txid, vout);
  }

  unwatchOutpoint(txid: string, vout: number): void {
    this.index.unwatchOutpoint(txid, vout);
  }

  /** Report confirmations of a transaction (e.g. one Ferry broadcast itself). */
  watchTransaction(txid: string): void {
    this.index.watchTransaction(txid);
  }

  unwatchTransaction(txid: string): void {
    this.index.unwatchTransaction(txid);
  }

  on<K extends ChainEventType>(type: K, handler: ChainEventHandler<K>): () => void {
    return this.subscribers.on(type, handler);
  }

  subscribe(subscriber: ChainSubscriber): () => void {
    return this.subscribers.add(subscriber);
  }

  /** The last processed block. */
  get tip(): BlockRef | undefined {
    return this.position && { ...this.position };
  }

  get watching(): { scripts: number; outpoints: number; transactions: number } {
    return this.index.size;
  }

  /** Starts polling; resolves after the first round, which is logged (not thrown) if the node is down. */
  start(): Promise<void> {
    return this.poller.start();
  }

  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** Processes everything up to the node's current tip and its mempool now; rejects if the node fails. */
  sync(): Promise<void> {
    return this.poller.sync();
  }

  private async round(): Promise<void> {
    if (!this.position) await this.initialize();
    await this.followBlocks();
    if (this.followMempool) await this.scanMempool();
  }

  private async initialize(): Promise<void> {
    const checkpoint = await this.checkpoints.get(this.chain);
    if (checkpoint) {
      this.moveTo({ height: checkpoint.height, hash: checkpoint.hash });
      this.logger.info('chain watcher: resuming after checkpoint', { chain: this.chain, ...checkpoint });
      return;
    }
    const bestHash = await this.rpc.getBestBlockHash();
    const best = await this.rpc.getBlockHeader(bestHash);
    let start: BlockRef = { height: best.height, hash: bestHash };
    const { startHeight } = this.options;
    if (startHeight !== undefined && startHeight <= best.height) {
      // The genesis block's outputs are unspendable, so there is nothing to scan below height 1.
      const height = Math.max(startHeight - 1, 0);
      start = { height, hash: await this.rpc.getBlockHash(height) };
    }
    this.moveTo(start);
    await this.checkpoints.set(this.chain, start);
    this.logger.info('chain watcher: starting', { chain: this.chain, after: start });
  }

  private moveTo(block: BlockRef, previousHash?: string): void {
    this.position = block;
    this.window.add(block.height, block.hash, previousHash);
  }

  private async followBlocks(): Promise<void> {
    while (true) {
      const position = this.position!;
      const bestHash = await this.rpc.getBestBlockHash();
      if (bestHash === position.hash) return;
      const best = await this.rpc.getBlockHeader(bestHash);
      if (best.height <= position.height) {
        await this.rewind();
        continue;
      }
      for (let height = position.height + 1; height <= best.height; height++) {
        const hash = await this.rpc.getBlockHash(height);
        const block = await this.codec.readBlock(this.rpc, hash);
        if (block.previousHash !== this.position!.hash) {
          await this.rewind();
          break;
        }
        await this.processBlock({ height, hash }, block);
      }
    }
  }

  /** Walks back from our tip to the last block still in the node's active chain. */
  private async rewind(): Promise<void> {
    const bestHash = await this.rpc.getBestBlockHash();
    const newTip: BlockRef = { height: (await this.rpc.getBlockHeader(bestHash)).height, hash: bestHash };
    const disconnected: BlockRef[] = [];
    let cursor = this.position!;
    while (!(await this.isActive(cursor))) {
      disconnected.push(cursor);
      const parent = this.window.parent(cursor) ?? (await this.parentFromNode(cursor));
      if (!parent) {
        // The node does not know the block (e.g. it was resynced): carry on from the highest height
        // both chains can share; transactions above it are scanned again.
        const height = Math.min(cursor.height - 1, newTip.height);
        this.logger.warn('chain watcher: fork point unknown to the node', { chain: this.chain, height });
        cursor = { height, hash: await this.rpc.getBlockHash(height) };
        break;
      }
      cursor = parent;
    }
    if (disconnected.length === 0) {
      throw new Error(`chain watcher: node reported a fork but block ${cursor.hash} is still in its active chain`);
    }
    for (const txid of this.tracked.disconnect(new Set(disconnected.map((block) => block.hash)))) {
      this.mempool.forget(txid);
    }
    this.window.dropAbove(cursor.height);
    this.moveTo(cursor);
    this.logger.warn('chain watcher: reorg', { chain: this.chain, forkHeight: cursor.height, disconnected, newTip });
    await this.subscribers.emit('reorg', { chain: this.chain, disconnected, forkHeight: cursor.height, newTip });
    await this.checkpoints.set(this.chain, cursor);
  }

  private async isActive(block: BlockRef): Promise<boolean> {
    try {
      return (await this.rpc.getBlockHash(block.height)) === block.hash;
    } catch (error) {
      if (error instanceof RpcError && error.code === BLOCK_HEIGHT_OUT_OF_RANGE) return false;
      throw error;
    }
  }

  private async parentFromNode(block: BlockRef): Promise<BlockRef | undefined> {
    try {
      const header = await this.rpc.getBlockHeader(block.hash);
      return header.previousblockhash ? { height: block.height - 1, hash: header.previousblockhash } : undefined;
    } catch (error) {
      if (error instanceof RpcError && error.code === BLOCK_NOT_FOUND) return undefined;
      throw error;
    }
  }

  private async processBlock(block: BlockRef, raw: WatchedBlock<WatchedTransaction>): Promise<void> {
    const { transactions } = raw;
    for (const tx of transactions) this.mempool.forget(tx.txid);
    const placement = { confirmations: 1, blockHeight: block.height, blockHash: block.hash };
    const included = await this.report(
      transactions.filter((tx) => !this.tracked.isReportedInBlock(tx.txid, block.hash)),
      placement,
    );
    for (const tx of transactions) if (this.index.isTransactionWatched(tx.txid)) included.add(tx.txid);

    for (const txid of included) {
      this.tracked.markBlock(txid, block);
      await this.subscribers.emit('confirmation', { chain: this.chain, txid, ...placement });
    }
    for (const deeper of this.tracked.deepened(block.height, this.maxConfirmations, this.reorgDepth)) {
      await this.subscribers.emit('confirmation', {
        chain: this.chain,
        txid: deeper.txid,
        confirmations: deeper.confirmations,
        blockHeight: deeper.height,
        blockHash: deeper.hash,
      });
    }

    this.moveTo(block, raw.previousHash);
    await this.subscribers.emit('block', { chain: this.chain, ...block });
    await this.checkpoints.set(this.chain, block);
  }

  private async scanMempool(): Promise<void> {
    const { entered, mempool } = await this.mempool.poll();
    this.tracked.forgetLeftMempool(mempool);
    const fresh = entered.filter((tx) => !this.tracked.isReported(tx.txid));
    for (const txid of await this.report(fresh, { confirmations: 0 })) this.tracked.markMempool(txid);
  }

  /** Emits lockup and spend events for a batch of transactions; returns the txids that matched. */
  private async report(
    transactions: WatchedTransaction[],
    placement: { confirmations: number; blockHeight?: number; blockHash?: string },
  ): Promise<Set<string>> {
    const matched = new Set<string>();
    // All outputs first: a spend in the same batch as its lockup must find the lockup's outpoint.
    const lockups = findLockups(transactions, this.index, this.codec);
    const spends = findSpends(transactions, this.index);
    for (const { tx, vout, value, scriptHex, refusal } of lockups) {
      matched.add(tx.txid);
      await this.subscribers.emit('lockup', {
        chain: this.chain,
        txid: tx.txid,
        vout,
        value,
        scriptHex,
        ...(refusal !== undefined && { refusal }),
        txHex: this.codec.transactionHex(tx),
        ...placement,
      });
    }
    for (const { tx, inputIndex, outpoint } of spends) {
      matched.add(tx.txid);
      await this.subscribers.emit('spend', {
        chain: this.chain,
        outpoint,
        txid: tx.txid,
        inputIndex,
        witness: this.codec.inputWitness(tx, inputIndex),
        txHex: this.codec.transactionHex(tx),
        ...placement,
      });
    }
    return matched;
  }
}
