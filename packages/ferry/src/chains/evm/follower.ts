// Follows the swap contracts' Lockup, Claim and Refund events by polling an EVM node (block headers and
// eth_getLogs), from a checkpointed block, so a restart neither rescans the chain nor skips blocks. Reorg-safe the
// way the Bitcoin watcher is: it remembers the hashes of the blocks it read, notices when one of them left the
// chain, tells subscribers which events went with them, and reads the new blocks again.
import { Contract, type JsonRpcProvider, type Log } from 'ethers';
import type { CheckpointStore } from '../checkpoint.ts';
import type { BlockRef } from '@ferry/sdk/chains/events.js';
import { consoleLogger, type WatcherLogger } from '../logger.ts';
import { Poller } from '../poller.ts';
import { Subscribers } from '../subscribers.ts';
import { BlockWindow } from '../watcher/block-window.ts';
import { abiOf, type SwapContractName } from './abi.ts';
import { decodeSwapLog } from './decode.ts';
import type { EvmFollowerEvents, EvmFollowerSubscriber, EvmSwapEvent } from './events.ts';

export interface EvmFollowerOptions {
  /** Name in events and the checkpoint's key, e.g. 'RBTC'. */
  chain: string;
  provider: JsonRpcProvider;
  contracts: Record<SwapContractName, string>;
  checkpoints: CheckpointStore;
  pollIntervalMs?: number;
  /** How deep a block must be before its events are delivered (default 1: the tip's). */
  confirmations?: number;
  /** First block to read when there is no checkpoint; without either, reading starts after the current tip. */
  startHeight?: number;
  /** How many read blocks are remembered to detect and walk back reorgs (default 64). */
  reorgDepth?: number;
  /** Most blocks one eth_getLogs spans (default 100); nodes cap the range, and each block's header is read too. */
  maxRange?: number;
  logger?: WatcherLogger;
}

interface Header extends BlockRef {
  parentHash: string;
}

/** The chain moved while a range was read: read it again from the (re)checked position. */
class RangeChanged extends Error {}

const MAX_RANGE_RETRIES = 5;

export class EvmFollower {
  readonly chain: string;
  private readonly provider: JsonRpcProvider;
  private readonly addresses: Map<string, SwapContractName>;
  private readonly checkpoints: CheckpointStore;
  private readonly logger: WatcherLogger;
  private readonly confirmations: number;
  private readonly reorgDepth: number;
  private readonly maxRange: number;
  private readonly window: BlockWindow;
  /** The events delivered from each remembered block, by height: what a reorg names as removed. */
  private readonly delivered = new Map<number, { hash: string; events: EvmSwapEvent[] }>();
  private readonly decimals = new Map<string, Promise<number>>();
  private readonly subscribers: Subscribers<EvmFollowerEvents>;
  private position?: BlockRef;
  private readonly poller: Poller;

  constructor(private readonly options: EvmFollowerOptions) {
    this.chain = options.chain;
    this.provider = options.provider;
    this.addresses = new Map(Object.entries(options.contracts).map(([name, address]) => [address.toLowerCase(), name as SwapContractName]));
    this.checkpoints = options.checkpoints;
    this.logger = options.logger ?? consoleLogger;
    this.poller = new Poller('evm follower', this.chain, options.pollIntervalMs ?? 1000, this.logger, () => this.round());
    this.confirmations = Math.max(1, options.confirmations ?? 1);
    this.reorgDepth = options.reorgDepth ?? 64;
    this.maxRange = options.maxRange ?? 100;
    this.window = new BlockWindow(this.reorgDepth);
    this.subscribers = new Subscribers<EvmFollowerEvents>(this.logger);
  }

  subscribe(subscriber: EvmFollowerSubscriber): () => void {
    return this.subscribers.add(subscriber);
  }

  on<K extends keyof EvmFollowerEvents>(type: K, handler: (event: EvmFollowerEvents[K]) => void | Promise<void>): () => void {
    return this.subscribers.on(type, handler);
  }

  /** The last block whose events were delivered. */
  get tip(): BlockRef | undefined {
    return this.position && { ...this.position };
  }

  /** Starts polling; resolves after the first round, which is logged (not thrown) if the node is down. */
  start(): Promise<void> {
    return this.poller.start();
  }

  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** Delivers every event up to the node's current (confirmed) tip now; rejects if the node fails. */
  sync(): Promise<void> {
    return this.poller.sync();
  }

  /** The highest block whose events may be delivered: `confirmations` deep. */
  private async target(): Promise<number> {
    return Math.max(0, (await this.provider.getBlockNumber()) - (this.confirmations - 1));
  }

  private async round(): Promise<void> {
    if (!this.position) await this.initialize();
    for (let changed = 0; ; ) {
      if (!(await this.isCanonical(this.position!))) {
        await this.rewind();
        continue;
      }
      const target = await this.target();
      if (target <= this.position!.height) return;
      try {
        await this.readRange(this.position!.height + 1, Math.min(target, this.position!.height + this.maxRange));
      } catch (error) {
        if (!(error instanceof RangeChanged)) throw error;
        // A node whose answers keep disagreeing is not spun on: the next poll tries again.
        if (++changed >= MAX_RANGE_RETRIES) throw new Error(`evm follower: the chain kept changing while read (${error.message})`);
        this.logger.debug('evm follower: chain changed while reading, reading again', { chain: this.chain });
      }
    }
  }

