// What every Elements RPC method runs with, and the method table type over it.
import type { Method } from '../../bitcoin/rpc/params.ts';
import type { NodeCallContext } from '../../common/wallet-rpc.ts';
import type { ElementsNode } from '../node.ts';
import type { ElementsWalletManager } from '../wallet/manager.ts';
import type { NodeWallet } from '../wallet/node-wallet.ts';

export type ElementsCallContext = NodeCallContext<ElementsNode, ElementsWalletManager, NodeWallet>;

export type ElementsMethodTable = Record<string, Method<ElementsCallContext>>;
