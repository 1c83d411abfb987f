// What Ferry's [evm] section means to the EVM chain: the node's URL, the chain id it must report, the contracts' and
// tokens' addresses, checksummed. Every one is configured (zero-config's come from the devnet through the same keys,
// src/config/devnet.ts): a node whose contracts are not given is refused with the keys to set rather than guessed at.
import { getAddress } from 'ethers';
import { ConfigError, type FerryConfig } from '../../config/index.ts';
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

export function evmSettings(config: FerryConfig): EvmSettings {
  const { evm } = config;
  if (evm.rpcUrl === '') throw new ConfigError('config key evm.rpcUrl must be set to serve the EVM chain');
  const contract = (key: 'etherSwap' | 'erc20Swap'): string => {
    if (evm[key] === '') throw new ConfigError(`config key evm.${key} must be set: the contract Ferry serves on ${evm.rpcUrl}`);
    return address(`evm.${key}`, evm[key]);
  };
  const tokens = Object.fromEntries(Object.entries(evm.tokens).map(([symbol, value]) => [symbol, address(`evm.tokens.${symbol}`, value)]));
  return {
    rpcUrl: evm.rpcUrl,
    ...(evm.chainId !== 0 && { chainId: evm.chainId }),
    contracts: { EtherSwap: contract('etherSwap'), ERC20Swap: contract('erc20Swap') },
    tokens,
    pollIntervalMs: evm.pollIntervalMs,
    confirmations: evm.confirmations,
  };
}
