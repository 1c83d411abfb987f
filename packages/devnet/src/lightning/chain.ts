// What the Lightning network needs from the chain it lives on: the height (HTLC expiries are heights), new
// blocks (to expire held HTLCs), and a funding transaction per channel. The devnet wires this to its
// Bitcoin node; `ClockChain` is the network's own block clock for running it on its own.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export interface ChannelFunding {
  txid: string;
  vout: number;
  blockHeight: number; // where the funding transaction confirmed: the short channel id is built from it
  txIndex: number;
}

export interface LightningChain {
  height(): Promise<number>;
  onBlock(listener: (height: number) => void): () => void;
  // Pays capacitySat to the channel's 2-of-2 output (keys are the two nodes' identity keys, hex) and confirms it.
  fundChannel(request: { capacitySat: number; openerKey: string; peerKey: string }): Promise<ChannelFunding>;
}

// A block clock without a ledger: heights advance when `mine` is called, and a channel's funding outpoint is
// a deterministic identifier (not a spendable transaction). Used when the Lightning devnet runs without the
// Bitcoin devnet. Given a file, it keeps its height there so a restart continues where it stopped.
export class ClockChain implements LightningChain {
  private tip: number;
  private readonly listeners = new Set<(height: number) => void>();
  private fundings = 0;

  constructor(
    startHeight = 100,
    private readonly file?: string,
  ) {
    this.tip = startHeight;
    if (file !== undefined && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { height: number; fundings: number };
      this.tip = saved.height;
      this.fundings = saved.fundings;
    }
  }

  private persist(): void {
    if (this.file === undefined) return;
    writeFileSync(this.file + '.tmp', JSON.stringify({ height: this.tip, fundings: this.fundings }));
    renameSync(this.file + '.tmp', this.file);
  }

  async height(): Promise<number> {
    return this.tip;
  }

  onBlock(listener: (height: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  mine(blocks = 1): number {
    for (let i = 0; i < blocks; i++) {
      this.tip += 1;
      this.persist();
      for (const listener of this.listeners) listener(this.tip);
    }
    return this.tip;
  }

  async fundChannel(request: { capacitySat: number; openerKey: string; peerKey: string }): Promise<ChannelFunding> {
    this.fundings += 1;
    const txid = createHash('sha256')
      .update(`${request.openerKey}:${request.peerKey}:${request.capacitySat}:${this.tip}:${this.fundings}`)
      .digest('hex');
    const blockHeight = this.mine(1);
    return { txid, vout: 0, blockHeight, txIndex: 1 };
  }
}
