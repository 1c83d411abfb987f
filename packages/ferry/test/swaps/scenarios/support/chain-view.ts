// What the scenarios read of either devnet chain through its Core-family JSON-RPC (chain.ts for Bitcoin,
// liquid-chain.ts for Elements): the tip, mining to an address no wallet owns (so no wallet balance moves by
// accident), confirmations, and which transactions spent an outpoint or paid a script, and in which block.
import type { CoreRpcClient, DecodedTransaction } from '@ferry/sdk/chains/core-rpc.js';

export interface Spend<T extends DecodedTransaction = DecodedTransaction> {
  txid: string;
  /** Witness stack of the spending input, hex. */
  witness: string[];
  /** Height of the block holding the spend; undefined while it is in the mempool. */
  height: number | undefined;
  tx: T;
}

/** Blocks scanned at once. */
const SCAN_BATCH = 50;

export class ChainView<T extends DecodedTransaction = DecodedTransaction> {
  constructor(
    readonly rpc: CoreRpcClient,
    private readonly burnAddress: string,
  ) {}

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  async mine(blocks = 1): Promise<number> {
    await this.rpc.generateToAddress(blocks, this.burnAddress);
    return this.height();
  }

  /** Mines until the tip is exactly `height` (no-op when it is already there or beyond). */
  async mineTo(height: number): Promise<number> {
    const tip = await this.height();
    return height > tip ? this.mine(height - tip) : tip;
  }

  async transaction(txid: string): Promise<T & { confirmations?: number }> {
    return (await this.rpc.getRawTransaction(txid)) as T & { confirmations?: number };
  }

  async confirmations(txid: string): Promise<number> {
    return (await this.transaction(txid)).confirmations ?? 0;
  }

  /** Every transaction in blocks fromHeight..tip and in the mempool that spends txid:vout. */
  async spendsOf(txid: string, vout: number, fromHeight: number): Promise<Spend<T>[]> {
    const spends: Spend<T>[] = [];
    await this.scan(fromHeight, (tx, height) => {
      const input = tx.vin.find((i) => i.txid === txid && i.vout === vout);
      if (input) spends.push({ txid: tx.txid, witness: input.txinwitness ?? [], height, tx });
    });
    return spends;
  }

  /** Every transaction in blocks fromHeight..tip and in the mempool with an output paying `script`. */
  async paymentsTo(script: Uint8Array, fromHeight: number): Promise<T[]> {
    const scriptHex = Buffer.from(script).toString('hex');
    const found: T[] = [];
    await this.scan(fromHeight, (tx) => {
      if (tx.vout.some((o) => o.scriptPubKey.hex === scriptHex)) found.push(tx);
    });
    return found;
  }

  /** Calls `visit` for each non-coinbase transaction of blocks fromHeight..tip, in order, then of the mempool. */
  private async scan(fromHeight: number, visit: (tx: T, height: number | undefined) => void): Promise<void> {
    const tip = await this.height();
    for (let start = fromHeight; start <= tip; start += SCAN_BATCH) {
      const heights = Array.from({ length: Math.min(SCAN_BATCH, tip - start + 1) }, (_, i) => start + i);
      const blocks = await Promise.all(heights.map((height) => this.blockTransactions(height)));
      blocks.forEach((txs, i) => txs.forEach((tx) => visit(tx, heights[i])));
    }
    for (const id of await this.rpc.getRawMempool()) visit(await this.transaction(id), undefined);
  }

  /** A block's transactions but its coinbase; a block of only a coinbase costs no decoding. */
  private async blockTransactions(height: number): Promise<T[]> {
    const hash = await this.rpc.getBlockHash(height);
    if ((await this.rpc.getBlock(hash)).tx.length === 1) return [];
    return ((await this.rpc.getBlockVerbose(hash)).tx as unknown as T[]).slice(1);
  }
}
