// Starts the devnet's Lightning network: the operator's node and user nodes, each serving LND's REST API on
// its own port of 127.0.0.1, with channels opened and funded on the given chain the first time it starts; and,
// when asked, CLN nodes serving clnrest over the same network model (Ferry's node when it runs on Core Lightning),
// each with its hold plugin's gRPC (mTLS, certificates made in <dataDir>/lightning/<node>/hold-grpc at first start).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClockChain, type LightningChain } from './chain.ts';
import { LightningNetwork, type ChannelSpec } from './network.ts';
import { startRestServer, type RestServer } from './rest/server.ts';
import { startClnRestServer } from './clnrest/server.ts';
import { startHoldGrpcServer, type HoldGrpcServer } from './clnrest/hold-grpc.ts';
import { ensureHoldTls, type HoldTlsDir } from './clnrest/hold-tls.ts';
import { mintRune } from './clnrest/rune.ts';
import { ADMIN_OPS, bakeMacaroon } from './rest/macaroons.ts';
import { StateStore } from './store.ts';

export { ClockChain, type LightningChain, type ChannelFunding } from './chain.ts';
export { DEVNET_CLN_VERSION } from './clnrest/lightningd.ts';
export { LightningNetwork, type ChannelSpec } from './network.ts';
export { BitcoinRpcChain, type BitcoinRpcChainOptions } from './bitcoin-chain.ts';

export interface LightningNodeInfo {
  restUrl: string;
  macaroon: string; // hex, for the Grpc-Metadata-macaroon header: the node's admin macaroon, as LND bakes it
  pubkey: string;
}

/**
 * A CLN node: clnrest's URL, the rune the devnet minted for it (the `Rune` header) and its identity key; and its
 * hold plugin's gRPC: host:port and the mTLS files a client needs (certDir holds them under the plugin's names).
 */
export interface ClnNodeInfo {
  restUrl: string;
  rune: string;
  pubkey: string;
  hold?: { grpcUrl: string; certDir: string; caCert: string; clientCert: string; clientKey: string };
}

export interface LightningDevnetOptions {
  dataDir: string;
  chain?: LightningChain; // defaults to a ClockChain kept in <dataDir>/lightning/clock.json
  host?: string;
  nodes?: string[];
  /** Nodes that speak clnrest instead of LND's REST (default none; `cln` is the one `startDevnet` adds). */
  clnNodes?: string[];
  channels?: ChannelSpec[];
  ports?: Record<string, number>; // 0 = ephemeral; by default a restarted node takes its previous port again
  holdOnionAnswerMs?: number; // how long a CLN node's hooked onion message waits for a gRPC client (the plugin's 30 s)
}

export interface LightningDevnet {
  nodes: Record<string, LightningNodeInfo>;
  cln: Record<string, ClnNodeInfo>;
  network: LightningNetwork;
  chain: LightningChain;
  close(): Promise<void>;
}

export const DEFAULT_NODES = ['ferry', 'alice', 'bob'];

// The operator's node sits in the middle with a channel to each user, 5M sat on each user's side, so payments flow
// both ways. The channel to bob holds 15M sat on the operator's side: payments are single-path here, and the default
// pairs' largest submarine swap (maximal, 10M sat) must be payable over one channel with room to spare, or the
// operator's lowBalance check (src/alerts/checks.ts) rightly warns after the first swap. The channel to alice stays
// balanced at 10M: tests size "more than Ferry can send to alice" off it, below the pairs' maximal.
export const DEFAULT_CHANNELS: ChannelSpec[] = [
  { from: 'ferry', to: 'alice', capacitySat: 10_000_000, pushSat: 5_000_000 },
  { from: 'ferry', to: 'bob', capacitySat: 20_000_000, pushSat: 5_000_000 },
];

/** A CLN node stands where the operator's LND node does: the same channels to each user node. */
export const clnChannels = (name: string): ChannelSpec[] =>
  DEFAULT_CHANNELS.map((spec) => ({ ...spec, from: name }));

type StartServer = typeof startRestServer;

async function listen(start: StartServer, network: LightningNetwork, name: string, host: string, wanted: number): Promise<RestServer> {
  try {
    return await start(network, name, host, wanted);
  } catch (err) {
    // The previous port may have been taken while the devnet was down; any free port will do then.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && wanted !== 0) {
      return start(network, name, host, 0);
    }
    throw err;
  }
}

async function listenHold(network: LightningNetwork, name: string, host: string, tls: HoldTlsDir, onionAnswerMs?: number): Promise<HoldGrpcServer> {
  const portFile = join(tls.certDir, 'port');
  const before = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : 0;
  let server: HoldGrpcServer;
  try {
    server = await startHoldGrpcServer(network, name, host, before, { tls, onionAnswerMs });
  } catch (err) {
    if (before === 0) throw err;
    server = await startHoldGrpcServer(network, name, host, 0, { tls, onionAnswerMs }); // taken meanwhile
  }
  writeFileSync(portFile, `${server.port}\n`);
  return server;
}

export async function startLightningDevnet(options: LightningDevnetOptions): Promise<LightningDevnet> {
  const dir = join(options.dataDir, 'lightning');
  mkdirSync(dir, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const chain = options.chain ?? new ClockChain(100, join(dir, 'clock.json'));
  const clnNodes = options.clnNodes ?? [];
  const network = await LightningNetwork.open({
    store: new StateStore(options.dataDir),
    chain,
    nodes: [...(options.nodes ?? DEFAULT_NODES), ...clnNodes],
    channels: options.channels ?? [...DEFAULT_CHANNELS, ...clnNodes.flatMap(clnChannels)],
  });
  const servers: { close(): Promise<void> }[] = [];
  const nodes: Record<string, LightningNodeInfo> = {};
  const cln: Record<string, ClnNodeInfo> = {};
  try {
    // A node left out of this start (a CLN node not asked for now) is in the state but serves nothing.
    const served = new Set([...(options.nodes ?? DEFAULT_NODES), ...clnNodes]);
    for (const node of network.nodes.filter((n) => served.has(n.name))) {
      const isCln = clnNodes.includes(node.name);
      const start = isCln ? startClnRestServer : startRestServer;
      const server = await listen(start, network, node.name, host, options.ports?.[node.name] ?? node.restPort);
      servers.push(server);
      network.setRestPort(node.name, server.port);
      if (isCln) {
        // The hold plugin's gRPC, on the port it had before (kept beside its certificates) while that is free.
        const tls = ensureHoldTls(join(dir, node.name, 'hold-grpc'));
        const hold = await listenHold(network, node.name, host, tls, options.holdOnionAnswerMs);
        servers.push(hold);
        const { certDir, caCert, clientCert, clientKey } = tls;
        cln[node.name] = {
          restUrl: server.url,
          rune: mintRune(node.secretKey),
          pubkey: node.pubkey,
          hold: { grpcUrl: hold.grpcUrl, certDir, caCert, clientCert, clientKey },
        };
      } else nodes[node.name] = { restUrl: server.url, macaroon: bakeMacaroon(node.macaroon, ADMIN_OPS), pubkey: node.pubkey };
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    network.close();
    throw err;
  }
  return {
    nodes,
    cln,
    network,
    chain,
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
      network.close();
    },
  };
}
