// What the devnet hands Ferry: its nodes as the keys an operator writes into ferry.toml for their own daemons
// (bitcoin, liquid, evm, lightning), so that Ferry's adapters read a configuration and never the devnet. Zero-config
// `ferry start` fills the backends the operator left unset with it (src/config/devnet.ts); `ferry devnet` writes it
// as <dataDir>/ferry.toml for a Ferry started on its own (`ferry start --config`). The shapes are spelled here rather
// than taken from Ferry's config types: the devnet depends on nothing of the service.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { TOKEN } from './evm/token.ts';
import type { EvmInfo } from './evm/index.ts';
import type { DevnetInfo } from './index.ts';

/** A Core-family node with the wallet Ferry pays from (the devnet's `operator`). */
export interface CoreNodeConfig {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallet: string;
}

export interface EvmNodeConfig {
  rpcUrl: string;
  chainId: number;
  etherSwap: string;
  erc20Swap: string;
  /** The ERC20 tokens served, by symbol: the devnet's test token. */
  tokens: Record<string, string>;
}

export type LightningNodeConfig =
  | { backend: 'lnd'; restUrl: string; macaroon: string }
  | {
      backend: 'cln';
      restUrl: string;
      rune: string;
      /** The hold plugin's gRPC (mTLS), when the node runs it. */
      cln?: { hold: { grpcUrl: string; certDir: string; caCert: string; clientCert: string; clientKey: string } };
    };

export interface DevnetFerryConfig {
  bitcoin: CoreNodeConfig;
  liquid: CoreNodeConfig;
  evm: EvmNodeConfig;
  lightning: LightningNodeConfig;
}

export const ferryConfigPath = (dataDir: string): string => join(dataDir, 'ferry.toml');

/**
 * Ferry's nodes on this devnet: the `operator` wallets, anvil with its swap contracts and Ferry's Lightning node —
 * the LND `ferry`, or the Core Lightning `cln` (with its hold plugin's gRPC) when Ferry runs on Core Lightning.
 */
export function ferryConfigOf(info: DevnetInfo, lightning: 'lnd' | 'cln' = 'lnd'): DevnetFerryConfig {
  return { bitcoin: coreConfigOf(info.bitcoin), liquid: coreConfigOf(info.elements), evm: evmConfigOf(info.evm), lightning: lightningConfigOf(info, lightning) };
}

/** The bitcoin or Elements node, with the `operator` wallet as Ferry's. */
export function coreConfigOf(node: DevnetInfo['bitcoin']): CoreNodeConfig {
  return { rpcUrl: node.rpcUrl, rpcUser: node.rpcUser, rpcPassword: node.rpcPassword, wallet: node.wallets.operator };
}

/** Anvil as Ferry's EVM node: its chain id, the swap contracts it deployed and the test token. */
export function evmConfigOf(evm: EvmInfo): EvmNodeConfig {
  return {
    rpcUrl: evm.rpcUrl,
    chainId: evm.chainId,
    etherSwap: evm.contracts.etherSwap,
    erc20Swap: evm.contracts.erc20Swap,
    tokens: { [TOKEN.symbol]: evm.contracts.token },
  };
}

/** Ferry's Lightning node of the kind it drives: the LND `ferry`, or the Core Lightning `cln` (an Error if none runs). */
export function lightningConfigOf(info: DevnetInfo, backend: 'lnd' | 'cln'): LightningNodeConfig {
  if (backend === 'lnd') return { backend, restUrl: info.lightning.ferry.restUrl, macaroon: info.lightning.ferry.macaroon };
  const node = info.cln?.cln;
  if (node === undefined) throw new Error('the devnet runs no CLN node (start it with devnet.cln = true)');
  const { hold } = node;
  return {
    backend,
    restUrl: node.restUrl,
    rune: node.rune,
    ...(hold && { cln: { hold: { grpcUrl: hold.grpcUrl, certDir: hold.certDir, caCert: hold.caCert, clientCert: hold.clientCert, clientKey: hold.clientKey } } }),
  };
}

/** The configuration file of a Ferry run on its own against this devnet: its nodes, and the embedded devnet off. */
export function ferryConfigToml(info: DevnetInfo, lightning: 'lnd' | 'cln' = 'lnd'): string {
  const heading =
    '# Written by `ferry devnet`: this devnet\'s nodes as an operator configures their own.\n' +
    '# ferry start --config <this file> --data-dir <a directory of its own>\n';
  return heading + stringify({ devnet: { enabled: false }, ...ferryConfigOf(info, lightning) }) + '\n';
}

/** Writes <dataDir>/ferry.toml (0600: it holds the nodes' credentials); returns its path. */
export function writeFerryConfig(dataDir: string, info: DevnetInfo, lightning: 'lnd' | 'cln' = 'lnd'): string {
  const path = ferryConfigPath(dataDir);
  writeFileSync(path, ferryConfigToml(info, lightning), { mode: 0o600 });
  return path;
}
