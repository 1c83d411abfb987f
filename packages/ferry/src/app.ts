// Ferry as one process: backends (the devnet where none is configured, src/config/devnet.ts), storage, chain
// watcher and API.
import { OfferRegistry } from './lightning/bolt12/registry.ts';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { ChainRegistry } from '@ferry/sdk/chains/backend.js';
import { connectChains } from './chains/registry.ts';
import type { EvmBackend } from './chains/evm/backend.ts';
import { createApiServer } from './api/index.ts';
import { checkPagePath, pageRoutes, type PageRoutes } from './page/routes.ts';
import { listen, stopServer } from './api/http/server.ts';
import { limitsFromConfig } from './api/limits/from-config.ts';
import { privateDirectory } from '@ferry/sdk/fs/private.js';
import { FerryMetrics } from './metrics/metrics.ts';
import { createMetricsServer } from './metrics/server.ts';
import { WebhookQueue } from './webhooks/queue.ts';
import { WebhookSender } from './webhooks/sender.ts';
import { AdminService } from './admin/service.ts';
import { startAdminServer } from './admin/server.ts';
import { adminSocketPath } from './admin/socket.ts';
import { Webhooks } from './webhooks/webhooks.ts';
import type { ReferralCredential } from './api/v1/referrals.ts';
import type { InvoiceRequestHub } from './api/ws/invoice-requests.ts';
import { ConfigError, databaseUrl, usesDevnetEvm, type FerryConfig } from './config/index.ts';
import { startDevnetFor, type Devnet } from './config/devnet.ts';
import type { LightningBackend } from './lightning/backend.ts';
import { lightningBackend } from './lightning/connect.ts';
import { ClnBackend } from './lightning/cln/client.ts';
import { answerOfferRequestsOn } from './lightning/cln/offer-requests.ts';
import { SwapEngine } from './engine/engine.ts';
import { SecretsAtRest } from './secrets/at-rest.ts';
import { SwapKeys } from '@ferry/sdk/keys/swap-keys.js';
import { pairsFromConfig } from './config/pair.ts';
import { openStorage, schemaVersion, type Storage } from './db/index.ts';
import type { Logger } from './log/index.ts';
import { mnemonicToSeedSync } from '@scure/bip39';
import { StatusFeed } from './events/index.ts';
import { startInstances, type Instances } from './instances/index.ts';
import { masterBlindingKeyFromSeed } from '@ferry/sdk/chains/liquid/blinding.js';
import { startChecks } from './doctor/run.ts';
import { AlertNotifier } from './alerts/notifier.ts';
import { MoneyChecks } from './alerts/checks.ts';
import { StoredAlerts } from './alerts/stored-alerts.ts';

export interface Ferry {
  apiUrl: string;
  /** The swap page's URL; none when page.enabled is false or Ferry serves no swaps. */
  pageUrl?: string;
  /** The swap page's build (its files and how long it took); none when the page is not served. */
  page?: PageRoutes;
  /** Where GET /metrics is served; none when metrics.enabled is false. */
  metricsUrl?: string;
  /** The unix socket `ferry admin` talks to; none when admin.enabled is false. */
  adminSocket?: string;
  devnet?: Devnet;
  chains: ChainRegistry;
  /** The EVM chains (RBTC) by symbol; empty when none is served. */
  evm: ReadonlyMap<string, EvmBackend>;
  storage: Storage;
  lightning: Record<string, LightningBackend>;
  swaps?: SwapEngine;
  /** BOLT12 invoice requests on their way to wallets (WebSocket, webhooks); none without swaps. */
  invoiceRequests?: InvoiceRequestHub;
  close(): Promise<void>;
}

