// The block tree and the active chain: UTXO set, per-block undo data (the coins each block spent, so a
// block can be disconnected exactly), median-time-past, chain work, and a txid index (txindex=1).
import { blockWork, type Block } from './block.ts';
import { medianOf } from './consensus.ts';
import { isCoinbase, outpointKey } from './tx.ts';

export interface Coin {
  value: bigint;
  script: Uint8Array;
  height: number; // block height; for mempool coins: tip height + 1
  coinbase: boolean;
}

export type BlockStatus = 'active' | 'invalid';

export interface BlockEntry {
  block: Block;
  hash: string;
  height: number;
  medianTime: number; // BIP113 median time of the 11 blocks ending at this one
  chainWork: bigint;
  status: BlockStatus;
  /** Coins spent by each transaction (index 0, the coinbase, spends none). */
  undo?: Coin[][];
}

export class ChainError extends Error {}

export class ChainState {
  readonly blocks = new Map<string, BlockEntry>();
  readonly active: BlockEntry[] = [];
  readonly utxos = new Map<string, Coin>();
  readonly txIndex = new Map<string, { entry: BlockEntry; index: number }>();

  constructor(genesis: Block) {
    const entry: BlockEntry = {
      block: genesis,
      hash: genesis.hash,
      height: 0,
      medianTime: genesis.header.time,
      chainWork: blockWork(genesis.header.bits),
      status: 'active',
      undo: [[]],
    };
    this.blocks.set(entry.hash, entry);
    this.active.push(entry);
    // As in Core, the genesis coinbase is neither in the UTXO set nor retrievable as a transaction.
  }

  get tip(): BlockEntry {
    return this.active[this.active.length - 1];
  }

  get height(): number {
    return this.active.length - 1;
  }

  /** BIP113 median of the 11 block times ending at `height`. */
  private medianTimeEndingWith(time: number, height: number): number {
    const times = [time];
    for (let h = height - 1; h >= 0 && times.length < 11; h--) times.push(this.active[h].block.header.time);
    return medianOf(times);
  }

  medianTimeAt(height: number): number {
    return this.active[Math.max(0, Math.min(height, this.height))].medianTime;
  }

  /** Connects a block on top of the tip; its transactions were validated when they entered the mempool. */
  connect(block: Block): BlockEntry {
    if (block.header.prevHash !== this.tip.hash) throw new ChainError('block does not extend the tip');
    const height = this.height + 1;
    const spent = new Set<string>();
    const created = new Map<string, Coin>();
    const undo: Coin[][] = [];
    // Check every input first so a bad block leaves the state untouched.
    for (const tx of block.txs) {
      const coinbase = isCoinbase(tx);
      const txUndo: Coin[] = [];
      if (!coinbase) {
        for (const input of tx.inputs) {
          const key = outpointKey(input.prevTxid, input.vout);
          const coin = created.get(key) ?? this.utxos.get(key);
          if (!coin || spent.has(key)) throw new ChainError(`block spends missing or spent output ${key}`);
          spent.add(key);
          txUndo.push(coin);
        }
      }
      undo.push(txUndo);
      tx.outputs.forEach((output, vout) => {
        created.set(outpointKey(tx.txid, vout), { value: output.value, script: output.script, height, coinbase });
      });
    }
    for (const key of spent) {
      if (!this.utxos.delete(key)) created.delete(key);
    }
    for (const [key, coin] of created) {
      if (!isUnspendable(coin.script)) this.utxos.set(key, coin);
    }
    const entry: BlockEntry = {
      block,
      hash: block.hash,
      height,
      medianTime: this.medianTimeEndingWith(block.header.time, height),
      chainWork: this.tip.chainWork + blockWork(block.header.bits),
      status: 'active',
      undo,
    };
    this.blocks.set(entry.hash, entry);
    this.active.push(entry);
    block.txs.forEach((tx, index) => this.txIndex.set(tx.txid, { entry, index }));
    return entry;
  }

  /** Disconnects the tip, restoring the coins it spent from its undo data. */
  disconnectTip(): BlockEntry {
    const entry = this.tip;
    if (entry.height === 0) throw new ChainError('cannot disconnect the genesis block');
    const { txs } = entry.block;
    for (let t = txs.length - 1; t >= 0; t--) {
      const tx = txs[t];
      tx.outputs.forEach((_, vout) => this.utxos.delete(outpointKey(tx.txid, vout)));
      tx.inputs.forEach((input, i) => {
        if (t > 0) this.utxos.set(outpointKey(input.prevTxid, input.vout), entry.undo![t][i]);
      });
      const indexed = this.txIndex.get(tx.txid);
      if (indexed?.entry === entry) this.txIndex.delete(tx.txid);
    }
    this.active.pop();
    // The undo data stays with the entry: wallets read it to learn which of their coins came back.
    entry.status = 'invalid';
    return entry;
  }

  /** A block known but not on the active chain (invalidated, or loaded as such from disk). */
  addInvalid(block: Block, height: number): BlockEntry {
    const entry: BlockEntry = {
      block,
      hash: block.hash,
      height,
      medianTime: block.header.time,
      chainWork: blockWork(block.header.bits) * BigInt(height + 1),
      status: 'invalid',
    };
    this.blocks.set(entry.hash, entry);
    return entry;
  }

  isActive(entry: BlockEntry): boolean {
    return this.active[entry.height] === entry;
  }

  /** Fee paid by transaction `index` of an active block (undefined for the coinbase). */
  feeOf(entry: BlockEntry, index: number): bigint | undefined {
    if (index === 0 || !entry.undo || entry.status !== 'active') return undefined;
    const tx = entry.block.txs[index];
    let fee = 0n;
    for (const coin of entry.undo[index]) fee += coin.value;
    for (const output of tx.outputs) fee -= output.value;
    return fee;
  }
}

/** OP_RETURN outputs (and oversized scripts) never enter the UTXO set, as in Core. */
export const isUnspendable = (script: Uint8Array): boolean => (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
