// One named wallet: the keys it has handed out, the coins paying to them (followed through blocks, the
// mempool and reorgs), and Core's view of them: trusted / untrusted_pending / immature.
import { toHex } from '../bytes.ts';
import type { BlockEntry } from '../chain.ts';
import { COINBASE_MATURITY } from '../consensus.ts';
import type { BitcoinNode } from '../node.ts';
import { scriptToAddress } from '../script.ts';
import type { NodeStore, StoredKey } from '../store.ts';
import { isCoinbase, outpointKey, type Tx } from '../tx.ts';
import { WalletKeys, outputScript, type AddressKind } from './keys.ts';

export interface WalletKey extends StoredKey {
  kind: AddressKind;
  address: string;
}

export interface WalletCoin {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  key: WalletKey;
}

export type CoinState = 'trusted' | 'untrusted' | 'immature';

export interface CoinView extends WalletCoin {
  confirmations: number;
  coinbase: boolean;
  state: CoinState;
}

export interface Balances {
  trusted: bigint;
  untrustedPending: bigint;
  immature: bigint;
}

export class Wallet {
  readonly keys: WalletKeys;
  private readonly byScript = new Map<string, WalletKey>();
  private readonly nextIndex = new Map<string, number>();
  /** Outpoints paying to this wallet that may still be unspent; the node says which really are. */
  private readonly coins = new Map<string, WalletCoin>();
  readonly txids = new Set<string>();
  private trustCache = new Map<string, boolean>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    readonly name: string,
    seed: Uint8Array,
    private readonly node: BitcoinNode,
    private readonly store: NodeStore,
  ) {
    this.keys = new WalletKeys(seed);
    for (const stored of store.walletKeys(name)) this.remember(stored);
  }

  private remember(stored: StoredKey): WalletKey {
    const key: WalletKey = { ...stored, kind: stored.kind as AddressKind, address: scriptToAddress(stored.script)! };
    this.byScript.set(toHex(stored.script), key);
    const counter = `${key.kind}/${key.branch}`;
    this.nextIndex.set(counter, Math.max(this.nextIndex.get(counter) ?? 0, key.index + 1));
    return key;
  }

  /** Follows the node from now on, after catching up with its current chain and mempool. */
  attach(): void {
    const onConnect = (entry: BlockEntry) => this.blockConnected(entry);
    const onDisconnect = (entry: BlockEntry) => this.blockDisconnected(entry);
    const onTx = (tx: Tx) => this.seeTransaction(tx);
    const onReset = () => this.trustCache.clear();
    this.node.on('blockConnected', onConnect);
    this.node.on('blockDisconnected', onDisconnect);
    this.node.on('transaction', onTx);
    this.node.on('mempoolReset', onReset);
    this.unsubscribe.push(
      () => this.node.off('blockConnected', onConnect),
      () => this.node.off('blockDisconnected', onDisconnect),
      () => this.node.off('transaction', onTx),
      () => this.node.off('mempoolReset', onReset),
    );
    this.rescan();
  }

  detach(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  rescan(): void {
    this.coins.clear();
    this.txids.clear();
    this.trustCache.clear();
    for (const entry of this.node.chain.active) this.blockConnected(entry);
    for (const entry of this.node.mempool.entries.values()) this.seeTransaction(entry.tx);
  }

  private seeTransaction(tx: Tx): void {
    for (const input of tx.inputs) {
      if (this.coins.has(outpointKey(input.prevTxid, input.vout))) this.txids.add(tx.txid);
    }
    tx.outputs.forEach((output, vout) => {
      const key = this.byScript.get(toHex(output.script));
      if (!key) return;
      this.coins.set(outpointKey(tx.txid, vout), { txid: tx.txid, vout, value: output.value, script: output.script, key });
      this.txids.add(tx.txid);
    });
  }

  private blockConnected(entry: BlockEntry): void {
    this.trustCache.clear();
    for (const tx of entry.block.txs) {
      this.seeTransaction(tx);
      if (isCoinbase(tx)) continue;
      // Spent in the active chain: gone unless this block is disconnected, which brings them back.
      for (const input of tx.inputs) this.coins.delete(outpointKey(input.prevTxid, input.vout));
    }
  }

  private blockDisconnected(entry: BlockEntry): void {
    this.trustCache.clear();
    entry.block.txs.forEach((tx, t) => {
      if (t === 0) return;
      tx.inputs.forEach((input, i) => {
        const coin = entry.undo?.[t]?.[i];
        const key = coin && this.byScript.get(toHex(coin.script));
        if (coin && key) {
          this.coins.set(outpointKey(input.prevTxid, input.vout), { txid: input.prevTxid, vout: input.vout, value: coin.value, script: coin.script, key });
        }
      });
    });
  }

  // ---- keys ----

  newKey(kind: AddressKind, branch: 0 | 1, label = ''): WalletKey {
    const counter = `${kind}/${branch}`;
    const index = this.nextIndex.get(counter) ?? 0;
    const { publicKey } = this.keys.derive(kind, branch, index);
    const stored: StoredKey = { kind, branch, index, script: outputScript(kind, publicKey), publicKey, label };
    this.store.addWalletKey(this.name, stored);
    return this.remember(stored);
  }

  keyFor(script: Uint8Array): WalletKey | undefined {
    return this.byScript.get(toHex(script));
  }

  // ---- coins ----

  /**
   * Core's CachedTxIsTrusted for a mempool tx: every input is ours and comes from a trusted tx. Walks the
   * unconfirmed ancestry without recursion (chains of change can be thousands long); memoised until the
   * chain changes.
   */
  private trusted(txid: string): boolean {
    const stack: [string, boolean][] = [[txid, false]];
    while (stack.length > 0) {
      const [id, parentsDone] = stack.pop()!;
      if (this.trustCache.has(id)) continue;
      const entry = this.node.mempool.get(id);
      if (!entry) continue; // confirmed: trusted
      if (!parentsDone) {
        stack.push([id, true]);
        for (const parent of entry.parents) if (!this.trustCache.has(parent)) stack.push([parent, false]);
        continue;
      }
      const ok = entry.tx.inputs.every(
        (input, i) => this.byScript.has(toHex(entry.spentCoins[i].script)) && this.trustCache.get(input.prevTxid) !== false,
      );
      this.trustCache.set(id, ok);
    }
    return this.trustCache.get(txid) ?? true;
  }

  /** Every unspent coin of this wallet (not spent in the mempool either), with its state. */
  unspent(): CoinView[] {
    const out: CoinView[] = [];
    for (const coin of this.coins.values()) {
      const found = this.node.unspent(coin.txid, coin.vout, true);
      if (!found) continue;
      const { confirmations } = found;
      let state: CoinState;
      if (found.coin.coinbase && confirmations < COINBASE_MATURITY + 1) state = 'immature';
      else if (confirmations > 0) state = 'trusted';
      else state = this.trusted(coin.txid) ? 'trusted' : 'untrusted';
      out.push({ ...coin, confirmations, coinbase: found.coin.coinbase, state });
    }
    return out;
  }

  balances(): Balances {
    const balances: Balances = { trusted: 0n, untrustedPending: 0n, immature: 0n };
    for (const coin of this.unspent()) {
      if (coin.state === 'trusted') balances.trusted += coin.value;
      else if (coin.state === 'untrusted') balances.untrustedPending += coin.value;
      else balances.immature += coin.value;
    }
    return balances;
  }

  keyCount(branch: 0 | 1): number {
    let count = 0;
    for (const [counter, next] of this.nextIndex) if (counter.endsWith(`/${branch}`)) count += next;
    return count;
  }
}
