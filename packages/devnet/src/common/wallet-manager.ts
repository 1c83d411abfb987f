// A devnet node's named wallets, for either chain: created once (seed in the node's store), loaded at start-up
// if they were loaded when the node stopped (Core's load_on_startup), loaded and unloaded on request.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { RpcFailure, RPC_WALLET_ALREADY_LOADED, RPC_WALLET_ERROR, RPC_WALLET_NOT_FOUND } from '../bitcoin/rpc/errors.ts';
import type { NodeStore } from '../bitcoin/store.ts';

/** What the manager needs of a chain's wallet. */
export interface ManagedWallet {
  readonly name: string;
  attach(): void;
  detach(): void;
}

export type WalletStore = Pick<NodeStore, 'wallets' | 'addWallet' | 'setWalletLoaded'>;

export class NamedWallets<W extends ManagedWallet> {
  private readonly loaded = new Map<string, W>();

  constructor(
    private readonly store: WalletStore,
    /** Where the node would keep wallet files; only used in error texts. */
    private readonly walletDir: string,
    /** Makes the chain's wallet object for a stored wallet. */
    private readonly make: (name: string, seed: Uint8Array) => W,
  ) {}

  /** Loads every wallet that was loaded when the node last stopped. */
  loadAtStartup(): void {
    for (const stored of this.store.wallets()) {
      if (stored.loaded) this.open(stored.name, stored.seed);
    }
  }

  private open(name: string, seed: Uint8Array): W {
    const wallet = this.make(name, seed);
    wallet.attach();
    this.loaded.set(name, wallet);
    return wallet;
  }

  get(name: string): W | undefined {
    return this.loaded.get(name);
  }

  names(): string[] {
    return [...this.loaded.keys()];
  }

  /** Every wallet this node has, loaded or not (listwalletdir). */
  allNames(): string[] {
    return this.store.wallets().map((w) => w.name);
  }

  exists(name: string): boolean {
    return this.store.wallets().some((w) => w.name === name);
  }

  create(name: string): W {
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

  load(name: string): W {
    if (this.loaded.has(name)) {
      throw new RpcFailure(RPC_WALLET_ALREADY_LOADED, `Wallet "${name}" is already loaded.`);
    }
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
