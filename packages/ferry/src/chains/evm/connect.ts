// Connects the EVM chain at start-up and refuses to serve the wrong one: the node must answer, report the
// expected chain id, and hold at both addresses contracts whose version() is the one Ferry decodes (boltz-core
// 4.x's EtherSwap/ERC20Swap, version 6: older versions index the Lockup event and key their swaps differently).
import { JsonRpcProvider, Network } from 'ethers';
import type { CheckpointStore } from '../checkpoint.ts';
import type { Logger } from '../../log/index.ts';
import { EvmBackend } from './backend.ts';
import { chainName } from '@ferry/sdk/chains/evm/contracts-info.js';
import { EvmFollower } from './follower.ts';
import { operatorWallet } from './operator.ts';
import type { EvmSettings } from './settings.ts';

/** The contract version of boltz-core 4.0.1, whose ABIs (src/chains/evm/abi.ts) Ferry reads its events with. */
export const CONTRACT_VERSION = 6;

export const EVM_SYMBOL = 'RBTC';
export const EVM_NETWORK_KEY = 'rsk';

export interface EvmConnectDeps {
  checkpoints: CheckpointStore;
  mnemonic: string;
  logger: Logger;
  /** How long to wait for the node to answer (default 30 tries, a second apart). */
  attempts?: number;
}

/** eth_chainId by hand, before ethers has a provider: ethers would log its own retries while a node is down. */
async function chainIdOf(rpcUrl: string, logger: Logger, attempts: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(5000),
      });
      const answer = (await response.json()) as { result?: string; error?: { message: string } };
      if (typeof answer.result !== 'string') throw new Error(answer.error?.message ?? `HTTP ${response.status}`);
      return Number(BigInt(answer.result));
    } catch (error) {
      if (attempt >= attempts) throw new Error(`evm: node ${rpcUrl} not reachable: ${(error as Error).message}`);
      logger.warn('waiting for EVM node', { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function checkVersion(provider: JsonRpcProvider, backend: EvmBackend, name: 'etherSwap' | 'erc20Swap', chainId: number): Promise<void> {
  const contract = backend[name];
  const address = await contract.getAddress();
  if ((await provider.getCode(address)) === '0x') throw new Error(`evm: no contract at evm.${name} ${address} on chain ${chainId}`);
  let version: bigint;
  try {
    version = (await contract.getFunction('version')()) as bigint;
  } catch (error) {
    throw new Error(`evm: the contract at evm.${name} ${address} does not answer version(): not a swap contract (${(error as Error).message})`);
  }
  if (Number(version) !== CONTRACT_VERSION) {
    throw new Error(`evm: the contract at evm.${name} ${address} is version ${version}; Ferry serves version ${CONTRACT_VERSION} (boltz-core 4.x)`);
  }
}

export async function connectEvm(settings: EvmSettings, deps: EvmConnectDeps): Promise<EvmBackend> {
  const logger = deps.logger.child('evm');
  const chainId = await chainIdOf(settings.rpcUrl, logger, deps.attempts ?? 30);
  if (settings.chainId !== undefined && chainId !== settings.chainId) {
    throw new Error(`evm: the node at ${settings.rpcUrl} is on chain ${chainId}, expected chain ${settings.chainId} (evm.chainId)`);
  }
  const network = Network.from(chainId);
  const provider = new JsonRpcProvider(settings.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1, pollingInterval: settings.pollIntervalMs });
  try {
    const follower = new EvmFollower({
      chain: EVM_SYMBOL,
      provider,
      contracts: settings.contracts,
      checkpoints: deps.checkpoints,
      pollIntervalMs: settings.pollIntervalMs,
      confirmations: settings.confirmations,
      logger: logger.child('follower'),
    });
    const backend = new EvmBackend({
      symbol: EVM_SYMBOL,
      networkKey: EVM_NETWORK_KEY,
      network: { chainId, name: chainName(chainId, network.name) },
      provider,
      signer: operatorWallet(deps.mnemonic, provider),
      contracts: settings.contracts,
      version: CONTRACT_VERSION, // checked next: anything else is refused
      tokens: settings.tokens,
      follower,
    });
    await checkVersion(provider, backend, 'etherSwap', chainId);
    await checkVersion(provider, backend, 'erc20Swap', chainId);
    logger.info('EVM node reachable', { chainId, height: await provider.getBlockNumber(), operator: backend.signer.address, ...settings.contracts });
    return backend;
  } catch (error) {
    provider.destroy();
    throw error;
  }
}
