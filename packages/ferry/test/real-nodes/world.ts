// The real-node world: the devnet's Bitcoin node (in process) and real Core Lightning daemons (`lightningd` built
// from Core Lightning's source, prepared by scripts/real-nodes.mjs from ../shared/real-nodes/ or
// FERRY_REAL_NODES_DIR) reading the chain through the project's bitcoin-cli stand-in. Each node has its own
// lightning-dir in a temp dir and a local port; the world talks to it over its JSON-RPC socket with Ferry's own
// socket transport. Waits poll the daemons' state against a deadline; nothing sleeps a fixed time.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { ClnSocketTransport } from '../../src/lightning/cln/socket-transport.ts';
import { freeLocalPort } from '../helpers/ports.ts';

const REPO = resolve(import.meta.dirname, '../..');
const BITCOIN_CLI = join(REPO, 'scripts/real-nodes/bitcoin-cli.mjs');

// Plugins the world needs none of (the rest — pay, cln-xpay, cln-askrene, offers, bcli, topology, txprepare,
// funder, keysend, spenderp … — stay).
const DISABLED_PLUGINS = ['bookkeeper', 'sql', 'recklessrpc', 'cln-renepay', 'autoclean', 'commando', 'exposesecret', 'chanbackup', 'recover'];

/** The prepared lightningd, or why the real-node tests skip. scripts/test.mjs prepares it once (FERRY_REAL_LIGHTNINGD). */
export function realLightningd(): { lightningd?: string; skip?: string } {
  const given = process.env.FERRY_REAL_LIGHTNINGD;
  if (given !== undefined) return given.startsWith('skip=') ? { skip: given.slice(5) } : { lightningd: given };
  const prepared = spawnSync(process.execPath, [join(REPO, 'scripts/real-nodes.mjs')], { encoding: 'utf8' });
  const line = prepared.stdout.trim().split('\n').at(-1) ?? '';
  if (prepared.status !== 0) throw new Error(`scripts/real-nodes.mjs failed: ${prepared.stderr}`);
  if (line.startsWith('skip=')) return { skip: `real-node tests skipped: ${line.slice(5)}` };
  return { lightningd: line.replace(/^lightningd=/, '') };
}

/** Polls `probe` until it returns something other than undefined, or throws after `timeoutMs` with `what`. */
// A ceiling, not a pause: on a busy 2-core machine every bitcoin-cli call lightningd makes is a process start, and
// a node may take tens of seconds to read a few blocks.
const DEFAULT_DEADLINE_MS = 180_000;

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = DEFAULT_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

export interface PeerChannel {
  peer_id: string;
  state: string;
  short_channel_id?: string;
  channel_id: string;
  funding_txid: string;
  to_us_msat: number;
  total_msat: number;
}

export interface Fund {
  txid: string;
  output: number;
  amount_msat: number;
  status: string;
}

export class RealNode {
  readonly rpc: ClnSocketTransport;
  id = '';
  private readonly exited: Promise<unknown>;

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly port: number,
    private readonly child: ChildProcess,
  ) {
    this.rpc = new ClnSocketTransport({ path: this.socketPath, timeoutMs: 60_000 });
    this.exited = once(child, 'exit');
  }

  get socketPath(): string {
    return join(this.dir, 'regtest', 'lightning-rpc');
  }

  call<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    return this.rpc.call<T>(method, params, timeoutMs);
  }

  /** The tail of the node's log, for a failure's message. */
  logTail(lines = 40): string {
    const path = join(this.dir, 'log');
    return existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)';
  }

  async channels(): Promise<PeerChannel[]> {
    return (await this.call<{ channels: PeerChannel[] }>('listpeerchannels')).channels;
  }

  async outputs(): Promise<Fund[]> {
    return (await this.call<{ outputs: Fund[] }>('listfunds')).outputs;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await this.call('stop', {}, 10_000).catch(() => this.child.kill('SIGTERM'));
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(killer);
    this.rpc.close();
  }
}

export interface RealWorld {
  devnet: BitcoinDevnet;
  node: CoreRpcClient; // the devnet's Bitcoin node, no wallet
  user: CoreRpcClient; // a funded wallet
  nodes: Record<string, RealNode>;
  dataDir: string;
  /** Mines `blocks` and waits until every running lightningd has seen the new tip. */
  mine(blocks?: number): Promise<string[]>;
  /** Sends `sat` from the devnet's user wallet to the node's on-chain wallet and confirms it. */
  fund(node: RealNode, sat: number): Promise<void>;
  /** Opens channels of `sat` from `from` to each of `to` in one funding transaction and mines them to CHANNELD_NORMAL on both sides. */
  openChannels(from: RealNode, to: RealNode[], sat: number): Promise<{ txid: string; channels: PeerChannel[] }>;
  close(): Promise<void>;
}

export interface NodeSpec {
  name: string;
  options?: string[]; // extra lightningd options
}

