// The Elements block tree and active chain: a UTXO set keeping each output as written (explicit value and
// asset, or commitments and nonce), undo data per block, median-time-past and a txid index.
import type { TxOutput } from 'liquidjs-lib';
import { medianOf } from '../bitcoin/consensus.ts';
import type { ElementsBlock } from './block.ts';
import { isUnspendable, outpointKey, prevout, type ElementsTx } from './tx.ts';

export interface ElementsCoin {
  output: TxOutput;
  height: number; // block height; for mempool coins: tip height + 1
  coinbase: boolean;
}

export interface ElementsBlockEntry {
  block: ElementsBlock;
  hash: string;
  height: number;
  medianTime: number;
  status: 'active' | 'invalid';
  /** Coins spent by each transaction (the coinbase spends none). */
  undo?: ElementsCoin[][];
}

export class ChainError extends Error {}

export class ElementsChain {
  readonly blocks = new Map<string, ElementsBlockEntry>();
  readonly active: ElementsBlockEntry[] = [];
  readonly utxos = new Map<string, ElementsCoin>();
  readonly txIndex = new Map<string, { entry: ElementsBlockEntry; index: number }>();

  constructor(genesis: ElementsBlock) {
    const entry: ElementsBlockEntry = { block: genesis, hash: genesis.hash, height: 0, medianTime: genesis.header.time, status: 'active', undo: [[]] };
    this.blocks.set(entry.hash, entry);
    this.active.push(entry);
  }

  get tip(): ElementsBlockEntry {
    return this.active[this.active.length - 1];
  }

  get height(): number {
    return this.active.length - 1;
  }

  medianTimeAt(height: number): number {
    return this.active[Math.max(0, Math.min(height, this.height))].medianTime;
  }

  isActive(entry: ElementsBlockEntry): boolean {
    return this.active[entry.height] === entry;
  }

  /** Connects a block on the tip; its transactions were verified when they entered the mempool. */
  connect(block: ElementsBlock): ElementsBlockEntry {
    if (block.header.prevHash !== this.tip.hash) throw new ChainError('block does not extend the tip');
    const height = this.height + 1;
    const spent = new Set<string>();
    const created = new Map<string, ElementsCoin>();
    const undo: ElementsCoin[][] = [];
    block.txs.forEach((etx, t) => {
      const coinbase = t === 0;
      const txUndo: ElementsCoin[] = [];
      if (!coinbase) {
        etx.tx.ins.forEach((_, i) => {
          const { txid, vout } = prevout(etx.tx, i);
          const key = outpointKey(txid, vout);
          const coin = created.get(key) ?? this.utxos.get(key);
          if (!coin || spent.has(key)) throw new ChainError(`block spends missing or spent output ${key}`);
          spent.add(key);
          txUndo.push(coin);
        });
      }
      undo.push(txUndo);
      etx.tx.outs.forEach((output, vout) => {
        if (!isUnspendable(output)) created.set(outpointKey(etx.txid, vout), { output, height, coinbase });
      });
    });
    for (const key of spent) if (!this.utxos.delete(key)) created.delete(key);
    for (const [key, coin] of created) this.utxos.set(key, coin);
    const times = [block.header.time];
    for (let h = height - 1; h >= 0 && times.length < 11; h--) times.push(this.active[h].block.header.time);
    const entry: ElementsBlockEntry = { block, hash: block.hash, height, medianTime: medianOf(times), status: 'active', undo };
    this.blocks.set(entry.hash, entry);
    this.active.push(entry);
    block.txs.forEach((tx, index) => this.txIndex.set(tx.txid, { entry, index }));
    return entry;
  }

  /** Disconnects the tip, restoring the coins it spent. */
  disconnectTip(): ElementsBlockEntry {
    const entry = this.tip;
    if (entry.height === 0) throw new ChainError('cannot disconnect the genesis block');
    const txs: ElementsTx[] = entry.block.txs;
    for (let t = txs.length - 1; t >= 0; t--) {
      const etx = txs[t];
      etx.tx.outs.forEach((_, vout) => this.utxos.delete(outpointKey(etx.txid, vout)));
      if (t > 0) {
        etx.tx.ins.forEach((_, i) => {
          const { txid, vout } = prevout(etx.tx, i);
          this.utxos.set(outpointKey(txid, vout), entry.undo![t][i]);
        });
      }
      if (this.txIndex.get(etx.txid)?.entry === entry) this.txIndex.delete(etx.txid);
    }
    this.active.pop();
    entry.status = 'invalid';
    return entry;
  }

  /** A block known but not on the active chain (invalidated, or loaded as such). */
  addInvalid(block: ElementsBlock, height: number): void {
    this.blocks.set(block.hash, { block, hash: block.hash, height, medianTime: block.header.time, status: 'invalid' });
  }
}
