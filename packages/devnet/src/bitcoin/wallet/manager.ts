// The Bitcoin node's wallets: the shared named-wallet manager (common/wallet-manager.ts) over Core-style
// wallets (wallet.ts).
import { NamedWallets } from '../../common/wallet-manager.ts';
import type { BitcoinNode } from '../node.ts';
import type { NodeStore } from '../store.ts';
import { Wallet } from './wallet.ts';

export class WalletManager extends NamedWallets<Wallet> {
  constructor(node: BitcoinNode, store: NodeStore, /** Where Core would keep wallet files; only used in error texts. */ walletDir: string) {
    super(store, walletDir, (name, seed) => new Wallet(name, seed, node, store));
  }
}
