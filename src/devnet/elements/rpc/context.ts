// What every Elements RPC method runs with, and the method table type over it.
import type { Method } from '../../bitcoin/rpc/params.ts';
import type { ElementsNode } from '../node.ts';
import type { ElementsWalletManager } from '../wallet/manager.ts';
import type { NodeWallet } from '../wallet/node-wallet.ts';

export interface ElementsCallContext {
  node: ElementsNode;
  wallets: ElementsWalletManager;
  /** The wallet this call is for, resolved as elementsd does (URI path, or the only loaded wallet). */
  wallet(): NodeWallet;
}

export type ElementsMethodTable = Record<string, Method<ElementsCallContext>>;
