// Ferry started in-process on ephemeral ports (devnet, engine, API), and the handles a test needs to see the
// effects of a swap: the devnet's Bitcoin and Elements nodes and user wallets, and the Lightning nodes over LND REST;
// and following a swap to its end with the SDK, recording what happened.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { chainRpc, walletBalances, type DevnetChain } from '@ferry/devnet/cli/chains.js';
import { loadConfig } from '../../src/config/index.ts';
import { startFerry, type Ferry } from '../../src/app.ts';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { addressOfScript, followSwap, type FollowEvent, type SwapClient, type SwapRecord } from '@ferry/sdk/client/index.js';
import { unconfidentialAddress } from '@ferry/sdk/chains/liquid/network.js';
import { Scripts } from 'boltz-core';
import { createLogger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { ferryConfigLightningEnv } from '../helpers/test-lightning.ts';

/** One chain of the devnet as a test sees it. */
export interface DevnetChainHandle {
  /** The devnet node (no wallet). */
  node: CoreRpcClient;
  /** The devnet user's wallet: funds lockups, receives claims and refunds. */
  user: CoreRpcClient;
  /** JSON-RPC URL with the credentials in it, as `ferry swap --bitcoin-rpc` / `--elements-rpc` take it. */
  rpcUrlWithCredentials: string;
  /** The user wallet's coins of the chain's currency, trusted and pending, sat. */
  userBalance(): Promise<bigint>;
  /** Mines to an address outside every devnet wallet, so wallet balances move only by what a test does. */
  mine(blocks?: number): Promise<number>;
}

/** Ferry and its devnet; the chain handles at the top level are Bitcoin's. */
export interface Service extends DevnetChainHandle {
  ferry: Ferry;
  apiUrl: string;
  dataDir: string;
  info: DevnetInfo;
  /** The Elements (Liquid) chain. */
  liquid: DevnetChainHandle;
  /** Both chains by the currency of their swaps. */
  chains: Record<DevnetChain, DevnetChainHandle>;
  lightning(name: 'alice' | 'bob'): LndRestClient;
  /** Ferry's own node, whichever kind the tests run it on (FERRY_TEST_LIGHTNING). */
  ferryNode: LightningBackend;
  /** A BOLT11 invoice of a user node. */
  invoice(node: 'alice' | 'bob', sat: number): Promise<{ invoice: string; paymentHash: string }>;
  /** Local balance of a node's channels, sat. */
  channelBalance(node: 'alice' | 'bob'): Promise<number>;
  close(): Promise<void>;
  log: string[];
}

/** A temporary directory removed when the test process exits. */
export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function startService(settings: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-client-'));
  const log: string[] = [];
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts, ...ferryConfigLightningEnv(), ...settings } });
  const ferry = await startFerry(config, createLogger({ level: 'warn', json: true, write: (line) => log.push(line) }));
  const info = ferry.devnet!.info;
  // Regtest addresses nobody's wallet owns (P2WSH of OP_TRUE): block rewards go there.
  const anyoneCanSpend = Scripts.p2wshOutput(Uint8Array.of(0x51));
  const chainHandle = (chain: DevnetChain, sink: string): DevnetChainHandle => {
    const endpoint = chain === 'BTC' ? info.bitcoin : info.elements;
    const withCredentials = new URL(endpoint.rpcUrl);
    withCredentials.username = endpoint.rpcUser;
    withCredentials.password = endpoint.rpcPassword;
    const node = chainRpc(info, chain);
    return {
      node,
      user: chainRpc(info, chain, endpoint.wallets.user),
      rpcUrlWithCredentials: withCredentials.toString().replace(/\/$/, ''),
      async userBalance() {
        const { user } = (await walletBalances(info, chain)) as Record<string, { trusted: number; untrustedPending: number }>;
        return BigInt(user.trusted + user.untrustedPending);
      },
      async mine(blocks = 1) {
        await node.generateToAddress(blocks, sink);
        return node.getBlockCount();
      },
    };
  };
  const bitcoin = chainHandle('BTC', addressOfScript(anyoneCanSpend, 'regtest'));
  const liquid = chainHandle('L-BTC', unconfidentialAddress(anyoneCanSpend, 'regtest'));
  const lightning = (name: string) => new LndRestClient({ url: info.lightning[name].restUrl, macaroon: info.lightning[name].macaroon });
  return {
    ...bitcoin,
    ferry,
    apiUrl: ferry.apiUrl,
    dataDir,
    info,
    liquid,
    chains: { BTC: bitcoin, 'L-BTC': liquid },
    lightning,
    ferryNode: ferry.lightning.BTC,
    async invoice(name, sat) {
      const response = await fetch(info.lightning[name].restUrl + '/v1/invoices', {
        method: 'POST',
        headers: { 'Grpc-Metadata-macaroon': info.lightning[name].macaroon, 'content-type': 'application/json' },
        body: JSON.stringify({ value: String(sat), memo: 'client test' }),
      });
      const body = (await response.json()) as { payment_request: string; r_hash: string };
      return { invoice: body.payment_request, paymentHash: Buffer.from(body.r_hash, 'base64').toString('hex') };
    },
    async channelBalance(name) {
      const response = await fetch(info.lightning[name].restUrl + '/v1/balance/channels', {
        headers: { 'Grpc-Metadata-macaroon': info.lightning[name].macaroon },
      });
      return Number(((await response.json()) as { local_balance: { sat: string } }).local_balance.sat);
    },
    async close() {
      await ferry.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    log,
  };
}

