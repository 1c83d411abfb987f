// Chain access for Ferry: the Bitcoin Core RPC client and the watcher that follows blocks and mempool.
export * from './bitcoin/rpc.ts';
export { ChainWatcher, type ChainWatcherOptions } from './bitcoin/watcher.ts';
export { MemoryCheckpointStore, type Checkpoint, type CheckpointStore } from './checkpoint.ts';
export type * from './events.ts';
export { consoleLogger, silentLogger, type WatcherLogger } from './logger.ts';
export { parseBlock, parseTransaction, type RawBlock, type RawTransaction } from './bitcoin/raw-block.ts';
