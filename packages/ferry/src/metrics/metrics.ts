// Ferry's Prometheus metrics, on a registry of its own (not prom-client's global one: tests run several Ferrys in
// one process). Counters and histograms are fed as things happen (HTTP requests; swaps created, succeeded and
// failed, as this instance stores them and commits their transitions; operator alerts this instance raised);
// gauges that mirror state — swaps by type and status, the effect queue, watcher lag, open WebSocket and SSE
// clients, active alerts, money at risk — are read at scrape time, so they cannot drift from the database.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AlertKind, AlertSeverity } from '../alerts/index.ts';
import type { Storage, SwapRecord } from '../db/index.ts';
import { machineFor, outcomeEntered } from '../swaps/index.ts';
import { moneyAtRisk, RISK_REASONS } from './money-at-risk.ts';

/** Every alert kind, so ferry_alerts_active has a series (0) for each. */
export const ALERT_KINDS: readonly AlertKind[] = ['lockupLost', 'lockupFound', 'fundsLost', 'effectFailed', 'lowBalance', 'unconfirmed', 'paymentLost'];

/** Where swaps are created and change status (SwapEngine.onSwapEvents). */
export interface SwapEvents {
  onSwapEvents(hooks: { created(swap: SwapRecord): void; transition(swap: SwapRecord, from: string): void }): void;
}

/** A chain whose watcher keeps a checkpoint under `symbol`: its lag is the node's height minus the checkpoint's. */
export interface WatchedChain {
  symbol: string;
  height(): Promise<number>;
}

/** Live counts of the API's push channels. */
export interface RealtimeCounts {
  webSocketClients(): number;
  webSocketSubscriptions(): number;
  statusStreams(): number;
}

export interface MetricSources {
  storage: Storage;
  chains: WatchedChain[];
  realtime?: RealtimeCounts;
}