/** This instance's lasting id (a file in the data directory), so a restart takes its own swap locks back. */
function loadOrCreateInstanceId(dataDir: string): string {
  const path = join(dataDir, 'instance-id');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const id = randomBytes(12).toString('hex');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${id}\n`);
  return id;
}

/** The key webhook calls are signed with: configured, or a file in the data directory made on first start (0600, sealed with the passphrase when one is given). */
async function loadOrCreateWebhookSecret(config: FerryConfig, secrets: SecretsAtRest): Promise<string> {
  if (config.webhooks.secret !== '') return config.webhooks.secret;
  return secrets.generated(join(config.dataDir, 'webhook-secret'), () => randomBytes(32).toString('hex'));
}

/** The key operator alert calls are signed with: configured, or a file of its own in the data directory, as above. */
async function loadOrCreateAlertsSecret(config: FerryConfig, secrets: SecretsAtRest): Promise<string> {
  if (config.alerts.webhookSecret !== '') return config.alerts.webhookSecret;
  return secrets.generated(join(config.dataDir, 'alerts-webhook-secret'), () => randomBytes(32).toString('hex'));
}

/** The operator's alert receiver must be an http(s) URL: refused before anything starts. */
function checkAlertsWebhookUrl(config: FerryConfig): void {
  const { webhookUrl } = config.alerts;
  if (webhookUrl === '') return;
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new ConfigError(`alerts.webhookUrl is not a URL: ${webhookUrl}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`alerts.webhookUrl must be http(s): ${webhookUrl}`);
}

/**
 * Operator alerts kept in the database, with the operator's webhook when one is configured (its receiver is the
 * operator's own: private addresses and plain http are allowed).
 */
async function operatorAlerts(config: FerryConfig, storage: Storage, logger: Logger, secrets: SecretsAtRest): Promise<{ alerts: StoredAlerts; notifier?: AlertNotifier }> {
  const { webhookUrl, webhookAttempts, webhookBackoffMs, webhookTimeoutMs } = config.alerts;
  if (webhookUrl === '') return { alerts: new StoredAlerts(storage.alerts, logger) };
  const sender = new WebhookSender({ secret: await loadOrCreateAlertsSecret(config, secrets), allowPrivate: true, timeoutMs: webhookTimeoutMs });
  const notifier = new AlertNotifier(storage.alerts, sender, { url: webhookUrl, attempts: webhookAttempts, backoffMs: webhookBackoffMs, timeoutMs: webhookTimeoutMs }, logger);
  return { alerts: new StoredAlerts(storage.alerts, logger, notifier), notifier };
}

/** The partner credential of the referral report, if one is configured; half of one is a configuration error. */
function referralCredentials(config: FerryConfig): ReferralCredential[] {
  const { id, apiKey, apiSecret } = config.referral;
  if (apiKey === '' && apiSecret === '') return [];
  if (apiKey === '' || apiSecret === '') throw new ConfigError('referral.apiKey and referral.apiSecret must be set together');
  return [{ apiKey, apiSecret, ...(id !== '' && { referralId: id }) }];
}

