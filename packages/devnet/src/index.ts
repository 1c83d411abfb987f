// The embedded regtest world: starts each devnet part and writes devnet.json, the one file tools and tests
// read to find every endpoint and credential the devnet serves. The EVM chain is anvil in its own process, started
// first so it boots and deploys its contracts while the in-process nodes start.
import { renameSync, writeFileSync } from 'node:fs';
import { privateDirectory } from '@ferry/sdk/fs/private.js';
import { devnetInfoPath, readDevnetInfo } from './info-file.ts';
import { startBitcoinDevnet, type BitcoinDevnet } from './bitcoin/index.ts';
import { startElementsDevnet, type ElementsDevnet } from './elements/index.ts';
import type { EvmDevnet, EvmInfo } from './evm/index.ts';
import {
  BitcoinRpcChain,
  startLightningDevnet,
  type ClnNodeInfo,
  type LightningDevnet,
  type LightningNodeInfo,
} from './lightning/index.ts';

export interface DevnetOptions {
  dataDir: string;
  host?: string;
  bitcoinPort?: number; // default 18443; 0 = ephemeral
  elementsPort?: number; // default 18884; 0 = ephemeral
  evmPort?: number; // default 8545; 0 = ephemeral
  blockIntervalMs?: number; // mines on every chain
  /** Let higher-fee conflicting transactions replace mempool ones, on both UTXO chains (see BitcoinDevnetOptions). */
  fullRbf?: boolean;
  /** EVM accounts to fund at start (Ferry's operator account, which its own mnemonic derives). */
  evmFund?: readonly string[];
  /**
   * Also run `cln`, a Lightning node speaking Core Lightning's clnrest, with channels to alice and bob; or the CLN
   * nodes named (`cln` is Ferry's when it runs on Core Lightning; another can pay it, BOLT12 included).
   */
  cln?: boolean | string[];
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
  cln?: Record<string, ClnNodeInfo>; // `cln`, when the devnet runs a Core Lightning node
  elements: RpcEndpoint;
  evm: EvmInfo; // anvil: rpcUrl, chainId, accounts (operator, user), contracts (etherSwap, erc20Swap, token)
}

export interface Devnet {
  info: DevnetInfo;
  bitcoin: BitcoinDevnet;
  lightning: LightningDevnet;
  elements: ElementsDevnet;
  evm: EvmDevnet;
  close(): Promise<void>;
}

export { devnetInfoPath, readDevnetInfo };

/** The contract addresses an earlier start recorded, so a restored chain keeps its contracts. */
function recordedContracts(dataDir: string): EvmInfo['contracts'] | undefined {
  try {
    return readDevnetInfo(dataDir).evm?.contracts;
  } catch {
    return undefined;
  }
}

export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  privateDirectory(options.dataDir); // wallets' keys and credentials: the operator's account only
  // Loaded here, not with this module: every `ferry` command imports it, and ethers takes ~150 ms to load.
  const evmStarting = import('./evm/index.ts').then(({ startEvmDevnet }) =>
    startEvmDevnet({
      dataDir: options.dataDir,
      host: options.host,
      port: options.evmPort,
      blockIntervalMs: options.blockIntervalMs,
      recorded: recordedContracts(options.dataDir),
      fund: options.evmFund,
    }),
  );
  evmStarting.catch(() => {}); // awaited below; a failure meanwhile must not count as unhandled
  const parts: { close(): Promise<void> }[] = [];
  let bitcoin: BitcoinDevnet, lightning: LightningDevnet, elements: ElementsDevnet, evm: EvmDevnet | undefined;
  try {
    bitcoin = await startBitcoinDevnet({
      dataDir: options.dataDir,
      host: options.host,
      port: options.bitcoinPort,
      blockIntervalMs: options.blockIntervalMs,
      fullRbf: options.fullRbf,
    });
    parts.push(bitcoin);
    // Channels are funded from the operator's wallet on the devnet chain; hold invoices expire by its height.
    const chain = new BitcoinRpcChain({
      url: bitcoin.rpcUrl,
      user: bitcoin.rpcUser,
      password: bitcoin.rpcPassword,
      wallet: bitcoin.wallets.operator,
    });
    lightning = await startLightningDevnet({
      dataDir: options.dataDir,
      host: options.host,
      chain,
      clnNodes: options.cln === true ? ['cln'] : options.cln || [],
    });
    parts.push(lightning);
    elements = await startElementsDevnet({
      dataDir: options.dataDir,
      host: options.host,
      port: options.elementsPort,
      blockIntervalMs: options.blockIntervalMs,
      fullRbf: options.fullRbf,
    });
    parts.push(elements);
    evm = await evmStarting;
    parts.push(evm);
  } catch (error) {
    if (!evm) await evmStarting.then((started) => started.close(), () => undefined);
    for (const part of parts.splice(0).reverse()) await part.close();
    throw error;
  }
  const endpoint = ({ rpcUrl, rpcUser, rpcPassword, wallets }: RpcEndpoint): RpcEndpoint => ({ rpcUrl, rpcUser, rpcPassword, wallets });
  const info: DevnetInfo = {
    bitcoin: endpoint(bitcoin),
    lightning: lightning.nodes,
    ...(Object.keys(lightning.cln).length > 0 && { cln: lightning.cln }),
    elements: endpoint(elements),
    evm: evm.info,
  };
  // Written atomically: a reader never sees half a file.
  const path = devnetInfoPath(options.dataDir);
  writeFileSync(path + '.tmp', JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
  const close = async () => {
    for (const part of parts.splice(0).reverse()) await part.close();
  };
  return { info, bitcoin, lightning, elements, evm, close };
}
