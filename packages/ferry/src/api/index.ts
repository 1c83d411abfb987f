// Assembles the API: every route of v1 and v2 on one router, served by one HTTP server.
import { OfferRegistry } from '../lightning/bolt12/registry.ts';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ChainRegistry } from '@ferry/sdk/chains/backend.js';
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { StatusFeed } from '../events/index.ts';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import { version } from '../version.ts';
import { SCHEMA_VERSION } from '../db/migrations.ts';
import { Router } from './http/router.ts';
import { createHttpServer, type RawHandler } from './http/server.ts';
import { ChainReadings, type EvmChains } from './chain-routes.ts';
import { chainRoutesV1 } from './v1/chain.ts';
import { chainRoutesV2 } from './v2/chain.ts';
import { nodeRoutes } from './nodes.ts';
import { submarineRoutes } from './v2/swap-submarine.ts';
import { reverseRoutes } from './v2/swap-reverse.ts';
import { chainSwapRoutes } from './v2/swap-chain.ts';
import { keptStatusReads, swapStatusRoutes } from './v2/swap-status.ts';
import { swapStatusRoutesV1 } from './v1/swap-status.ts';
import { createSwapRouteV1 } from './v1/create-swap.ts';
import { routingHintsRouteV1 } from './v1/routing-hints.ts';
import { pairRoutesV1 } from './v1/pairs.ts';
import { referralRoutesV1, type ReferralCredential } from './v1/referrals.ts';
import { swapCallRoutesV1 } from './v1/swap-calls.ts';
import { restoreRoutes } from './v2/swap-restore.ts';
import { assetRescueRoutes } from './v2/asset-rescue.ts';
import { swapExtraRoutes, type ServiceNotices } from './v2/swap-extras.ts';
import { lightningRoutes } from './v2/lightning.ts';
import { referralRoutesV2 } from './v2/referral.ts';
import { unsupportedRoutes } from './v2/unsupported.ts';
import { commitmentRoutes } from './v2/commitment.ts';
import { bolt12Routes } from './v2/bolt12.ts';

import { apiDocumentRoute } from './v2/api-document.ts';
import { StatusStreams, defaultStreamOptions, streamPath, type StatusStreamOptions } from './sse/stream.ts';
import { healthHandler, healthPath, type HealthReport } from './health.ts';
import { attachWebSocket, defaultWebSocketOptions, type SwapWebSocket, type WebSocketOptions } from './ws/server.ts';
import { InvoiceRequestHub } from './ws/invoice-requests.ts';
import { HttpLimiter } from './limits/http-limiter.ts';
import { noLimits, type ApiLimits } from './limits/options.ts';
import type { WebhookPolicy } from '../webhooks/hook.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';

export interface ApiDependencies {
  chains: ChainRegistry;
  /** The EVM chains (RBTC) by symbol: heights, fees and contracts; none: the contract routes answer 501. */
  evm?: EvmChains;
  lightning: Record<string, LightningBackend>; // by chain symbol: BTC
  logger: Logger;
  maxBodyBytes: number;
  /** The swap engine; without it the swap routes, /v2/ws and /streamswapstatus are not served. */
  swaps?: SwapService;
  /**
   * Where WebSocket and SSE clients hear about status changes. Defaults to an in-process feed fed by
   * swaps.onStatus; pass one to feed it from elsewhere (e.g. another instance's notifications).
   */
  statusFeed?: StatusFeed;
  webSocket?: Partial<WebSocketOptions>;
  statusStream?: Partial<StatusStreamOptions>;
  /** Who may read referral reports (GET /referrals/query); none: every such call answers 401. */
  referralCredentials?: readonly ReferralCredential[];
  /** GET /v2/infos and /v2/warnings; none: both answer []. */
  notices?: ServiceNotices;
  /** Rates, connection caps and timeouts; none: no limits (Ferry itself passes the configured ones). */
  limits?: ApiLimits;
  /** Told of every answered request (route pattern, status, seconds): metrics. */
  observeRequest?: (method: string, route: string, status: number, seconds: number) => void;
  /** Swap status webhooks (`webhook` in the v2 create calls); none: the field is ignored. */
  webhooks?: { registry: Webhooks; policy: WebhookPolicy };
  /**
   * BOLT12 invoice requests for offers wallets subscribed to over the WebSocket; the Lightning backend that receives
   * invoice requests calls its `requestInvoice`. None: the API makes its own (and hands it to onRealtime).
   */
  invoiceRequests?: InvoiceRequestHub;
  /** BOLT12 offers registered through /v2/lightning/{currency}/bolt12; none: the router keeps its own. */
  offers?: OfferRegistry;
  /**
   * One signed call to an offer's webhook (WebhookSender.ask): with `offers`, an invoice request for an offer no
   * wallet subscribed to is asked at the URL it was registered with. None: such requests find no subscriber.
   */
  askWebhook?: (url: string, payload: unknown) => Promise<{ status: number; body: string }>;
  /** Handed the push channels once attached: metrics read their counts. */
  onRealtime?: (channels: { webSocket: SwapWebSocket; streams: StatusStreams; invoiceRequests: InvoiceRequestHub }) => void;
  /** GET /health: this instance's role and state; none: the route is not served. */
  health?: HealthReport;
  /** More handlers that own their response, by exact path: the swap page (src/page/routes.ts). */
  rawRoutes?: ReadonlyMap<string, RawHandler>;
  /** Handlers for every path under a prefix, looked at only for paths nothing else serves: the swap page's chunks. */
  rawPrefixes?: ReadonlyArray<{ prefix: string; handler: RawHandler }>;
  /**
   * GET /version's `databaseSchemaVersion`: the schema version of the database this instance is connected to, read
   * at each call (a newer instance may migrate it compatibly while this one runs); none: the field is left out.
   */
  databaseSchemaVersion?: () => Promise<number>;
}

