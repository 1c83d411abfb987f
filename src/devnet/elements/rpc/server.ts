// The Elements node's JSON-RPC server: elementsd's method table on the Bitcoin node's generic HTTP layer, with
// elementsd's wallet resolution (URI path, or the only loaded wallet) before any wallet method runs.
import type { Server } from 'node:http';
import { RpcFailure, RPC_WALLET_NOT_FOUND, RPC_WALLET_NOT_SPECIFIED } from '../../bitcoin/rpc/errors.ts';
import { startJsonRpcServer } from '../../bitcoin/rpc/http.ts';
import type { ElementsNode } from '../node.ts';
import type { ElementsWalletManager } from '../wallet/manager.ts';
import type { NodeWallet } from '../wallet/node-wallet.ts';
import { blockchainMethods } from './blockchain.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';
import { miningMethods } from './mining.ts';
import { rawTransactionMethods } from './rawtransactions.ts';
import { transactionMethods } from './transaction.ts';
import { unspentMethods } from './unspent.ts';
import { walletMethods } from './wallet.ts';
import { walletManagementMethods } from './wallets.ts';

const methods: ElementsMethodTable = {
  ...blockchainMethods, ...rawTransactionMethods, ...miningMethods, ...walletManagementMethods, ...walletMethods,
  ...transactionMethods, ...unspentMethods,
};
const walletMethodNames = new Set([...Object.keys(walletMethods), ...Object.keys(transactionMethods), ...Object.keys(unspentMethods), 'unloadwallet']);

export interface ElementsRpcServerOptions {
  node: ElementsNode;
  wallets: ElementsWalletManager;
  user: string;
  password: string;
  host: string;
  port: number;
}

function resolveWallet(wallets: ElementsWalletManager, uriWallet: string | undefined): NodeWallet {
  if (uriWallet !== undefined) {
    const wallet = wallets.get(uriWallet);
    if (!wallet) throw new RpcFailure(RPC_WALLET_NOT_FOUND, 'Requested wallet does not exist or is not loaded');
    return wallet;
  }
  const names = wallets.names();
  if (names.length === 1) return wallets.get(names[0])!;
  if (names.length === 0) {
    throw new RpcFailure(
      RPC_WALLET_NOT_FOUND,
      'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)',
    );
  }
  throw new RpcFailure(RPC_WALLET_NOT_SPECIFIED, 'Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).');
}

export function startElementsRpcServer(options: ElementsRpcServerOptions): Promise<{ server: Server; url: string }> {
  return startJsonRpcServer<ElementsCallContext>({
    methods,
    context: (uriWallet) => ({
      node: options.node,
      wallets: options.wallets,
      wallet: () => resolveWallet(options.wallets, uriWallet),
    }),
    beforeRun: (method, args, ctx) => {
      if (walletMethodNames.has(method) && !(method === 'unloadwallet' && args[0] !== undefined)) ctx.wallet();
    },
    user: options.user,
    password: options.password,
    host: options.host,
    port: options.port,
  });
}
