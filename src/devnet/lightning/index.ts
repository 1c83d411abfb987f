// Starts the devnet's Lightning network: the operator's node and user nodes, each serving LND's REST API on
// its own port of 127.0.0.1, with channels opened and funded on the given chain the first time it starts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClockChain, type LightningChain } from './chain.ts';
import { LightningNetwork, type ChannelSpec } from './network.ts';
import { startRestServer, type RestServer } from './rest/server.ts';
import { StateStore } from './store.ts';

export { ClockChain, type LightningChain, type ChannelFunding } from './chain.ts';
export { LightningNetwork, type ChannelSpec } from './network.ts';
export { BitcoinRpcChain, type BitcoinRpcChainOptions } from './bitcoin-chain.ts';

export interface LightningNodeInfo {
  restUrl: string;
  macaroon: string; // hex, for the Grpc-Metadata-macaroon header
  pubkey: string;
}

export interface LightningDevnetOptions {
  dataDir: string;
  chain?: LightningChain; // defaults to a ClockChain kept in <dataDir>/lightning/clock.json
  host?: string;
  nodes?: string[];
  channels?: ChannelSpec[];
  ports?: Record<string, number>; // 0 = ephemeral; by default a restarted node takes its previous port again
}

export interface LightningDevnet {
  nodes: Record<string, LightningNodeInfo>;
  network: LightningNetwork;
  chain: LightningChain;
  close(): Promise<void>;
}

export const DEFAULT_NODES = ['ferry', 'alice', 'bob'];

// The operator's node sits in the middle with balanced channels to each user, so payments flow both ways.
export const DEFAULT_CHANNELS: ChannelSpec[] = [
  { from: 'ferry', to: 'alice', capacitySat: 10_000_000, pushSat: 5_000_000 },
  { from: 'ferry', to: 'bob', capacitySat: 10_000_000, pushSat: 5_000_000 },
];

async function listen(network: LightningNetwork, name: string, host: string, wanted: number): Promise<RestServer> {
  try {
    return await startRestServer(network, name, host, wanted);
  } catch (err) {
    // The previous port may have been taken while the devnet was down; any free port will do then.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && wanted !== 0) {
      return startRestServer(network, name, host, 0);
    }
    throw err;
  }
}

export async function startLightningDevnet(options: LightningDevnetOptions): Promise<LightningDevnet> {
  const dir = join(options.dataDir, 'lightning');
  mkdirSync(dir, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const chain = options.chain ?? new ClockChain(100, join(dir, 'clock.json'));
  const network = await LightningNetwork.open({
    store: new StateStore(options.dataDir),
    chain,
    nodes: options.nodes ?? DEFAULT_NODES,
    channels: options.channels ?? DEFAULT_CHANNELS,
  });
  const servers: RestServer[] = [];
  const nodes: Record<string, LightningNodeInfo> = {};
  try {
    for (const node of network.nodes) {
      const server = await listen(network, node.name, host, options.ports?.[node.name] ?? node.restPort);
      servers.push(server);
      network.setRestPort(node.name, server.port);
      nodes[node.name] = { restUrl: server.url, macaroon: node.macaroon, pubkey: node.pubkey };
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    network.close();
    throw err;
  }
  return {
    nodes,
    network,
    chain,
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
      network.close();
    },
  };
}