export async function startFerry(configured: FerryConfig, logger: Logger): Promise<Ferry> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let config = configured;
    const referral = referralCredentials(config);
    if (config.page.enabled) {
      try {
        checkPagePath(config.page.path);
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
    }
    checkAlertsWebhookUrl(config);
    const limits = limitsFromConfig(config);
    privateDirectory(config.dataDir); // mnemonic, database, devnet keys: the operator's account only
    // One mnemonic: the swap keys, the master blinding key of Liquid lockups and the operator's EVM account; kept in
    // plain text or sealed with the operator's passphrase (src/secrets), which is dropped once start-up is done.
    const secrets = new SecretsAtRest(config, logger.child('secrets'));
    const mnemonic = await secrets.mnemonic();
    // Zero-config: the devnet starts for every backend left unconfigured, and from here on it is configuration.
    // Its anvil funds Ferry's EVM account (ethers is loaded only when the devnet runs the chain).
    const evmFund = usesDevnetEvm(config) ? [(await import('./chains/evm/operator.ts')).operatorWallet(mnemonic).address] : [];
    const withDevnet = await startDevnetFor(config, evmFund, logger);
    const devnet: Devnet | undefined = withDevnet.devnet;
    if (devnet) closers.push(() => devnet.close());
    config = withDevnet.config;
    const storage = await openStorage(databaseUrl(config));
    closers.push(() => storage.close());
    logger.info('storage ready', { dialect: storage.database.dialect });

    const { alerts, notifier } = await operatorAlerts(config, storage, logger.child('alerts'), secrets);
    if (notifier) {
      notifier.start();
      closers.push(() => notifier.stop());
    }

    const masterBlindingKey = masterBlindingKeyFromSeed(mnemonicToSeedSync(mnemonic));
    const connected = await connectChains(config, storage.checkpoints, { masterBlindingKey, mnemonic }, logger);
    closers.push(() => connected.close());
    const chains = connected.chains;

    // What would break swaps is refused here, before anything is served (src/doctor; warnings are logged).
    await startChecks({ config, logger: logger.child('doctor'), mnemonic });

    const lightning: Record<string, LightningBackend> = {};
    const node = lightningBackend(config, logger.child('lightning'));
    if (node !== undefined) lightning.BTC = node;
    if (node instanceof ClnBackend) closers.push(async () => node.close());
    for (const [symbol, backend] of Object.entries(lightning)) {
      const info = await backend.getInfo();
      logger.info('lightning node reachable', { symbol, publicKey: info.publicKey, blockHeight: info.blockHeight });
    }

    // every chain whose watcher or follower keeps a checkpoint under its symbol
    const watched = [...chains.entries(), ...connected.evm.entries()].map(([symbol, chain]) => ({ symbol, height: () => chain.height() }));
    const metrics = config.metrics.enabled ? new FerryMetrics({ storage, chains: watched }) : undefined;
    if (metrics) alerts.onRaised(metrics.countAlert);

    // Swaps need both sides: without a Lightning node Ferry serves chain data only.
    let swaps: SwapEngine | undefined;
    // On PostgreSQL several instances may share the database: one leads (runs the engine), all serve the API.
    const shared = storage.database.dialect === 'postgres';
    let instances: Instances | undefined;
    let statusFeed: StatusFeed | undefined;
    if (lightning.BTC) {
      const instanceId = loadOrCreateInstanceId(config.dataDir);
      swaps = new SwapEngine({
        storage,
        chains,
        contracts: connected.contracts,
        lightning: new Map(Object.entries(lightning)),
        keys: SwapKeys.fromMnemonic(mnemonic, config.network),
        instanceId,
        standby: shared,
        pairs: pairsFromConfig(config),
        network: config.network,
        claimDelayMs: config.swap.claimDelayMs,
        invoiceExpirySeconds: config.swap.invoiceExpirySeconds,
        paymentTimeoutSeconds: config.swap.paymentTimeoutSeconds,
        prepayMinerFee: config.swap.prepayMinerFee,
        feeBumpAfterBlocks: config.swap.feeBumpAfterBlocks,
        alerts,
        alertUnconfirmedAfterBlocks: config.alerts.unconfirmedAfterBlocks,
        effectMaxAttempts: config.effects.maxAttempts,
        effectRetryMs: config.effects.retryMs,
        effectRetryMaxMs: config.effects.retryMaxMs,
        logger: logger.child('engine'),
      });
      metrics?.followSwaps(swaps);
      if (shared) {
        const apiLogger = logger.child('api');
        statusFeed = new StatusFeed((error, id) => apiLogger.error('status listener failed', { swap: id, error: String(error) }));
        // Starts the engine at once if this instance takes the leader lock, or whenever it takes it later.
        instances = await startInstances({
          storage,
          engine: swaps,
          instanceId,
          feed: statusFeed,
          logger: logger.child('instances'),
          onLost: (reason) => {
            // Another instance may lead already: going on risks two leaders. A supervisor restarts this one as a standby.
            logger.error('leadership lost: exiting', { reason });
            process.exit(75);
          },
        });
        closers.push(() => instances!.close()); // after the engine stopped (closers run in reverse): then the lock goes
      } else {
        await swaps.start(); // re-registers active swaps, replays pending effects, starts the watchers
      }
      closers.push(() => swaps!.stop());
      // First of all (closers run in reverse): a standby taking the lock now would start the engine being stopped.
      if (instances) closers.push(() => instances!.standDown());
      // balances against the pairs' limits, held payments of reverse swaps Ferry locked for: now, then periodically
      const checks = new MoneyChecks({ storage, alerts, pairs: pairsFromConfig(config), chains, evm: connected.evm, lightning, logger: logger.child('alerts') });
      await checks.start(config.alerts.checkIntervalMs);
      closers.push(() => checks.stop());
    } else {
      for (const chain of chains.values()) await chain.watcher.start();
    }

    let webhooks: Webhooks | undefined;
    let sender: WebhookSender | undefined;
    if (swaps) {
      const { allowPrivate, attempts, backoffMs, timeoutMs } = config.webhooks;
      sender = new WebhookSender({ secret: await loadOrCreateWebhookSecret(config, secrets), allowPrivate, timeoutMs });
      const queue = new WebhookQueue(storage, sender, { attempts, backoffMs, timeoutMs }, logger.child('webhooks'));
      webhooks = new Webhooks(storage, queue, logger.child('webhooks'));
      const stop = webhooks.connect(swaps);
      closers.push(async () => stop());
    }
    let invoiceRequests: InvoiceRequestHub | undefined;
    // The swap page needs swaps to offer; its build runs beside the start, not before it.
    const page = swaps && config.page.enabled ? pageRoutes({ path: config.page.path, network: config.network, logger: logger.child('page'), cacheDir: join(config.dataDir, 'page-cache') }) : undefined;
    const server: Server = createApiServer({
      chains,
      evm: connected.evm,
      lightning,
      swaps,
      logger: logger.child('api'),
      maxBodyBytes: config.api.maxBodyBytes,
      referralCredentials: referral,
      limits,
      observeRequest: metrics?.observeRequest,
      webhooks: webhooks && { registry: webhooks, policy: config.webhooks },
      offers: new OfferRegistry(storage.offers),
      databaseSchemaVersion: () => schemaVersion(storage.database),
      askWebhook: sender && ((url, payload) => sender!.ask(url, payload)),
      onRealtime: ({ webSocket, streams, invoiceRequests: hub }) => {
        invoiceRequests = hub;
        metrics?.attachRealtime({
          webSocketClients: () => webSocket.clients,
          webSocketSubscriptions: () => webSocket.subscriptions,
          statusStreams: () => streams.size,
        });
      },
      statusFeed,
      health: () => (instances ? { ...instances.health() } : { role: 'single' }),
      rawRoutes: page?.routes,
      rawPrefixes: page?.prefixes,
    });
    if (invoiceRequests) {
      // invoice requests reaching a CLN node as onion messages, for offers Ferry answers for
      const stop = await answerOfferRequestsOn(lightning, invoiceRequests, logger.child('offer-requests'));
      closers.push(async () => stop());
    }
    const address = await listen(server, config.api.port, config.api.host);
    closers.push(() => stopServer(server));
    const apiUrl = `http://${address.address}:${address.port}`;
    logger.info('API listening', { url: apiUrl });
    const pageUrl = page && `${apiUrl}${page.path}`;
    if (pageUrl) logger.info('swap page served: open it in a browser', { url: pageUrl });
    let metricsUrl: string | undefined;
    // Metrics and admin are the operator's side: one that cannot listen (port taken, socket path too long) is
    // logged as an error, and Ferry serves swaps without it rather than not at all.
    if (metrics) {
      const metricsServer = createMetricsServer(metrics, logger.child('metrics'));
      try {
        const at = await listen(metricsServer, config.metrics.port, config.metrics.host);
        closers.push(() => stopServer(metricsServer));
        metricsUrl = `http://${at.address}:${at.port}/metrics`;
        logger.info('metrics listening', { url: metricsUrl });
      } catch (error) {
        logger.error('metrics not served', { host: config.metrics.host, port: config.metrics.port, error: (error as Error).message });
      }
    }
    let adminSocket: string | undefined;
    if (config.admin.enabled) {
      const path = adminSocketPath(config.dataDir, config.admin.socketPath);
      const service = new AdminService({ storage, chains, evm: connected.evm, lightning, swaps, alerts });
      try {
        const adminServer = await startAdminServer(service, path, logger.child('admin'));
        closers.push(() => stopServer(adminServer));
        adminSocket = path;
        logger.info('admin socket listening', { path });
      } catch (error) {
        logger.error('admin socket not served', { path, error: (error as Error).message });
      }
    }
    secrets.forget(); // start-up has read every secret it needs
    return { apiUrl, pageUrl, page, metricsUrl, adminSocket, devnet, chains, evm: connected.evm, storage, lightning, swaps, invoiceRequests, close };
  } catch (error) {
    await close();
    throw error;
  }
}
