// The Bitcoin node's JSON-RPC server: Core's method table on the shared node RPC server (common/wallet-rpc.ts),
// which resolves the wallet (URI path, or the only loaded wallet) before any wallet method runs.
import type { Server } from 'node:http';
import { startNodeRpcServer, walletManagementMethods, type NodeRpcServerOptions } from '../../common/wallet-rpc.ts';
import type { BitcoinNode } from '../node.ts';
import type { WalletManager } from '../wallet/manager.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { blockchainMethods } from './blockchain.ts';
import { miningMethods } from './mining.ts';
import type { CallContext, MethodTable } from './params.ts';
import { rawTransactionMethods } from './rawtransactions.ts';
import { walletMethods } from './wallet.ts';

const methods: MethodTable = {
  ...blockchainMethods, ...rawTransactionMethods, ...miningMethods,
  ...walletManagementMethods<Wallet, CallContext>({ plainWalletsOnly: 'This devnet only creates plain descriptor wallets with private keys', warning: false }),
  ...walletMethods,
};
const walletMethodNames = new Set([...Object.keys(walletMethods), 'unloadwallet']);

export type RpcServerOptions = NodeRpcServerOptions<BitcoinNode, WalletManager>;

export function startRpcServer(options: RpcServerOptions): Promise<{ server: Server; url: string }> {
  return startNodeRpcServer(options, methods, walletMethodNames, { face: 'bitcoin-rpc', node: 'bitcoin' });
}
