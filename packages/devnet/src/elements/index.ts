// The devnet's Elements regtest node: starts (or reopens) the node in <dataDir>/elements, funds the operator and
// user wallets on first start, and serves elementsd's JSON-RPC (chain and wallet methods).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { stopServer } from '../common/stop-server.ts';
import { join } from 'node:path';
import { concat, sha256 } from '../bitcoin/bytes.ts';
import { NodeStore } from '../bitcoin/store.ts';
import { ElementsNode } from './node.ts';
import { startElementsRpcServer } from './rpc/server.ts';
import { ElementsWalletManager } from './wallet/manager.ts';
import { loadZkp } from './wallet/network.ts';

export { ElementsNode } from './node.ts';

export interface ElementsDevnetOptions {
  dataDir: string; // chain + mempool persist in <dataDir>/elements/node.sqlite
  host?: string; // default 127.0.0.1
  port?: number; // default 18884 (elementsregtest's RPC port); 0 = ephemeral (tests)
  rpcUser?: string;
  rpcPassword?: string; // defaults: generated once and persisted in the store
  blockIntervalMs?: number; // mine a block on a timer; 0/undefined = only on demand
  fund?: boolean; // default true: create wallets "operator" and "user" with 50 L-BTC of mature coins each
  fullRbf?: boolean; // default false: conflicting transactions are refused; true: higher-fee ones replace
}

export interface ElementsDevnet {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallets: { operator: string; user: string }; // their names (created only when funding)
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

export const OPERATOR_WALLET = 'operator';
export const USER_WALLET = 'user';

/** Timer-mined and filler blocks pay here: P2WSH of `OP_RETURN`, which no witness can satisfy. */
export const BURN_SCRIPT = concat([Uint8Array.of(0x00, 0x20), sha256(Uint8Array.of(0x6a))]);

/** First start: one coinbase to each wallet, then 100 blocks so both are mature by the wallet's rule. */
async function fundWallets(node: ElementsNode, wallets: ElementsWalletManager, store: NodeStore): Promise<void> {
  for (const name of [OPERATOR_WALLET, USER_WALLET]) {
    if (!wallets.get(name)) {
      if (wallets.exists(name)) wallets.load(name);
      else wallets.create(name);
    }
  }
  if (store.getMeta('funded') === '1') return;
  await node.mine(1, wallets.get(OPERATOR_WALLET)!.newAddress('bech32').script);
  await node.mine(1, wallets.get(USER_WALLET)!.newAddress('bech32').script);
  await node.mine(100, BURN_SCRIPT);
  store.setMeta('funded', '1');
}

export async function startElementsDevnet(options: ElementsDevnetOptions): Promise<ElementsDevnet> {
  const dir = join(options.dataDir, 'elements');
  mkdirSync(dir, { recursive: true });
  const store = new NodeStore(join(dir, 'node.sqlite'));
  let server: Server | undefined;
  let node: ElementsNode | undefined;
  let wallets: ElementsWalletManager | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    if (server) await stopServer(server);
    await node?.idle();
    wallets?.close();
    store.close();
  };
  try {
    const { user, password } = credentials(store, options);
    node = new ElementsNode(store);
    node.fullRbf = options.fullRbf === true;
    await node.load();
    wallets = new ElementsWalletManager(node, store, await loadZkp(), join(dir, 'wallets'));
    wallets.loadAtStartup();
    if (options.fund !== false) await fundWallets(node, wallets, store);
    const host = options.host ?? '127.0.0.1';
    const started = await startElementsRpcServer({ node, wallets, user, password, host, port: options.port ?? 18884 });
    server = started.server;
    if (options.blockIntervalMs && options.blockIntervalMs > 0) {
      const miner = node; // close() stops the timer, then waits for a block in flight (node.idle) before the store closes
      timer = setInterval(() => void miner.mine(1, BURN_SCRIPT), options.blockIntervalMs);
      timer.unref();
    }
    const names = { operator: OPERATOR_WALLET, user: USER_WALLET };
    return { rpcUrl: started.url, rpcUser: user, rpcPassword: password, wallets: names, node, close };
  } catch (error) {
    await close();
    throw error;
  }
}
