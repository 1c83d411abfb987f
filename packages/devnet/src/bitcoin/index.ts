// The devnet's Bitcoin regtest node: starts (or reopens) the node in <dataDir>/bitcoin, funds the operator
// and user wallets on first start, and serves Bitcoin Core's JSON-RPC.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { stopServer } from '../common/stop-server.ts';
import { join } from 'node:path';
import { concat, sha256 } from './bytes.ts';
import { BitcoinNode } from './node.ts';
import { startRpcServer } from './rpc/server.ts';
import { NodeStore } from './store.ts';
import { WalletManager } from './wallet/manager.ts';

export { BitcoinNode } from './node.ts';

export interface BitcoinDevnetOptions {
  dataDir: string; // chain + wallets persist in <dataDir>/bitcoin/
  host?: string; // default 127.0.0.1
  port?: number; // default 18443; 0 = ephemeral (tests)
  rpcUser?: string;
  rpcPassword?: string; // defaults: generated once and persisted in dataDir
  blockIntervalMs?: number; // mine a block on a timer; 0/undefined = only on demand
  fund?: boolean; // default true: create wallets "operator" and "user" with 50 BTC of mature coins each
  fullRbf?: boolean; // default false: conflicting transactions are refused; true: higher-fee ones replace (Core 28)
}

export interface BitcoinDevnet {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallets: { operator: string; user: string };
  node: BitcoinNode;
  close(): Promise<void>;
}

export const OPERATOR_WALLET = 'operator';
export const USER_WALLET = 'user';

/** Timer-mined and filler blocks pay here: P2WSH of `OP_RETURN`, which no witness can satisfy. */
export const BURN_SCRIPT = concat([Uint8Array.of(0x00, 0x20), sha256(Uint8Array.of(0x6a))]);

function credentials(store: NodeStore, options: BitcoinDevnetOptions): { user: string; password: string } {
  let user = options.rpcUser ?? store.getMeta('rpcuser');
  let password = options.rpcPassword ?? store.getMeta('rpcpassword');
  if (user === undefined) {
    user = 'ferry';
    store.setMeta('rpcuser', user);
  }
  if (password === undefined) {
    password = randomBytes(24).toString('hex');
    store.setMeta('rpcpassword', password);
  }
  return { user, password };
}

/**
 * First start: one coinbase to each wallet, then 100 blocks to the burn script so both coinbases are
 * mature by the wallet's rule (101 confirmations).
 */
function fundWallets(node: BitcoinNode, wallets: WalletManager, store: NodeStore): void {
  for (const name of [OPERATOR_WALLET, USER_WALLET]) {
    if (!wallets.get(name)) {
      if (wallets.exists(name)) wallets.load(name);
      else wallets.create(name);
    }
  }
  if (store.getMeta('funded') === '1') return;
  node.mine(1, wallets.get(OPERATOR_WALLET)!.newKey('bech32', 0).script);
  node.mine(1, wallets.get(USER_WALLET)!.newKey('bech32', 0).script);
  node.mine(100, BURN_SCRIPT);
  store.setMeta('funded', '1');
}

export async function startBitcoinDevnet(options: BitcoinDevnetOptions): Promise<BitcoinDevnet> {
  const dir = join(options.dataDir, 'bitcoin');
  mkdirSync(dir, { recursive: true });
  const store = new NodeStore(join(dir, 'node.sqlite'));
  let server: Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wallets: WalletManager | undefined;
  let closed = false;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    if (server) await stopServer(server);
    wallets?.close();
    store.close();
  };

  try {
    const { user, password } = credentials(store, options);
    const node = new BitcoinNode(store);
    node.fullRbf = options.fullRbf === true;
    node.load();
    wallets = new WalletManager(node, store, join(dir, 'wallets'));
    wallets.loadAtStartup();
    if (options.fund !== false) fundWallets(node, wallets, store);

    const started = await startRpcServer({
      node,
      wallets,
      user,
      password,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 18443,
    });
    server = started.server;

    if (options.blockIntervalMs && options.blockIntervalMs > 0) {
      timer = setInterval(() => node.mine(1, BURN_SCRIPT), options.blockIntervalMs);
      timer.unref();
    }

    return {
      rpcUrl: started.url,
      rpcUser: user,
      rpcPassword: password,
      wallets: { operator: OPERATOR_WALLET, user: USER_WALLET },
      node,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