/** A service, and the environment `ferry swap` commands run in against it: its devnet, a fresh client store. */
export async function startCliService(prefix: string): Promise<{ service: Service; env: Record<string, string | undefined> }> {
  const service = await startService();
  return { service, env: { ...process.env, FERRY_DATA_DIR: service.dataDir, FERRY_CLIENT_DIR: temporaryDir(prefix), FERRY_SERVICE_URL: service.apiUrl } };
}

/** Follows a swap to its end with a fresh status stream; returns the result and every event. */
export async function followToEnd(
  client: SwapClient,
  record: SwapRecord,
  options: { destination: string | Record<string, string>; cooperative?: boolean; acceptQuote?: boolean; retryMs?: number; onEvent?: (event: FollowEvent) => void },
) {
  const stream = client.statusStream({ pollIntervalMs: 200 });
  const events: FollowEvent[] = [];
  const { destination } = options;
  try {
    const result = await followSwap(client, record, {
      stream,
      // A chain swap pays on two chains: its claim on one, its refund on the other.
      destination: async (currency) => (typeof destination === 'string' ? destination : destination[currency]),
      cooperative: options.cooperative,
      acceptQuote: options.acceptQuote,
      retryMs: options.retryMs,
      onEvent: (event) => {
        events.push(event);
        options.onEvent?.(event);
      },
    });
    return { result, events };
  } finally {
    stream.close();
  }
}

/**
 * A TCP proxy in front of the service that a test can cut (drop every connection) or make refuse WebSocket
 * upgrades while plain HTTP still passes: a flaky network, for real.
 */
export class FlakyProxy {
  url = '';
  refuseUpgrades = false;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(private readonly target: URL) {
    this.server = createServer((client) => this.accept(client));
  }

  static async start(target: string): Promise<FlakyProxy> {
    const proxy = new FlakyProxy(new URL(target));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as { port: number }).port}`;
    return proxy;
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }

  private accept(client: Socket): void {
    this.track(client);
    client.once('data', (first) => {
      if (this.refuseUpgrades && /^upgrade:\s*websocket/im.test(first.toString('latin1'))) {
        client.destroy();
        return;
      }
      const upstream = this.track(connect(Number(this.target.port), this.target.hostname));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      upstream.write(first);
      client.pipe(upstream).pipe(client);
    });
  }

  /** Drops every open connection, as a network outage would. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An HTTP front for the service that rewrites chosen JSON answers: a service that lies, for real clients. */
export class TamperingProxy {
  url = '';
  /** Called with each answer's method, path and JSON body; returns the body to send instead. */
  rewrite: (method: string, path: string, body: unknown) => unknown = (_method, _path, body) => body;
  private readonly server: HttpServer;

  private constructor(private readonly target: string) {
    this.server = createHttpServer((request, response) => void this.forward(request, response));
  }

  static async start(target: string): Promise<TamperingProxy> {
    const proxy = new TamperingProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as { port: number }).port}`;
    return proxy;
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = await fetch(this.target + request.url, {
      method: request.method,
      headers: request.headers['content-type'] ? { 'content-type': request.headers['content-type'] } : undefined,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const body = this.rewrite(request.method!, request.url!, await upstream.json());
    response.writeHead(upstream.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
