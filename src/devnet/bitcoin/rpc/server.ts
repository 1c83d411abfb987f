// The Bitcoin node's JSON-RPC server: Core's method table on the generic HTTP layer (http.ts), with Core's
// wallet resolution (URI path, or the only loaded wallet) before any wallet method runs.
import type { Server } from 'node:http';
import type { BitcoinNode } from '../node.ts';
import type { WalletManager } from '../wallet/manager.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { blockchainMethods } from './blockchain.ts';
import { RpcFailure, RPC_WALLET_NOT_FOUND, RPC_WALLET_NOT_SPECIFIED } from './errors.ts';
import { startJsonRpcServer } from './http.ts';
import { miningMethods } from './mining.ts';
import type { CallContext, MethodTable } from './params.ts';
import { rawTransactionMethods } from './rawtransactions.ts';
import { walletMethods } from './wallet.ts';

const methods: MethodTable = { ...blockchainMethods, ...rawTransactionMethods, ...miningMethods, ...walletMethods };
const walletMethodNames = new Set(Object.keys(walletMethods).filter((name) => !['createwallet', 'loadwallet', 'listwallets', 'listwalletdir'].includes(name)));

export interface RpcServerOptions {
  node: BitcoinNode;
  wallets: WalletManager;
  user: string;
  password: string;
  host: string;
  port: number;
}

function resolveWallet(wallets: WalletManager, uriWallet: string | undefined): Wallet {
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

export function startRpcServer(options: RpcServerOptions): Promise<{ server: Server; url: string }> {
  return startJsonRpcServer<CallContext>({
    methods,
    context: (uriWallet) => ({
      node: options.node,
      wallets: options.wallets,
      wallet: () => resolveWallet(options.wallets, uriWallet),
    }),
    // Wallet methods fail first on a wrong or missing wallet, as in Core.
    beforeRun: (method, args, ctx) => {
      if (walletMethodNames.has(method) && !(method === 'unloadwallet' && args[0] !== undefined)) ctx.wallet();
    },
    user: options.user,
    password: options.password,
    host: options.host,
    port: options.port,
  });
}
