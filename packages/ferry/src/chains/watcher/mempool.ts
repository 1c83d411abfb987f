// Follows the node's mempool by polling: fetches only transactions it has not seen, and forgets the
// ones that left, so memory stays proportional to the node's mempool.
import { RpcError, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { ChainCodec, WatchedTransaction } from './codec.ts';

/** Core's RPC_INVALID_ADDRESS_OR_KEY: the transaction left the mempool between the two calls. */
const NOT_FOUND = -5;

export class MempoolFollower<T extends WatchedTransaction> {
  private readonly seen = new Set<string>();

  constructor(
    private readonly rpc: CoreRpcClient,
    private readonly codec: ChainCodec<T>,
    private readonly concurrency = 8,
  ) {}

  /** The transactions that entered the mempool since the last poll, and the whole mempool's txids. */
  async poll(): Promise<{ entered: T[]; mempool: Set<string> }> {
    const mempool = new Set(await this.rpc.getRawMempool());
    for (const txid of this.seen) if (!mempool.has(txid)) this.seen.delete(txid);
    const fresh = [...mempool].filter((txid) => !this.seen.has(txid));

    const entered: T[] = [];
    const fetched: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < fresh.length) {
        const txid = fresh[next++];
        let hex: string;
        try {
          hex = await this.rpc.getRawTransactionHex(txid);
        } catch (error) {
          if (error instanceof RpcError && error.code === NOT_FOUND) continue;
          throw error;
        }
        fetched.push(txid);
        try {
          entered.push(this.codec.parseTransaction(hex));
        } catch {
          // Not a transaction this parser understands; skipping it beats stalling the mempool forever.
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, fresh.length) }, worker));
    // Marked only once every fetch succeeded: after a failed poll, the next one fetches them all again.
    for (const txid of fetched) this.seen.add(txid);
    return { entered, mempool };
  }

  /** Makes the next poll fetch the transaction again if it is (back) in the mempool. */
  forget(txid: string): void {
    this.seen.delete(txid);
  }
}
