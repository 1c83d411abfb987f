// Chain access for Ferry: the Core-family RPC client and the watcher that follows blocks and mempool.
export * from './core-rpc.ts';
export { ChainWatcher, type ChainWatcherOptions } from './watcher/watcher.ts';
export { bitcoinCodec } from './bitcoin/codec.ts';
export { MemoryCheckpointStore, type Checkpoint, type CheckpointStore } from './checkpoint.ts';
export type * from './events.ts';
export { consoleLogger, silentLogger, type WatcherLogger } from './logger.ts';
export { parseBlock, parseTransaction, type RawBlock, type RawTransaction } from './bitcoin/raw-block.ts';
