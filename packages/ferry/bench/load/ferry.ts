// Ferry as the HTTP benches serve it: `ferry start` in a process of its own, as an operator runs it, on a devnet that
// runs in another (as the real daemons would), so a CPU profile or a CPU meter of Ferry's process holds Ferry alone.
// The request buckets are off (ephemeralPorts): every request of a bench comes from one address.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readDevnetInfo, type DevnetInfo } from '@ferry/devnet/index.js';
import { runFerry, type FerryProcess } from '../../test/helpers/ferry-process.ts';
import { ephemeralPorts } from '../../test/helpers/ports.ts';

export interface Devnet {
  process: FerryProcess;
  info: DevnetInfo;
}

export async function startDevnet(dir: string): Promise<Devnet> {
  const process = runFerry(['devnet'], { FERRY_DATA_DIR: dir, ...ephemeralPorts });
  await process.waitFor((entry) => entry.message === 'devnet running', 120_000);
  return { process, info: readDevnetInfo(dir) };
}

export interface FerryInstance {
  process: FerryProcess;
  apiUrl: string;
  pid: number;
}

export interface InstanceOptions {
  /** This instance's data directory (SQLite database unless `databaseUrl`, instance id). */
  dataDir: string;
  /** Shared by every instance of one bench: they sign with the same keys. */
  mnemonicPath: string;
  databaseUrl?: string;
  /** Flags for node, before the script (the inspector, for a CPU profile). */
  nodeArgs?: string[];
  /** Names the instance's PostgreSQL sessions (application_name), so a bench can find its backends. */
  postgresApplication?: string;
}

export async function startInstance(devnet: DevnetInfo, options: InstanceOptions): Promise<FerryInstance> {
  const configFile = `${options.dataDir}.toml`;
  writeFileSync(configFile, `[swap]\nmnemonicPath = "${options.mnemonicPath}"\n`);
  const process = runFerry(
    ['start'],
    {
      ...ephemeralPorts,
      FERRY_CONFIG: configFile,
      FERRY_DATA_DIR: options.dataDir,
      ...(options.databaseUrl !== undefined && { FERRY_DATABASE_URL: options.databaseUrl }),
      ...(options.postgresApplication !== undefined && { PGAPPNAME: options.postgresApplication }),
      FERRY_DEVNET_ENABLED: 'false',
      FERRY_BITCOIN_RPC_URL: devnet.bitcoin.rpcUrl,
      FERRY_BITCOIN_RPC_USER: devnet.bitcoin.rpcUser,
      FERRY_BITCOIN_RPC_PASSWORD: devnet.bitcoin.rpcPassword,
      FERRY_BITCOIN_WALLET: devnet.bitcoin.wallets.operator,
      FERRY_LIQUID_RPC_URL: devnet.elements.rpcUrl,
      FERRY_LIQUID_RPC_USER: devnet.elements.rpcUser,
      FERRY_LIQUID_RPC_PASSWORD: devnet.elements.rpcPassword,
      FERRY_LIQUID_WALLET: devnet.elements.wallets.operator,
      FERRY_LND_REST_URL: devnet.lightning.ferry.restUrl,
      FERRY_LND_MACAROON: devnet.lightning.ferry.macaroon,
    },
    options.nodeArgs,
  );
  const listening = await process.waitFor((entry) => entry.message === 'API listening', 180_000);
  return { process, apiUrl: listening.url as string, pid: process.child.pid! };
}

/** SIGTERM and wait for Ferry's clean shutdown. */
export async function stop(process: FerryProcess): Promise<void> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) return;
  process.child.kill('SIGTERM');
  await process.exited;
}

export interface BareServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const bareScript = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

/** The baseline server (bare-server.ts) in its own process. */
export async function startBareServer(): Promise<BareServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', bareScript], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error('the baseline server exited before listening');
  return { url: first.value as string, pid: child.pid!, stop: async () => void (child.stdin!.end(), await exited) };
}
