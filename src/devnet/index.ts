// The embedded regtest world: starts each devnet part and writes devnet.json, the one file tools and tests
// read to find every endpoint and credential the devnet serves.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBitcoinDevnet, type BitcoinDevnet } from './bitcoin/index.ts';

export interface DevnetOptions {
  dataDir: string;
  host?: string;
  bitcoinPort?: number; // 0 = ephemeral
  blockIntervalMs?: number;
}

export interface DevnetInfo {
  bitcoin: {
    rpcUrl: string;
    rpcUser: string;
    rpcPassword: string;
    wallets: { operator: string; user: string };
  };
}

export interface Devnet {
  info: DevnetInfo;
  bitcoin: BitcoinDevnet;
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
  });
  const info: DevnetInfo = {
    bitcoin: {
      rpcUrl: bitcoin.rpcUrl,
      rpcUser: bitcoin.rpcUser,
      rpcPassword: bitcoin.rpcPassword,
      wallets: bitcoin.wallets,
    },
  };
  // Written atomically: a reader never sees half a file.
  const path = devnetInfoPath(options.dataDir);
  writeFileSync(path + '.tmp', JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
  return { info, bitcoin, close: () => bitcoin.close() };
}

export function readDevnetInfo(dataDir: string): DevnetInfo {
  return JSON.parse(readFileSync(devnetInfoPath(dataDir), 'utf8')) as DevnetInfo;
}
