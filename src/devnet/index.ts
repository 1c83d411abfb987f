// The embedded regtest world: starts each devnet part and writes devnet.json, the one file tools and tests
// read to find every endpoint and credential the devnet serves.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBitcoinDevnet, type BitcoinDevnet } from './bitcoin/index.ts';
import { startElementsDevnet, type ElementsDevnet } from './elements/index.ts';
import { BitcoinRpcChain, startLightningDevnet, type LightningDevnet, type LightningNodeInfo } from './lightning/index.ts';

export interface DevnetOptions {
  dataDir: string;
  host?: string;
  bitcoinPort?: number; // default 18443; 0 = ephemeral
  elementsPort?: number; // default 18884; 0 = ephemeral
  blockIntervalMs?: number; // mines on both chains
  /** Let higher-fee conflicting transactions replace mempool ones (see BitcoinDevnetOptions). */
  fullRbf?: boolean;
}

interface RpcEndpoint {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallets: { operator: string; user: string };
}

export interface DevnetInfo {
  bitcoin: RpcEndpoint;
  lightning: Record<string, LightningNodeInfo>; // ferry (the operator's node), alice, bob
  elements: RpcEndpoint;
}

export interface Devnet {
  info: DevnetInfo;
  bitcoin: BitcoinDevnet;
  lightning: LightningDevnet;
  elements: ElementsDevnet;
  close(): Promise<void>;
}

export const devnetInfoPath = (dataDir: string): string => join(dataDir, 'devnet.json');

export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  mkdirSync(options.dataDir, { recursive: true });
  const bitcoin = await startBitcoinDevnet({
    dataDir: options.dataDir,
    host: options.host,
    port: options.bitcoinPort,
    blockIntervalMs: options.blockIntervalMs,
    fullRbf: options.fullRbf,
  });
  let lightning: LightningDevnet;
  try {
    // Channels are funded from the operator's wallet on the devnet chain; hold invoices expire by its height.
    const chain = new BitcoinRpcChain({
      url: bitcoin.rpcUrl,
      user: bitcoin.rpcUser,
      password: bitcoin.rpcPassword,
      wallet: bitcoin.wallets.operator,
    });
    lightning = await startLightningDevnet({ dataDir: options.dataDir, host: options.host, chain });
  } catch (error) {
    await bitcoin.close();
    throw error;
  }
  let elements: ElementsDevnet;
  try {
    elements = await startElementsDevnet({
      dataDir: options.dataDir,
      host: options.host,
      port: options.elementsPort,
      blockIntervalMs: options.blockIntervalMs,
    });
  } catch (error) {
    await lightning.close();
    await bitcoin.close();
    throw error;
  }
  const endpoint = ({ rpcUrl, rpcUser, rpcPassword, wallets }: RpcEndpoint): RpcEndpoint => ({ rpcUrl, rpcUser, rpcPassword, wallets });
  const info: DevnetInfo = { bitcoin: endpoint(bitcoin), lightning: lightning.nodes, elements: endpoint(elements) };
  // Written atomically: a reader never sees half a file.
  const path = devnetInfoPath(options.dataDir);
  writeFileSync(path + '.tmp', JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
  const close = async () => {
    await elements.close();
    await lightning.close();
    await bitcoin.close();
  };
  return { info, bitcoin, lightning, elements, close };
}

export function readDevnetInfo(dataDir: string): DevnetInfo {
  return JSON.parse(readFileSync(devnetInfoPath(dataDir), 'utf8')) as DevnetInfo;
}
