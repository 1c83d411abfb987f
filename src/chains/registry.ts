// Builds the chain registry from the configuration: for each chain Ferry serves, its backend (the devnet's node
// where none is configured). The only place outside src/chains/<chain>/ that knows which chains exist; a new
// chain is a new folder and a case here.
import { BitcoinBackend } from './bitcoin/backend.ts';
import { CoreRpcClient } from './core-rpc.ts';
import { bitcoinCodec } from './bitcoin/codec.ts';
import { ChainWatcher } from './watcher/watcher.ts';
import type { ChainBackend } from './backend.ts';
import type { CheckpointStore } from './checkpoint.ts';
import { usesDevnetBitcoin, type FerryConfig } from '../config/index.ts';
import type { DevnetInfo } from '../devnet/index.ts';
import type { Logger } from '../log/index.ts';

export interface ConnectedChains {
  chains: Map<string, ChainBackend>;
  /** Stops every chain's watcher. */
  close(): Promise<void>;
}

async function waitForNode(rpc: CoreRpcClient, logger: Logger, attempts = 30): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const info = await rpc.getBlockchainInfo();
      logger.info('bitcoin node reachable', { chain: info.chain, blocks: info.blocks });
      return;
    } catch (error) {
      if (attempt >= attempts) throw new Error(`bitcoin node not reachable: ${(error as Error).message}`);
      logger.warn('waiting for bitcoin node', { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function bitcoinRpc(config: FerryConfig, devnet: DevnetInfo | undefined): CoreRpcClient {
  if (usesDevnetBitcoin(config)) {
    const { rpcUrl, rpcUser, rpcPassword, wallets } = devnet!.bitcoin;
    return new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword, wallet: wallets.operator });
  }
  if (config.bitcoin.rpcUrl === '') throw new Error('no bitcoin backend: set bitcoin.rpcUrl or enable the devnet');
  return new CoreRpcClient({
    url: config.bitcoin.rpcUrl,
    user: config.bitcoin.rpcUser,
    password: config.bitcoin.rpcPassword,
    wallet: config.bitcoin.wallet || undefined,
  });
}

export async function connectChains(
  config: FerryConfig,
  devnet: DevnetInfo | undefined,
  checkpoints: CheckpointStore,
  logger: Logger,
): Promise<ConnectedChains> {
  const rpc = bitcoinRpc(config, devnet);
  await waitForNode(rpc, logger.child('bitcoin'));
  // The watcher resumes from its checkpoint in storage; the swap engine subscribes to it.
  const watcher = new ChainWatcher({
    chain: 'BTC',
    rpc,
    codec: bitcoinCodec,
    checkpoints,
    pollIntervalMs: config.bitcoin.pollIntervalMs,
    logger: logger.child('watcher.BTC'),
  });
  watcher.on('block', (block) => logger.debug('block processed', { chain: 'BTC', height: block.height }));
  watcher.on('reorg', (reorg) => logger.warn('chain reorganisation', { chain: 'BTC', forkHeight: reorg.forkHeight }));
  const chains = new Map<string, ChainBackend>([['BTC', new BitcoinBackend({ symbol: 'BTC', network: config.network, rpc, watcher })]]);
  return {
    chains,
    close: async () => {
      for (const chain of chains.values()) await chain.watcher.stop();
    },
  };
}
