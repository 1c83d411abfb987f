// The Elements node's named wallets: the shared named-wallet manager (common/wallet-manager.ts) over
// confidential node wallets (node-wallet.ts), for elementsd's createwallet/loadwallet/unloadwallet.
import type { NodeStore } from '../../bitcoin/store.ts';
import { NamedWallets } from '../../common/wallet-manager.ts';
import type { ElementsNode } from '../node.ts';
import type { Zkp } from './network.ts';
import { NodeWallet } from './node-wallet.ts';

export class ElementsWalletManager extends NamedWallets<NodeWallet> {
  constructor(
    node: ElementsNode,
    store: NodeStore,
    readonly zkp: Zkp,
    /** Where elementsd would keep wallet files; only used in error texts. */
    walletDir: string,
  ) {
    super(store, walletDir, (name, seed) => new NodeWallet(name, seed, zkp, node, store));
  }
}
