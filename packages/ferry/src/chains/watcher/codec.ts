// How the watcher reads one chain's blocks and transactions: the one chain-specific part of following a node of
// Bitcoin Core's family (Bitcoin Core itself, Elements). Each chain folder provides its codec; the watcher, its
// index and its mempool follower stay the same for all of them.
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';

export interface WatchedInput {
  /** txid of the spent output, in internal byte order (the reverse of how txids are displayed). */
  prevTxidInternal: string;
  prevVout: number;
}

export interface WatchedOutput {
  scriptHex: string;
}

export interface WatchedTransaction {
  /** Display byte order. */
  txid: string;
  inputs: WatchedInput[];
  outputs: WatchedOutput[];
  isCoinbase: boolean;
}

export interface WatchedBlock<T extends WatchedTransaction> {
  previousHash: string;
  transactions: T[];
}

/** What an output paying a watched script is worth; `refusal` says why it cannot count as a lockup at all. */
export interface LockupValue {
  value: bigint;
  refusal?: string;
}

export interface ChainCodec<T extends WatchedTransaction = WatchedTransaction> {
  readBlock(rpc: CoreRpcClient, hash: string): Promise<WatchedBlock<T>>;
  /** Throws on bytes that are not a transaction of this chain. */
  parseTransaction(hex: string): T;
  transactionHex(tx: T): string;
  /** The input's witness stack, hex items. */
  inputWitness(tx: T, inputIndex: number): string[];
  /** Called only for outputs paying a watched script: the amount in the chain's own coin (Liquid unblinds here). */
  lockupValue(tx: T, vout: number): LockupValue;
}

export const internalTxid = (txid: string): string => Buffer.from(txid, 'hex').reverse().toString('hex');
