// Ferry as one process: backends (the devnet where none is configured), storage, chain watcher and API.
import type { Server } from 'node:http';
import { join } from 'node:path';
import { BitcoinRpcClient } from './chains/bitcoin-rpc.ts';
import { ChainService, UtxoChain } from './chains/chain-service.ts';
import { ChainWatcher } from './chains/watcher.ts';
import { createApiServer } from './api/index.ts';
import { listen } from './api/http/server.ts';
import type { ReferralCredential } from './api/v1/referrals.ts';
import { ConfigError, databaseUrl, usesDevnetBitcoin, usesDevnetLightning, type FerryConfig } from './config/index.ts';
import type { LightningBackend } from './lightning/backend.ts';
import { LndRestClient } from './lightning/lnd/client.ts';
import { SwapEngine } from './engine/engine.ts';
import { loadOrCreateMnemonic } from './keys/mnemonic.ts';
import { SwapKeys } from './keys/swap-keys.ts';
import { pairFromConfig } from './config/pair.ts';
import { openStorage, type Storage } from './db/index.ts';
import { startDevnet, type Devnet } from './devnet/index.ts';
import type { Logger } from './log/index.ts';

export interface Ferry {
  apiUrl: string;
  devnet?: Devnet;
  chains: ChainService;
  storage: Storage;
  watchers: Map<string, ChainWatcher>;
  lightning: Record<string, LightningBackend>;
  swaps?: SwapEngine;
  close(): Promise<void>;
}

async function waitForNode(rpc: BitcoinRpcClient, logger: Logger, attempts = 30): Promise<void> {
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

/** The partner credential of the referral report, if one is configured; half of one is a configuration error. */
function referralCredentials(config: FerryConfig): ReferralCredential[] {
  const { id, apiKey, apiSecret } = config.referral;
  if (apiKey === '' && apiSecret === '') return [];
  if (apiKey === '' || apiSecret === '') throw new ConfigError('referral.apiKey and referral.apiSecret must be set together');
  return [{ apiKey, apiSecret, ...(id !== '' && { referralId: id }) }];
}

export async function startFerry(config: FerryConfig, logger: Logger): Promise<Ferry> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const referral = referralCredentials(config);
    let devnet: Devnet | undefined;
    let bitcoinRpc: BitcoinRpcClient;
    if (usesDevnetBitcoin(config) || usesDevnetLightning(config)) {
      devnet = await startDevnet({
        dataDir: config.dataDir,
        bitcoinPort: config.devnet.bitcoinPort,
        blockIntervalMs: config.devnet.blockIntervalMs,
      });
      closers.push(() => devnet!.close());
      logger.info('devnet started', { bitcoin: devnet.info.bitcoin.rpcUrl, info: `${config.dataDir}/devnet.json` });
    }
    if (usesDevnetBitcoin(config)) {
      const { rpcUrl, rpcUser, rpcPassword, wallets } = devnet!.info.bitcoin;
      bitcoinRpc = new BitcoinRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword, wallet: wallets.operator });
    } else {
      if (config.bitcoin.rpcUrl === '') throw new Error('no bitcoin backend: set bitcoin.rpcUrl or enable the devnet');
      bitcoinRpc = new BitcoinRpcClient({
        url: config.bitcoin.rpcUrl,
        user: config.bitcoin.rpcUser,
        password: config.bitcoin.rpcPassword,
        wallet: config.bitcoin.wallet || undefined,
      });
    }
    await waitForNode(bitcoinRpc, logger.child('bitcoin'));

    const storage = await openStorage(databaseUrl(config));
    closers.push(() => storage.close());
    logger.info('storage ready', { dialect: storage.database.dialect });

    const chains = new ChainService();
    chains.add(new UtxoChain('BTC', bitcoinRpc));

    // The watcher resumes from its checkpoint in storage; swap engines subscribe to it.
    const watcher = new ChainWatcher({
      chain: 'BTC',
      rpc: bitcoinRpc,
      checkpoints: storage.checkpoints,
      pollIntervalMs: config.bitcoin.pollIntervalMs,
      logger: logger.child('watcher.BTC'),
    });
    watcher.on('block', (block) => logger.debug('block processed', { chain: 'BTC', height: block.height }));
    watcher.on('reorg', (reorg) => logger.warn('chain reorganisation', { chain: 'BTC', forkHeight: reorg.forkHeight }));
    closers.push(() => watcher.stop());
    const watchers = new Map([['BTC', watcher]]);

    const lightning: Record<string, LightningBackend> = {};
    if (usesDevnetLightning(config)) {
      const node = devnet!.info.lightning.ferry;
      lightning.BTC = new LndRestClient({ url: node.restUrl, macaroon: node.macaroon });
    } else if (config.lightning.restUrl !== '') {
      lightning.BTC = new LndRestClient({
        url: config.lightning.restUrl,
        macaroon: config.lightning.macaroon || undefined,
        macaroonPath: config.lightning.macaroonPath || undefined,
        tlsCertPath: config.lightning.tlsCertPath || undefined,
      });
    }
    for (const [symbol, backend] of Object.entries(lightning)) {
      const info = await backend.getInfo();
      logger.info('lightning node reachable', { symbol, publicKey: info.publicKey, blockHeight: info.blockHeight });
    }

    // Swaps need both sides: without a Lightning node Ferry serves chain data only.
    let swaps: SwapEngine | undefined;
    if (lightning.BTC) {
      const mnemonic = loadOrCreateMnemonic(config.swap.mnemonicPath || join(config.dataDir, 'mnemonic'));
      swaps = new SwapEngine({
        storage,
        watcher,
        rpc: bitcoinRpc,
        lightning: lightning.BTC,
        keys: SwapKeys.fromMnemonic(mnemonic, config.network),
        pairs: [pairFromConfig(config)],
        network: config.network,
        claimDelayMs: config.swap.claimDelayMs,
        invoiceExpirySeconds: config.swap.invoiceExpirySeconds,
        paymentTimeoutSeconds: config.swap.paymentTimeoutSeconds,
        logger: logger.child('engine'),
      });
      await swaps.start(); // re-registers active swaps, replays pending effects, starts the watcher
      closers.push(() => swaps!.stop());
    } else {
      await watcher.start();
    }

    const server: Server = createApiServer({
      chains,
      lightning,
      swaps,
      logger: logger.child('api'),
      maxBodyBytes: config.api.maxBodyBytes,
      referralCredentials: referral,
    });
    const address = await listen(server, config.api.port, config.api.host);
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const apiUrl = `http://${address.address}:${address.port}`;
    logger.info('API listening', { url: apiUrl });
    return { apiUrl, devnet, chains, storage, watchers, lightning, swaps, close };
  } catch (error) {
    await close();
    throw error;
  }
}
