// Builds the chain registry from the configuration: for each chain Ferry serves, its backend on the configured node
// (zero-config's devnet nodes arrive here as configuration too, filled in by src/config/devnet.ts). The only place
// outside src/chains/<chain>/ that knows which chains exist; a new chain is a new folder and a case here. The EVM
// chain (RBTC) is connected here too but kept apart from the UTXO chains' registry: it is no ChainBackend
// (src/chains/evm/backend.ts says why).
import { bitcoinCodec } from './bitcoin/codec.ts';
import { BitcoinBackend } from './bitcoin/backend.ts';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { LiquidBackend } from './liquid/backend.ts';
import { liquidCodec } from './liquid/codec.ts';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { unblindLockup } from '@ferry/sdk/chains/liquid/spends.js';
import { initLiquid, loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { nodeHttpPost } from './rpc-post.ts';
import { blindingKeyForScript } from '@ferry/sdk/chains/liquid/blinding.js';
import { ChainWatcher, type ChainWatcherOptions } from './watcher/watcher.ts';
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { CheckpointStore } from './checkpoint.ts';
import { servesEvm, servesLiquid, type FerryConfig } from '../config/index.ts';
import type { EvmBackend } from './evm/backend.ts';
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { Logger } from '../log/index.ts';

export interface ConnectedChains {
  chains: Map<string, ChainBackend>;
  /** The EVM chains by symbol (RBTC), when served; their followers are not started (the swap engine will). */
  evm: Map<string, EvmBackend>;
  /** The same chains as the swap legs reach them (ContractChain). */
  contracts: Map<string, ContractChain>;
  /** Stops every chain's watcher and follower. */
  close(): Promise<void>;
}

/** What the chains need of Ferry's secrets. */
export interface ChainSecrets {
  /** SLIP-77 master blinding key of Liquid lockups. */
  masterBlindingKey: Uint8Array;
  /** Ferry's mnemonic: the operator's EVM account derives from it. */
  mnemonic: string;
}

interface NodeSettings {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallet: string;
}

async function waitForNode(rpc: CoreRpcClient, name: string, logger: Logger, attempts = 30): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const info = await rpc.getBlockchainInfo();
      logger.info(`${name} node reachable`, { chain: info.chain, blocks: info.blocks });
      return;
    } catch (error) {
      if (attempt >= attempts) throw new Error(`${name} node not reachable: ${(error as Error).message}`);
      logger.warn(`waiting for ${name} node`, { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** The configured node, with the operator's wallet. */
function nodeRpc(name: string, settings: NodeSettings): CoreRpcClient {
  if (settings.rpcUrl === '') throw new Error(`no ${name} backend: set ${name}.rpcUrl or enable the devnet`);
  return new CoreRpcClient({
    url: settings.rpcUrl,
    user: settings.rpcUser,
    password: settings.rpcPassword,
    wallet: settings.wallet || undefined,
    post: nodeHttpPost,
  });
}

/** The watcher resumes from its checkpoint in storage; the swap engine subscribes to it. */
function watcherFor(options: Omit<ChainWatcherOptions, 'logger'>, logger: Logger): ChainWatcher {
  const watcher = new ChainWatcher({ ...options, logger: logger.child(`watcher.${options.chain}`) });
  watcher.on('block', (block) => logger.debug('block processed', { chain: options.chain, height: block.height }));
  watcher.on('reorg', (reorg) => logger.warn('chain reorganisation', { chain: options.chain, forkHeight: reorg.forkHeight }));
  return watcher;
}

async function connectBitcoin(config: FerryConfig, checkpoints: CheckpointStore, logger: Logger): Promise<ChainBackend> {
  await loadZkp(); // libsecp256k1 for every new swap's output key (src/keys/libsecp256k1.ts)
  const rpc = nodeRpc('bitcoin', config.bitcoin);
  await waitForNode(rpc, 'bitcoin', logger.child('bitcoin'));
  const watcher = watcherFor({ chain: 'BTC', rpc, codec: bitcoinCodec, checkpoints, pollIntervalMs: config.bitcoin.pollIntervalMs }, logger);
  return new BitcoinBackend({ symbol: 'BTC', network: config.network, rpc, watcher });
}

async function connectLiquid(
  config: FerryConfig,
  checkpoints: CheckpointStore,
  secrets: ChainSecrets,
  logger: Logger,
): Promise<ChainBackend> {
  await initLiquid(); // secp256k1-zkp, to unblind lockups
  const rpc = nodeRpc('liquid', config.liquid);
  await waitForNode(rpc, 'liquid', logger.child('liquid'));
  const codec = liquidCodec({
    asset: policyAsset(config.network),
    open: (output) =>
      unblindLockup({ txid: '', vout: 0, prevout: output, blindingPrivateKey: blindingKeyForScript(secrets.masterBlindingKey, output.script).privateKey }),
  });
  const watcher = watcherFor({ chain: 'L-BTC', rpc, codec, checkpoints, pollIntervalMs: config.liquid.pollIntervalMs }, logger);
  return new LiquidBackend({ symbol: 'L-BTC', network: config.network, rpc, watcher, masterBlindingKey: secrets.masterBlindingKey });
}

export async function connectChains(
  config: FerryConfig,
  checkpoints: CheckpointStore,
  secrets: ChainSecrets,
  logger: Logger,
): Promise<ConnectedChains> {
  const chains = new Map<string, ChainBackend>([['BTC', await connectBitcoin(config, checkpoints, logger)]]);
  if (servesLiquid(config)) chains.set('L-BTC', await connectLiquid(config, checkpoints, secrets, logger));
  const evm = new Map<string, EvmBackend>();
  const contracts = new Map<string, ContractChain>();
  if (servesEvm(config)) {
    // Loaded only when served: ethers takes a while to load.
    const [{ connectEvm }, { evmSettings }, { EvmContractChain }] = await Promise.all([
      import('./evm/connect.ts'),
      import('./evm/settings.ts'),
      import('./evm/contract-chain.ts'),
    ]);
    const backend = await connectEvm(evmSettings(config), { checkpoints, mnemonic: secrets.mnemonic, logger });
    evm.set(backend.symbol, backend);
    contracts.set(backend.symbol, new EvmContractChain(backend));
  }
  return {
    chains,
    evm,
    contracts,
    close: async () => {
      for (const chain of chains.values()) await chain.watcher.stop();
      for (const backend of evm.values()) await backend.close();
    },
  };
}
