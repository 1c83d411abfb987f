// What Ferry's [evm] section means once the devnet is taken into account: the node's URL, the chain id it must
// report, the contracts' and tokens' addresses. Empty keys fall back to the devnet's anvil and the contracts it
// deployed (devnet.json), so zero-config Ferry serves RBTC on the devnet; a configured node whose contracts are not
// given is refused with the keys to set rather than guessed at.
import { existsSync } from 'node:fs';
import { getAddress } from 'ethers';
import { ConfigError, usesDevnetEvm, type FerryConfig } from '../../config/index.ts';
import { readDevnetInfo, devnetInfoPath, type DevnetInfo } from '../../devnet/index.ts';
import type { EvmInfo } from '../../devnet/evm/index.ts';
import { TOKEN } from '../../devnet/evm/contracts.ts';
import type { SwapContractName } from './abi.ts';

export interface EvmSettings {
  rpcUrl: string;
  /** The chain id the node must report; undefined: any. */
  chainId?: number;
  contracts: Record<SwapContractName, string>;
  tokens: Record<string, string>;
  pollIntervalMs: number;
  confirmations: number;
}

/** A checksummed address, or a ConfigError naming the key (a mixed-case address with a wrong checksum is a typo). */
function address(key: string, value: string): string {
  try {
    return getAddress(value);
  } catch {
    throw new ConfigError(`config key ${key}: ${value} is not a valid EVM address (wrong checksum?)`);
  }
}

/** The devnet.json of a devnet serving this URL, when one is in the data directory: its contracts are the defaults. */
function devnetAt(config: FerryConfig, rpcUrl: string): EvmInfo | undefined {
  if (!existsSync(devnetInfoPath(config.dataDir))) return undefined;
  try {
    const evm = readDevnetInfo(config.dataDir).evm;
    return evm && new URL(evm.rpcUrl).href === new URL(rpcUrl).href ? evm : undefined;
  } catch {
    return undefined;
  }
}

export function evmSettings(config: FerryConfig, devnet: DevnetInfo | undefined): EvmSettings {
  const { evm } = config;
  let rpcUrl = evm.rpcUrl;
  let source: EvmInfo | undefined;
  if (usesDevnetEvm(config)) {
    if (!devnet?.evm) throw new Error('evm: the devnet is enabled but runs no EVM chain (no evm entry in its info)');
    source = devnet.evm;
    rpcUrl = source.rpcUrl;
    if (evm.chainId !== 0 && evm.chainId !== source.chainId) {
      throw new ConfigError(`config key evm.chainId is ${evm.chainId}, but the devnet's anvil runs chain ${source.chainId}: unset it or set evm.rpcUrl`);
    }
  } else {
    source = devnetAt(config, rpcUrl);
  }
  const contract = (key: 'etherSwap' | 'erc20Swap'): string => {
    if (evm[key] !== '') return address(`evm.${key}`, evm[key]);
    if (source) return getAddress(source.contracts[key]);
    throw new ConfigError(`config key evm.${key} must be set: evm.rpcUrl (${rpcUrl}) is not the devnet's, so there is no devnet.json to take the contract address from`);
  };
  const configuredTokens = Object.entries(evm.tokens).map(([symbol, value]) => [symbol, address(`evm.tokens.${symbol}`, value)]);
  const tokens = configuredTokens.length > 0 ? Object.fromEntries(configuredTokens) : source ? { [TOKEN.symbol]: getAddress(source.contracts.token) } : {};
  const chainId = evm.chainId !== 0 ? evm.chainId : source?.chainId;
  return {
    rpcUrl,
    ...(chainId !== undefined && { chainId }),
    contracts: { EtherSwap: contract('etherSwap'), ERC20Swap: contract('erc20Swap') },
    tokens,
    pollIntervalMs: evm.pollIntervalMs,
    confirmations: evm.confirmations,
  };
}