/** The HTTP server's share of the limits: request rates, socket caps and timeouts. */
function httpOptions(deps: ApiDependencies) {
  const limits = deps.limits ?? noLimits;
  return {
    logger: deps.logger,
    maxBodyBytes: deps.maxBodyBytes,
    limiter: deps.limits ? new HttpLimiter(limits) : undefined,
    sockets: deps.limits ? limits : undefined,
    observe: deps.observeRequest,
  };
}

/** The WebSocket's share: per-connection and total caps from the limits, explicit webSocket options on top. */
function webSocketOptions(deps: ApiDependencies): WebSocketOptions {
  const limits = deps.limits;
  return {
    ...defaultWebSocketOptions,
    ...(limits && {
      maxSubscriptions: limits.wsSubscriptionsPerConnection,
      maxTotalSubscriptions: limits.wsSubscriptions,
      messagesPerMinute: limits.wsMessagesPerMinute,
      maxConnectionsPerIp: limits.wsConnectionsPerIp,
      maxConnections: limits.wsConnections,
    }),
    ...deps.webSocket,
  };
}

export function createRouter(deps: ApiDependencies): Router {
  const router = new Router();
  const versions = async () => ({
    body: { version, schemaVersion: SCHEMA_VERSION, ...(deps.databaseSchemaVersion && { databaseSchemaVersion: await deps.databaseSchemaVersion() }) },
  });
  router.get('/version', versions);
  router.get('/v2/version', versions);
  const refundTimeout = deps.swaps?.refundTimeout?.bind(deps.swaps);
  const readings = new ChainReadings(deps.chains, deps.evm);
  chainRoutesV1(router, readings, refundTimeout);
  chainRoutesV2(router, readings, refundTimeout);
  nodeRoutes(router, deps.lightning, deps.chains);
  routingHintsRouteV1(router, deps.lightning);
  lightningRoutes(router, deps.lightning);
  unsupportedRoutes(router);
  bolt12Routes(router, deps.offers ?? new OfferRegistry(), { lightning: deps.lightning, invoiceRequests: deps.invoiceRequests }, deps.swaps);
  if (deps.swaps) {
    submarineRoutes(router, deps.swaps);
    reverseRoutes(router, deps.swaps);
    chainSwapRoutes(router, deps.swaps);
    swapStatusRoutesV1(router, deps.swaps);
    swapStatusRoutes(router, deps.swaps);
    pairRoutesV1(router, deps.swaps);
    createSwapRouteV1(router, deps.swaps, Object.keys(deps.lightning));
    swapCallRoutesV1(router, deps.swaps);
    referralRoutesV1(router, deps.swaps, deps.referralCredentials ?? []);
    restoreRoutes(router, deps.swaps);
    swapExtraRoutes(router, deps.swaps, deps.notices);
    assetRescueRoutes(router, deps.swaps);
    commitmentRoutes(router, deps.swaps);
    referralRoutesV2(router, deps.swaps, deps.referralCredentials ?? []);
    if (deps.webhooks) webhookRoutes(router, deps.swaps, deps.webhooks.registry, deps.webhooks.policy);
  }
  apiDocumentRoute(router);
  return router;
}

export function createApiServer(given: ApiDependencies): Server {
  // one hub for the WebSocket's `invoice.request` channel (and the offers' webhooks) and the bolt12 fetch route
  const { offers, askWebhook } = given;
  const webhook = offers && askWebhook ? { find: (bytes: Uint8Array) => offers.find(bytes), ask: askWebhook } : undefined;
  const deps: ApiDependencies = given.swaps ? { ...given, invoiceRequests: given.invoiceRequests ?? new InvoiceRequestHub(undefined, webhook) } : given;
  const router = createRouter(deps);
  const http = httpOptions(deps);
  if (!deps.swaps) return createHttpServer({ router, ...http, rawRoutes: new Map(deps.rawRoutes), rawPrefixes: deps.rawPrefixes });
  const logger = deps.logger;
  const feed = deps.statusFeed ?? new StatusFeed((error, id) => logger.error('status listener failed', { swap: id, error: String(error) }));
  const disconnect = deps.statusFeed ? () => {} : feed.connect(deps.swaps);
  const streams = new StatusStreams(deps.swaps, feed, logger.child('sse'), { ...defaultStreamOptions, ...deps.statusStream });
  const rawRoutes = new Map<string, RawHandler>(deps.rawRoutes);
  rawRoutes.set(streamPath, (request: IncomingMessage, response: ServerResponse, url: URL) => streams.handle(request, response, url));
  if (deps.health) rawRoutes.set(healthPath, healthHandler(deps.health));
  const server = createHttpServer({ router, ...http, rawRoutes, rawPrefixes: deps.rawPrefixes, keptReads: keptStatusReads(router, deps.swaps), keptRoute: '/v2/swap/{id}' });
  const addresses = http.limiter?.addresses;
  const invoiceRequests = deps.invoiceRequests!;
  const webSocket = attachWebSocket(server, { swaps: deps.swaps, feed, logger: logger.child('ws'), addresses, invoiceRequests }, webSocketOptions(deps));
  deps.onRealtime?.({ webSocket, streams, invoiceRequests });

  // Upgraded sockets and open streams would otherwise keep server.close() waiting forever.
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    disconnect();
    webSocket.close();
    streams.close();
    return close(callback);
  };
  return server;
}
