// The Elements node's JSON-RPC server: elementsd's method table on the shared node RPC server
// (common/wallet-rpc.ts), which resolves the wallet (URI path, or the only loaded wallet) before any wallet method runs.
import type { Server } from 'node:http';
import { startNodeRpcServer, walletManagementMethods, type NodeRpcServerOptions } from '../../common/wallet-rpc.ts';
import type { ElementsNode } from '../node.ts';
import type { ElementsWalletManager } from '../wallet/manager.ts';
import type { NodeWallet } from '../wallet/node-wallet.ts';
import { assetMethods } from './assets.ts';
import { blockchainMethods } from './blockchain.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';
import { miningMethods } from './mining.ts';
import { networkMethods } from './network.ts';
import { rawTransactionMethods } from './rawtransactions.ts';
import { signMethods } from './sign.ts';
import { transactionMethods } from './transaction.ts';
import { unspentMethods } from './unspent.ts';
import { walletMethods } from './wallet.ts';

const methods: ElementsMethodTable = {
  ...blockchainMethods, ...rawTransactionMethods, ...miningMethods,
  ...walletManagementMethods<NodeWallet, ElementsCallContext>({ plainWalletsOnly: 'This devnet only creates plain wallets with private keys', warning: true }),
  ...walletMethods, ...transactionMethods, ...unspentMethods, ...assetMethods, ...signMethods, ...networkMethods,
};
const walletMethodNames = new Set([
  ...Object.keys(walletMethods), ...Object.keys(transactionMethods), ...Object.keys(unspentMethods), ...Object.keys(assetMethods), ...Object.keys(signMethods), 'unloadwallet',
]);

export type ElementsRpcServerOptions = NodeRpcServerOptions<ElementsNode, ElementsWalletManager>;

export function startElementsRpcServer(options: ElementsRpcServerOptions): Promise<{ server: Server; url: string }> {
  return startNodeRpcServer(options, methods, walletMethodNames, { face: 'elements-rpc', node: 'elements' });
}
