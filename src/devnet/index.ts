// The embedded regtest world: starts each devnet part and writes devnet.json, the one file tools and tests
// read to find every endpoint and credential the devnet serves.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBitcoinDevnet, type BitcoinDevnet } from './bitcoin/index.ts';
import { BitcoinRpcChain, startLightningDevnet, type LightningDevnet, type LightningNodeInfo } from './lightning/index.ts';

export interface DevnetOptions {
  dataDir: string;
  host?: string;
  bitcoinPort?: number; // 0 = ephemeral
  blockIntervalMs?: number;
  /** Let higher-fee conflicting transactions replace mempool ones (see BitcoinDevnetOptions). */
  fullRbf?: boolean;
}

export interface DevnetInfo {
  bitcoin: {
    rpcUrl: string;
    rpcUser: string;
    rpcPassword: string;
    wallets: { operator: string; user: string };
  };
  lightning: Record<string, LightningNodeInfo>; // ferry (the operator's node), alice, bob
}

export interface Devnet {
  info: DevnetInfo;
  bitcoin: BitcoinDevnet;
  lightning: LightningDevnet;
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
  const info: DevnetInfo = {
    bitcoin: {
      rpcUrl: bitcoin.rpcUrl,
      rpcUser: bitcoin.rpcUser,
      rpcPassword: bitcoin.rpcPassword,
      wallets: bitcoin.wallets,
    },
    lightning: lightning.nodes,
  };
  // Written atomically: a reader never sees half a file.
  const path = devnetInfoPath(options.dataDir);
  writeFileSync(path + '.tmp', JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
  const close = async () => {
    await lightning.close();
    await bitcoin.close();
  };
  return { info, bitcoin, lightning, close };
}

export function readDevnetInfo(dataDir: string): DevnetInfo {
  return JSON.parse(readFileSync(devnetInfoPath(dataDir), 'utf8')) as DevnetInfo;
}
