// The Elements node's named wallets: created once (seed in the node's store), loaded at start-up if they were
// loaded when the node stopped, loaded and unloaded on request (elementsd's createwallet/loadwallet/unloadwallet).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { RpcFailure, RPC_WALLET_ALREADY_LOADED, RPC_WALLET_ERROR, RPC_WALLET_NOT_FOUND } from '../../bitcoin/rpc/errors.ts';
import type { NodeStore } from '../../bitcoin/store.ts';
import type { ElementsNode } from '../node.ts';
import type { Zkp } from './network.ts';
import { NodeWallet } from './node-wallet.ts';

export class ElementsWalletManager {
  private readonly loaded = new Map<string, NodeWallet>();

  constructor(
    private readonly node: ElementsNode,
    private readonly store: NodeStore,
    readonly zkp: Zkp,
    /** Where elementsd would keep wallet files; only used in error texts. */
    private readonly walletDir: string,
  ) {}

  loadAtStartup(): void {
    for (const stored of this.store.wallets()) if (stored.loaded) this.open(stored.name, stored.seed);
  }

  private open(name: string, seed: Uint8Array): NodeWallet {
    const wallet = new NodeWallet(name, seed, this.zkp, this.node, this.store);
    wallet.attach();
    this.loaded.set(name, wallet);
    return wallet;
  }

  get(name: string): NodeWallet | undefined {
    return this.loaded.get(name);
  }

  names(): string[] {
    return [...this.loaded.keys()];
  }

  allNames(): string[] {
    return this.store.wallets().map((w) => w.name);
  }

  exists(name: string): boolean {
    return this.store.wallets().some((w) => w.name === name);
  }

  create(name: string): NodeWallet {
    if (this.exists(name)) {
      throw new RpcFailure(
        RPC_WALLET_ERROR,
        `Wallet file verification failed. Failed to create database path '${join(this.walletDir, name)}'. Database already exists.`,
      );
    }
    const seed = randomBytes(32);
    this.store.addWallet(name, seed);
    return this.open(name, seed);
  }

  load(name: string): NodeWallet {
    if (this.loaded.has(name)) throw new RpcFailure(RPC_WALLET_ALREADY_LOADED, `Wallet "${name}" is already loaded.`);
    const stored = this.store.wallets().find((w) => w.name === name);
    if (!stored) {
      throw new RpcFailure(
        RPC_WALLET_NOT_FOUND,
        `Wallet file verification failed. Failed to load database path '${join(this.walletDir, name)}'. Path does not exist.`,
      );
    }
    this.store.setWalletLoaded(name, true);
    return this.open(name, stored.seed);
  }

  unload(name: string): void {
    const wallet = this.loaded.get(name);
    if (!wallet) throw new RpcFailure(RPC_WALLET_NOT_FOUND, 'Requested wallet does not exist or is not loaded');
    wallet.detach();
    this.loaded.delete(name);
    this.store.setWalletLoaded(name, false);
  }

  close(): void {
    for (const wallet of this.loaded.values()) wallet.detach();
    this.loaded.clear();
  }
}
