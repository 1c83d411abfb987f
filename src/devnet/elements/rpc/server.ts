// The Elements node's JSON-RPC server: elementsd's method table on the Bitcoin node's generic HTTP layer.
import type { Server } from 'node:http';
import { startJsonRpcServer } from '../../bitcoin/rpc/http.ts';
import type { ElementsNode } from '../node.ts';
import { blockchainMethods } from './blockchain.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';
import { miningMethods } from './mining.ts';
import { rawTransactionMethods } from './rawtransactions.ts';

const methods: ElementsMethodTable = { ...blockchainMethods, ...rawTransactionMethods, ...miningMethods };

export interface ElementsRpcServerOptions {
  node: ElementsNode;
  user: string;
  password: string;
  host: string;
  port: number;
}

export function startElementsRpcServer(options: ElementsRpcServerOptions): Promise<{ server: Server; url: string }> {
  return startJsonRpcServer<ElementsCallContext>({
    methods,
    context: () => ({ node: options.node }),
    user: options.user,
    password: options.password,
    host: options.host,
    port: options.port,
  });
}