export class FerryMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly created: Counter<'type' | 'pair'>;
  private readonly succeeded: Counter<'type' | 'pair'>;
  private readonly failed: Counter<'type' | 'pair' | 'status'>;
  private readonly alerts: Counter<'kind' | 'severity'>;
  private realtime?: RealtimeCounts;

  constructor(private readonly sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'ferry_' });
    this.realtime = sources.realtime;
    this.requests = new Counter({
      name: 'ferry_http_requests_total',
      help: 'HTTP requests answered, by route pattern (or "limited" for 429s, "unmatched" for unknown paths) and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'ferry_http_request_duration_seconds',
      help: 'Time from request to the end of the answer, by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.created = new Counter({ name: 'ferry_swaps_created_total', help: 'Swaps created, by type and pair', labelNames: ['type', 'pair'], registers });
    this.succeeded = new Counter({
      name: 'ferry_swaps_succeeded_total',
      help: "Swaps that entered a succeeded status of their machine, by type and pair",
      labelNames: ['type', 'pair'],
      registers,
    });
    this.failed = new Counter({
      name: 'ferry_swaps_failed_total',
      help: 'Swaps that entered a failed status of their machine, by type, pair and that status',
      labelNames: ['type', 'pair', 'status'],
      registers,
    });
    this.alerts = new Counter({
      name: 'ferry_alerts_total',
      help: 'Operator alerts raised (each active (kind, key) once), by kind and severity',
      labelNames: ['kind', 'severity'],
      registers,
    });
    const storage = sources.storage;
    new Gauge({
      name: 'ferry_alerts_active',
      help: 'Operator alerts active (raised and not cleared), by kind',
      labelNames: ['kind'],
      registers,
      async collect() {
        const counts = await storage.alerts.activeCounts();
        for (const kind of new Set([...ALERT_KINDS, ...counts.keys()])) this.set({ kind }, counts.get(kind) ?? 0);
      },
    });
    const chainSymbols = () => sources.chains.map((chain) => chain.symbol);
    new Gauge({
      name: 'ferry_money_at_risk_sat',
      help: "Operator money at risk, in the chain's base units: Ferry's lockups or payments against user lockups that left the chain (lockupLost), those the user claimed meanwhile (fundsLost), reverse swaps whose held payment is gone while Ferry's lockup can be claimed (paymentLost)",
      labelNames: ['chain', 'reason'],
      registers,
      async collect() {
        this.reset();
        for (const chain of chainSymbols()) for (const reason of RISK_REASONS) this.set({ chain, reason }, 0);
        for (const risk of await moneyAtRisk(storage)) this.inc({ chain: risk.chain, reason: risk.reason }, risk.amount);
      },
    });
    new Gauge({
      name: 'ferry_swaps',
      help: 'Swaps stored, by type and status',
      labelNames: ['type', 'status'],
      registers,
      async collect() {
        this.reset();
        const rows = await storage.database.query<{ type: string; status: string; n: number | string }>(
          'SELECT type, status, COUNT(*) AS n FROM swaps GROUP BY type, status',
        );
        for (const row of rows) this.set({ type: row.type, status: row.status }, Number(row.n));
      },
    });
    new Gauge({
      name: 'ferry_effects',
      help: 'Effects in the effect log by state: pending is the queue still to perform, failed the ones given up',
      labelNames: ['state'],
      registers,
      async collect() {
        const rows = await storage.database.query<{ state: string; n: number | string }>(
          "SELECT state, COUNT(*) AS n FROM swap_effects WHERE state IN ('pending', 'failed') GROUP BY state",
        );
        this.set({ state: 'pending' }, 0);
        this.set({ state: 'failed' }, 0);
        for (const row of rows) this.set({ state: row.state }, Number(row.n));
      },
    });
    const chains = sources.chains;
    new Gauge({
      name: 'ferry_watcher_lag_blocks',
      help: "Blocks between the chain node's tip and the last block Ferry's watcher processed",
      labelNames: ['chain'],
      registers,
      async collect() {
        this.reset();
        await Promise.all(
          chains.map(async (chain) => {
            const checkpoint = await storage.checkpoints.get(chain.symbol);
            // an unreachable node is no lag figure: leave the series out rather than fail the scrape
            const tip = await chain.height().catch(() => undefined);
            if (checkpoint && tip !== undefined) this.set({ chain: chain.symbol }, Math.max(0, tip - checkpoint.height));
          }),
        );
      },
    });
    const realtime = () => this.realtime;
    new Gauge({
      name: 'ferry_websocket_connections',
      help: 'Open /v2/ws connections',
      registers,
      collect() {
        this.set(realtime()?.webSocketClients() ?? 0);
      },
    });
    new Gauge({
      name: 'ferry_websocket_subscriptions',
      help: 'Swaps watched by all /v2/ws connections together',
      registers,
      collect() {
        this.set(realtime()?.webSocketSubscriptions() ?? 0);
      },
    });
    new Gauge({
      name: 'ferry_sse_streams',
      help: 'Open /streamswapstatus streams',
      registers,
      collect() {
        this.set(realtime()?.statusStreams() ?? 0);
      },
    });
  }

  /** The API's push channels exist only once the API server does. */
  attachRealtime(counts: RealtimeCounts): void {
    this.realtime = counts;
  }

  /** Counts swaps as the engine creates them and as their transitions enter a succeeded or failed status. */
  followSwaps(swaps: SwapEvents): void {
    swaps.onSwapEvents({
      created: (swap) => this.created.inc({ type: swap.type, pair: swap.pair }),
      transition: (swap, from) => {
        const outcome = outcomeEntered(machineFor(swap.type), from, swap.status);
        if (outcome === 'succeeded') this.succeeded.inc({ type: swap.type, pair: swap.pair });
        if (outcome === 'failed') this.failed.inc({ type: swap.type, pair: swap.pair, status: swap.status });
      },
    });
  }

  /** One operator alert raised by this instance. */
  countAlert = (kind: AlertKind, severity: AlertSeverity): void => {
    this.alerts.inc({ kind, severity });
  };

  observeRequest = (method: string, route: string, status: number, seconds: number): void => {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  };
}
