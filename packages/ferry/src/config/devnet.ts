// Zero-config's one door to the devnet: the only module of the service that knows the devnet exists. Where the
// operator left a backend unconfigured (its URL empty, `devnet.enabled` on), the devnet's node takes its place
// exactly as an operator's would — through the same configuration keys (src/devnet/ferry-config.ts) — so the chain
// registry, the EVM settings, the Lightning connection and the doctor read a configuration and nothing else.
// Precedence is per backend: a backend whose URL the operator set is theirs, whole; an unset one is the devnet's,
// whole (its credentials and wallet too), except that on the EVM chain the operator's contract and token addresses
// still win and a chain id they set must be the devnet's.
import { existsSync } from 'node:fs';
import type { Devnet, DevnetInfo } from '@ferry/devnet/index.js';
import { coreConfigOf, evmConfigOf, lightningConfigOf, type LightningNodeConfig } from '@ferry/devnet/ferry-config.js';
import { devnetInfoPath, readDevnetInfo } from '@ferry/devnet/info-file.js';
import type { Logger } from '../log/index.ts';
import { ConfigError, usesDevnetBitcoin, usesDevnetEvm, usesDevnetLightning, usesDevnetLiquid } from './load.ts';
import type { FerryConfig } from './schema.ts';

export type { Devnet, DevnetInfo };

/** The backends the configuration leaves to the devnet, by the name of their section. */
export function devnetBackends(config: FerryConfig): string[] {
  return [
    usesDevnetBitcoin(config) && 'bitcoin',
    usesDevnetLiquid(config) && 'liquid',
    usesDevnetEvm(config) && 'evm',
    usesDevnetLightning(config) && 'lightning',
  ].filter((name): name is string => name !== false);
}

/** The configuration with the devnet's nodes in place of every backend the operator left unset. */
export function withDevnet(config: FerryConfig, info: DevnetInfo): FerryConfig {
  const resolved: FerryConfig = structuredClone(config);
  if (usesDevnetBitcoin(config)) resolved.bitcoin = { ...config.bitcoin, ...coreConfigOf(info.bitcoin) };
  if (usesDevnetLiquid(config)) resolved.liquid = { ...config.liquid, ...coreConfigOf(info.elements) };
  if (usesDevnetEvm(config)) {
    const offered = evmConfigOf(info.evm);
    const { chainId } = config.evm;
    if (chainId !== 0 && chainId !== offered.chainId) {
      throw new ConfigError(`config key evm.chainId is ${chainId}, but the devnet's anvil runs chain ${offered.chainId}: unset it or set evm.rpcUrl`);
    }
    resolved.evm = {
      ...config.evm,
      rpcUrl: offered.rpcUrl,
      chainId: offered.chainId,
      etherSwap: config.evm.etherSwap || offered.etherSwap,
      erc20Swap: config.evm.erc20Swap || offered.erc20Swap,
      tokens: Object.keys(config.evm.tokens).length > 0 ? { ...config.evm.tokens } : offered.tokens,
    };
  }
  if (usesDevnetLightning(config)) {
    let node: LightningNodeConfig;
    try {
      node = lightningConfigOf(info, config.lightning.backend);
    } catch (error) {
      throw new ConfigError((error as Error).message); // the devnet runs no node of that kind
    }
    const none = { grpcUrl: '', certDir: '', caCert: '', clientCert: '', clientKey: '' };
    resolved.lightning = {
      ...config.lightning,
      restUrl: node.restUrl,
      rune: node.backend === 'cln' ? node.rune : '',
      macaroon: node.backend === 'lnd' ? node.macaroon : '',
      macaroonPath: '',
      tlsCertPath: '',
      cln: node.backend === 'cln' ? { rpcSocket: '', hold: node.cln ? { ...node.cln.hold } : none } : config.lightning.cln,
    };
  }
  return resolved;
}

/** Whether the devnet should run `cln`: asked for, or Ferry's own node is the devnet's Core Lightning node. */
/** The devnet's `[devnet]` settings as its start options; `cln` says whether it runs the CLN node too. */
export const devnetOptionsOf = (config: FerryConfig, cln: boolean) => ({
  dataDir: config.dataDir,
  bitcoinPort: config.devnet.bitcoinPort,
  elementsPort: config.devnet.elementsPort,
  evmPort: config.devnet.evmPort,
  blockIntervalMs: config.devnet.blockIntervalMs,
  fullRbf: config.devnet.fullRbf,
  cln,
});

const devnetRunsCln = (config: FerryConfig): boolean => config.devnet.cln || (usesDevnetLightning(config) && config.lightning.backend === 'cln');

/**
 * `ferry start`: starts the embedded devnet when the configuration leaves a backend to it, and returns the
 * configuration with its nodes filled in. `evmFund`: the accounts anvil funds at start (Ferry's operator account).
 */
export async function startDevnetFor(config: FerryConfig, evmFund: readonly string[], logger: Logger): Promise<{ config: FerryConfig; devnet?: Devnet }> {
  if (devnetBackends(config).length === 0) return { config };
  const { startDevnet } = await import('@ferry/devnet/index.js'); // loaded only when it runs
  const devnet = await startDevnet({ ...devnetOptionsOf(config, devnetRunsCln(config)), evmFund });
  try {
    const { bitcoin, elements, evm } = devnet.info;
    logger.info('devnet started', { bitcoin: bitcoin.rpcUrl, elements: elements.rpcUrl, evm: evm.rpcUrl, info: devnetInfoPath(config.dataDir) });
    return { config: withDevnet(config, devnet.info), devnet };
  } catch (error) {
    await devnet.close();
    throw error;
  }
}

/**
 * `ferry doctor`: the configuration with the nodes of the devnet running on this data directory (its devnet.json,
 * written by `ferry start` or `ferry devnet`) where it leaves a backend to the devnet; a ConfigError when none runs.
 */
export function withRunningDevnet(config: FerryConfig): FerryConfig {
  const backends = devnetBackends(config);
  if (backends.length === 0) return config;
  if (!existsSync(devnetInfoPath(config.dataDir))) {
    throw new ConfigError(`${backends.join(', ')} ${backends.length === 1 ? 'uses' : 'use'} the devnet, and no devnet.json is in ${config.dataDir}: start it (ferry devnet) or configure the node`);
  }
  return withDevnet(config, readDevnetInfo(config.dataDir));
}

/** The options `ferry devnet` runs the devnet alone with, from the same configuration keys zero-config uses. */
export function devnetOptions(config: FerryConfig): { dataDir: string; bitcoinPort: number; elementsPort: number; evmPort: number; blockIntervalMs: number; fullRbf: boolean; cln: boolean } {
  const { bitcoinPort, elementsPort, evmPort, blockIntervalMs, fullRbf } = config.devnet;
  return { dataDir: config.dataDir, bitcoinPort, elementsPort, evmPort, blockIntervalMs, fullRbf, cln: config.devnet.cln || config.lightning.backend === 'cln' };
}