async function startNode(lightningd: string, devnet: BitcoinDevnet, dataDir: string, spec: NodeSpec): Promise<RealNode> {
  const dir = join(dataDir, spec.name);
  mkdirSync(dir, { recursive: true });
  const port = await freeLocalPort();
  const rpc = new URL(devnet.rpcUrl);
  const args = [
    '--network=regtest',
    `--lightning-dir=${dir}`,
    `--bitcoin-cli=${BITCOIN_CLI}`,
    `--bitcoin-rpcconnect=${rpc.hostname}`,
    `--bitcoin-rpcport=${rpc.port}`,
    `--bitcoin-rpcuser=${devnet.rpcUser}`,
    `--bitcoin-rpcpassword=${devnet.rpcPassword}`,
    `--addr=127.0.0.1:${port}`,
    `--alias=${spec.name}`,
    `--log-file=${join(dir, 'log')}`,
    '--log-level=debug',
    // developer options: read the chain every second (default 30 s), gossip without regtest's long delays
    '--developer',
    '--dev-bitcoind-poll=1',
    '--dev-fast-gossip',
    '--rescan=1', // a new node starts at the tip (the default rescans 30 blocks back, two bitcoin-cli calls each)
    ...DISABLED_PLUGINS.map((plugin) => `--disable-plugin=${plugin}`),
    ...(spec.options ?? []),
  ];
  const log = createWriteStream(join(dir, 'stdout'));
  // Not the test run's NODE_OPTIONS (tsx, the contract observer): every bitcoin-cli call is a node process of its own.
  const { NODE_OPTIONS: _testRunOptions, ...env } = process.env;
  const child = spawn(lightningd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const node = new RealNode(spec.name, dir, port, child);
  const exitedEarly = once(child, 'exit').then(([code]) => {
    throw new Error(`lightningd ${spec.name} exited (${String(code)}) at start:\n${node.logTail()}\n${readFileSync(join(dir, 'stdout'), 'utf8').slice(-2000)}`);
  });
  const info = await Promise.race([
    waitFor(`lightningd ${spec.name} to answer getinfo`, () => node.call<{ id: string }>('getinfo'), 60_000),
    exitedEarly,
  ]);
  exitedEarly.catch(() => {}); // a later exit (stop) is expected
  node.id = info.id;
  return node;
}

export async function startRealWorld(lightningd: string, specs: NodeSpec[]): Promise<RealWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-real-nodes-'));
  const devnet = await startBitcoinDevnet({ dataDir: join(dataDir, 'bitcoin'), port: 0 });
  const node = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  const user = node.wallet(devnet.wallets.user);
  const burn = await user.getNewAddress();
  const started = await Promise.allSettled(specs.map((spec) => startNode(lightningd, devnet, dataDir, spec)));
  const nodes: Record<string, RealNode> = {};
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') nodes[specs[i].name] = result.value;
  });
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.all(Object.values(nodes).map((n) => n.stop()));
    await devnet.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw failed.reason;
  }

  const world: RealWorld = {
    devnet,
    node,
    user,
    nodes,
    dataDir,
    async mine(blocks = 1) {
      const hashes = await node.generateToAddress(blocks, burn);
      const height = await node.getBlockCount();
      await Promise.all(
        Object.values(nodes).map((n) =>
          waitFor(`${n.name} at height ${height}`, async () => ((await n.call<{ blockheight: number }>('getinfo').catch(() => undefined))?.blockheight ?? -1) >= height || undefined),
        ),
      );
      return hashes;
    },
    async fund(target, sat) {
      // lightningd's default address type (v26: Taproot, `p2tr`)
      const made = await target.call<{ p2tr?: string; bech32?: string }>('newaddr');
      const address = made.p2tr ?? made.bech32;
      if (address === undefined) throw new Error(`newaddr answered no address: ${JSON.stringify(made)}`);
      const txid = await user.sendToAddress(address, sat / 1e8);
      await world.mine(1);
      await waitFor(`${target.name}'s wallet to hold ${txid}`, async () => ((await target.outputs()).some((o) => o.txid === txid && o.status === 'confirmed') ? true : undefined));
    },
    async openChannels(from, to, sat) {
      const destinations = to.map((peer) => ({ id: `${peer.id}@127.0.0.1:${peer.port}`, amount: sat }));
      const opened = await from.call<{ txid: string; channel_ids: { id: string; channel_id: string }[] }>('multifundchannel', { destinations });
      await waitFor(`funding ${opened.txid} in the devnet's mempool`, async () => ((await node.call<string[]>('getrawmempool')).includes(opened.txid) ? true : undefined));
      await world.mine(6);
      const normal = async (n: RealNode, peer: RealNode) =>
        (await n.channels()).find((c) => c.peer_id === peer.id && c.funding_txid === opened.txid && c.state === 'CHANNELD_NORMAL');
      const channels = await Promise.all(
        to.map(async (peer) => {
          const [ours] = await Promise.all([
            waitFor(`${from.name}→${peer.name} CHANNELD_NORMAL`, () => normal(from, peer)),
            waitFor(`${peer.name}←${from.name} CHANNELD_NORMAL`, () => normal(peer, from)),
          ]);
          return ours;
        }),
      );
      return { txid: opened.txid, channels };
    },
    async close() {
      await Promise.all(Object.values(nodes).map((n) => n.stop()));
      await devnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}
