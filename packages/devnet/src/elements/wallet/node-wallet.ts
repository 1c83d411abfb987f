// One named wallet of the Elements node: its issued addresses (persisted), the coins paying to them, each opened
// with the script's blinding key, followed through blocks, the mempool and reorgs; elementsd's balance states.
import type { TxOutput } from 'liquidjs-lib';
import { COINBASE_MATURITY } from '../../bitcoin/consensus.ts';
import type { NodeStore } from '../../bitcoin/store.ts';
import type { ElementsBlockEntry } from '../chain.ts';
import type { ElementsNode } from '../node.ts';
import { outpointKey, prevout, type ElementsTx } from '../tx.ts';
import type { ElementsAddressKind } from './keys.ts';
import type { Zkp } from './network.ts';
import { UnblindError, unblindOutput, type Unblinded } from '@ferry/sdk/chains/liquid/unblind.js';
import { ElementsWallet, type WalletAddress } from './wallet.ts';

export interface NodeWalletCoin {
  txid: string;
  vout: number;
  output: TxOutput;
  address: WalletAddress;
  unblinded: Unblinded;
}

export type CoinState = 'trusted' | 'untrusted' | 'immature';

export interface CoinView extends NodeWalletCoin {
  confirmations: number;
  coinbase: boolean;
  state: CoinState;
}

/** Per asset id (elementsd's display order), sat. */
type AssetBalances = Map<string, bigint>;

export class NodeWallet {
  readonly inner: ElementsWallet;
  private readonly coins = new Map<string, NodeWalletCoin>();
  /** Every output ever seen paying us, spent or not (gettransaction's debits). */
  private readonly history = new Map<string, NodeWalletCoin>();
  readonly txids = new Set<string>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    readonly name: string,
    seed: Uint8Array,
    readonly zkp: Zkp,
    private readonly node: ElementsNode,
    private readonly store: NodeStore,
  ) {
    this.inner = new ElementsWallet(seed, zkp);
    // Keys were issued in index order per kind and branch: issuing them again gives the same ones.
    for (const stored of store.walletKeys(name)) this.inner.newAddress(stored.kind as ElementsAddressKind, stored.branch === 1);
  }

  /** getnewaddress / getrawchangeaddress: a new key, persisted. */
  newAddress(kind: ElementsAddressKind = 'bech32', change = false): WalletAddress {
    const address = this.inner.newAddress(kind, change);
    this.store.addWalletKey(this.name, {
      kind, branch: address.branch, index: address.index, script: address.script, publicKey: address.key.publicKey, label: '',
    });
    return address;
  }

  attach(): void {
    const onConnect = (entry: ElementsBlockEntry) => this.blockConnected(entry);
    const onDisconnect = (entry: ElementsBlockEntry) => this.blockDisconnected(entry);
    const onTx = (etx: ElementsTx) => this.see(etx);
    this.node.on('blockConnected', onConnect);
    this.node.on('blockDisconnected', onDisconnect);
    this.node.on('transaction', onTx);
    this.unsubscribe.push(
      () => this.node.off('blockConnected', onConnect),
      () => this.node.off('blockDisconnected', onDisconnect),
      () => this.node.off('transaction', onTx),
    );
    for (const entry of this.node.chain.active) this.blockConnected(entry);
    for (const entry of this.node.mempool.entries.values()) this.see(entry.tx);
  }

  detach(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** A coin if the output pays one of our scripts and opens with its blinding key (else not ours, as in elementsd). */
  private open(txid: string, vout: number, output: TxOutput): NodeWalletCoin | undefined {
    const address = this.inner.byOutputScript(new Uint8Array(output.script));
    if (!address) return undefined;
    try {
      return { txid, vout, output, address, unblinded: unblindOutput(this.zkp, output, address.blinding.privateKey) };
    } catch (error) {
      if (error instanceof UnblindError) return undefined;
      throw error;
    }
  }

  private see(etx: ElementsTx): void {
    etx.tx.ins.forEach((_, i) => {
      const spent = prevout(etx.tx, i);
      if (this.coins.has(outpointKey(spent.txid, spent.vout))) this.txids.add(etx.txid);
    });
    etx.tx.outs.forEach((output, vout) => {
      const coin = this.open(etx.txid, vout, output);
      if (!coin) return;
      this.coins.set(outpointKey(etx.txid, vout), coin);
      this.history.set(outpointKey(etx.txid, vout), coin);
      this.txids.add(etx.txid);
    });
  }

  private blockConnected(entry: ElementsBlockEntry): void {
    entry.block.txs.forEach((etx, t) => {
      this.see(etx);
      if (t === 0) return;
      etx.tx.ins.forEach((_, i) => {
        const spent = prevout(etx.tx, i);
        this.coins.delete(outpointKey(spent.txid, spent.vout));
      });
    });
  }

  /** The coins the disconnected block spent are unspent again (from its undo data). */
  private blockDisconnected(entry: ElementsBlockEntry): void {
    entry.block.txs.forEach((etx, t) => {
      if (t === 0) return;
      etx.tx.ins.forEach((_, i) => {
        const spent = prevout(etx.tx, i);
        const undone = entry.undo?.[t]?.[i];
        const coin = undone && this.open(spent.txid, spent.vout, undone.output);
        if (coin) this.coins.set(outpointKey(spent.txid, spent.vout), coin);
      });
    });
  }

  /** elementsd's CachedTxIsTrusted for a mempool transaction: every input ours, from trusted transactions. */
  isTrusted(txid: string, seen = new Set<string>()): boolean {
    const entry = this.node.mempool.get(txid);
    if (!entry) return true;
    if (seen.has(txid)) return false;
    seen.add(txid);
    return entry.tx.tx.ins.every((_, i) => {
      if (!this.inner.byOutputScript(new Uint8Array(entry.spentCoins[i].output.script))) return false;
      return this.isTrusted(prevout(entry.tx.tx, i).txid, seen);
    });
  }

  /** Every unspent coin (not spent in the mempool either) with its state. */
  unspent(): CoinView[] {
    const out: CoinView[] = [];
    for (const coin of this.coins.values()) {
      const found = this.node.unspent(coin.txid, coin.vout, true);
      if (!found) continue;
      const { confirmations } = found;
      const coinbase = found.coin.coinbase;
      let state: CoinState;
      if (coinbase && confirmations < COINBASE_MATURITY + 1) state = 'immature';
      else if (confirmations > 0) state = 'trusted';
      else state = this.isTrusted(coin.txid) ? 'trusted' : 'untrusted';
      out.push({ ...coin, confirmations, coinbase, state });
    }
    return out;
  }

  balances(): Record<CoinState, AssetBalances> {
    const result: Record<CoinState, AssetBalances> = { trusted: new Map(), untrusted: new Map(), immature: new Map() };
    for (const coin of this.unspent()) {
      const map = result[coin.state];
      map.set(coin.unblinded.asset, (map.get(coin.unblinded.asset) ?? 0n) + coin.unblinded.value);
    }
    return result;
  }

  /** One of our outputs, spent or not, if this wallet has seen it. */
  ownOutput(txid: string, vout: number): NodeWalletCoin | undefined {
    return this.history.get(outpointKey(txid, vout));
  }
}