  private async initialize(): Promise<void> {
    const checkpoint = await this.checkpoints.get(this.chain);
    if (checkpoint) {
      this.moveTo({ height: checkpoint.height, hash: checkpoint.hash });
      this.logger.info('evm follower: resuming after checkpoint', { chain: this.chain, ...checkpoint });
      return;
    }
    const target = await this.target();
    const { startHeight } = this.options;
    const height = startHeight !== undefined ? Math.min(Math.max(startHeight - 1, 0), target) : target;
    const start = await this.header(height);
    this.moveTo(start, start.parentHash);
    await this.checkpoints.set(this.chain, { height: start.height, hash: start.hash });
    this.logger.info('evm follower: starting', { chain: this.chain, after: { height: start.height, hash: start.hash } });
  }

  private moveTo(block: BlockRef, parentHash?: string): void {
    this.position = { height: block.height, hash: block.hash };
    this.window.add(block.height, block.hash, parentHash);
    this.delivered.delete(block.height - this.reorgDepth);
  }

  private async header(height: number): Promise<Header> {
    const block = await this.provider.getBlock(height);
    if (!block?.hash) throw new RangeChanged(`block ${height} is not in the chain`);
    return { height, hash: block.hash, parentHash: block.parentHash };
  }

  private async isCanonical(block: BlockRef): Promise<boolean> {
    return (await this.provider.getBlock(block.height))?.hash === block.hash;
  }

  /** Reads blocks from..to, their logs, and delivers them; RangeChanged when a block changed meanwhile. */
  private async readRange(from: number, to: number): Promise<void> {
    const headers = await Promise.all(Array.from({ length: to - from + 1 }, (_, i) => this.header(from + i)));
    let parent = this.position!.hash;
    for (const header of headers) {
      if (header.parentHash !== parent) throw new RangeChanged(`block ${header.height} does not follow the block read before it`);
      parent = header.hash;
    }
    const logs = await this.provider.getLogs({ address: [...this.addresses.keys()], fromBlock: from, toBlock: to });
    const byHeight = new Map<number, Log[]>();
    for (const log of logs) {
      if (log.removed || headers[log.blockNumber - from]?.hash !== log.blockHash) throw new RangeChanged(`a log of block ${log.blockNumber} is not of the block read`);
      byHeight.set(log.blockNumber, [...(byHeight.get(log.blockNumber) ?? []), log]);
    }
    for (const header of headers) {
      const events: EvmSwapEvent[] = [];
      for (const log of (byHeight.get(header.height) ?? []).sort((a, b) => a.index - b.index)) {
        const event = await decodeSwapLog(this.chain, this.addresses.get(log.address.toLowerCase())!, log, (token) => this.decimalsOf(token));
        if (event) events.push(event);
      }
      for (const event of events) await this.subscribers.emit('event', event);
      if (events.length > 0) this.delivered.set(header.height, { hash: header.hash, events });
      this.moveTo(header, header.parentHash);
    }
    const last = headers[headers.length - 1]!;
    await this.checkpoints.set(this.chain, { height: last.height, hash: last.hash });
    await this.subscribers.emit('block', { chain: this.chain, height: last.height, hash: last.hash });
  }

  /** Walks back from our position to the last block still in the node's chain, naming what left it. */
  private async rewind(): Promise<void> {
    const disconnected: BlockRef[] = [];
    let complete = true;
    let cursor = this.position!;
    while (!(await this.isCanonical(cursor))) {
      disconnected.push(cursor);
      const parent = this.window.parent(cursor);
      if (parent) {
        cursor = parent;
        continue;
      }
      // Blocks read before a restart (or deeper than the window) are not remembered: go back a whole window from
      // the node's chain and read it again; what was delivered from the lost blocks cannot be listed.
      complete = false;
      const height = Math.max(0, Math.min(cursor.height, await this.provider.getBlockNumber()) - this.reorgDepth);
      const header = await this.header(height);
      cursor = { height, hash: header.hash };
      this.logger.warn('evm follower: fork point unknown, reading a window again', { chain: this.chain, height });
      break;
    }
    const removed: EvmSwapEvent[] = [];
    for (const [height, { events }] of [...this.delivered].sort(([a], [b]) => b - a)) {
      if (height <= cursor.height) continue;
      removed.push(...[...events].reverse());
      this.delivered.delete(height);
    }
    this.window.dropAbove(cursor.height);
    this.moveTo(cursor);
    this.logger.warn('evm follower: reorg', { chain: this.chain, forkHeight: cursor.height, disconnected: disconnected.length, removed: removed.length });
    await this.subscribers.emit('reorg', { chain: this.chain, forkHeight: cursor.height, disconnected, removed, complete });
    await this.checkpoints.set(this.chain, cursor);
  }

  private decimalsOf(token: string): Promise<number> {
    let decimals = this.decimals.get(token);
    if (!decimals) {
      decimals = new Contract(token, abiOf('ERC20'), this.provider).getFunction('decimals')().then(Number);
      decimals.catch(() => this.decimals.delete(token)); // a failed read is tried again with the next event
      this.decimals.set(token, decimals);
    }
    return decimals;
  }
}
