// Chain access for Ferry: the Core-family RPC client and the watcher that follows blocks and mempool.
export * from '@ferry/sdk/chains/core-rpc.js';
export { ChainWatcher, type ChainWatcherOptions } from './watcher/watcher.ts';
export { bitcoinCodec } from './bitcoin/codec.ts';
export { MemoryCheckpointStore, type Checkpoint, type CheckpointStore } from './checkpoint.ts';
export type * from '@ferry/sdk/chains/events.js';
export { consoleLogger, silentLogger, type WatcherLogger } from './logger.ts';
export { parseBlock, parseTransaction, type RawBlock, type RawTransaction } from './bitcoin/raw-block.ts';
