// The devnet's Elements regtest node: starts (or reopens) the node in <dataDir>/elements and serves elementsd's
// JSON-RPC. No wallets yet: they come later from the Elements wallet primitives (src/devnet/elements/wallet/).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { NodeStore } from '../bitcoin/store.ts';
import { ElementsNode } from './node.ts';
import { startElementsRpcServer } from './rpc/server.ts';

export { ElementsNode } from './node.ts';

export interface ElementsDevnetOptions {
  dataDir: string; // chain + mempool persist in <dataDir>/elements/node.sqlite
  host?: string; // default 127.0.0.1
  port?: number; // default 18884 (elementsregtest's RPC port); 0 = ephemeral (tests)
  rpcUser?: string;
  rpcPassword?: string; // defaults: generated once and persisted in the store
}

export interface ElementsDevnet {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  node: ElementsNode;
  close(): Promise<void>;
}

function credentials(store: NodeStore, options: ElementsDevnetOptions): { user: string; password: string } {
  const user = options.rpcUser ?? store.getMeta('rpcuser') ?? 'ferry';
  const password = options.rpcPassword ?? store.getMeta('rpcpassword') ?? randomBytes(24).toString('hex');
  if (store.getMeta('rpcuser') === undefined) store.setMeta('rpcuser', user);
  if (store.getMeta('rpcpassword') === undefined) store.setMeta('rpcpassword', password);
  return { user, password };
}

export async function startElementsDevnet(options: ElementsDevnetOptions): Promise<ElementsDevnet> {
  const dir = join(options.dataDir, 'elements');
  mkdirSync(dir, { recursive: true });
  const store = new NodeStore(join(dir, 'node.sqlite'));
  let server: Server | undefined;
  let node: ElementsNode | undefined;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (server) {
      const stopping = server;
      await new Promise<void>((resolve) => {
        stopping.close(() => resolve());
        stopping.closeAllConnections();
      });
    }
    await node?.idle();
    store.close();
  };
  try {
    const { user, password } = credentials(store, options);
    node = new ElementsNode(store);
    await node.load();
    const started = await startElementsRpcServer({ node, user, password, host: options.host ?? '127.0.0.1', port: options.port ?? 18884 });
    server = started.server;
    return { rpcUrl: started.url, rpcUser: user, rpcPassword: password, node, close };
  } catch (error) {
    await close();
    throw error;
  }
}
