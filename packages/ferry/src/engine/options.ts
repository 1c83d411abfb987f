// What the engine is built from, and the tunables with their defaults.
import type { OperatorAlerts } from '../alerts/index.ts';
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { Storage } from '../db/index.ts';
import type { Network, SwapKeys } from '@ferry/sdk/keys/index.js';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../swaps/pairs.ts';

export interface SwapEngineOptions {
  storage: Storage;
  /** The chains swapped on, by symbol. The engine registers its scripts with their watchers and starts them. */
  chains: ReadonlyMap<string, ChainBackend>;
  /** The account/contract chains swapped on (RBTC), by symbol; the engine subscribes to them and starts them. */
  contracts?: ReadonlyMap<string, ContractChain>;
  /** The operator's Lightning nodes, by the symbol of their currency. */
  lightning: ReadonlyMap<string, LightningBackend>;
  keys: SwapKeys;
  /**
   * This instance's id as a holder of the swap locks in the database (default: random per process). Keep it across
   * restarts (ferry start keeps it in the data directory) so locks held at a crash are taken back at once.
   */
  instanceId?: string;
  /**
   * One of several instances on one PostgreSQL database: until start() (when this instance becomes the leader) it
   * serves API calls only, performing no effects (they wait in the database) and following no invoice. Default false.
   */
  standby?: boolean;
  /** Default: [DEFAULT_BTC_PAIR]. */
  pairs?: PairConfig[];
  /** Default: 'regtest'. Decides the address and invoice network. */
  network?: Network;
  /** How long a submarine swap waits in transaction.claim.pending for the client's signature. Default 60 000. */
  claimDelayMs?: number;
  logger?: Logger;
  /** Where money events go (src/alerts); default: log lines only. */
  alerts?: OperatorAlerts;
  /** Expiry of reverse swap hold invoices. Default 3600. */
  invoiceExpirySeconds?: number;
  /** A submarine invoice must stay valid at least this long after it is handed to Ferry. Default 600. */
  minInvoiceValiditySeconds?: number;
  /** Lightning payment timeout. Default 60. */
  paymentTimeoutSeconds?: number;
  /** Routing fee limit in parts per million of the invoice (default 5000 = 0.5%), at least minRoutingFeeSat. */
  routingFeeLimitPpm?: number;
  /** Default 10. */
  minRoutingFeeSat?: number;
  /** A submarine lockup this many percent above the expected amount is refused. Default 2. */
  overpaymentTolerancePercent?: number;
  /** Minutes a commitment lockup's suggested timelock lies ahead (GET /v2/commitment/{currency}/details). Default 20160. */
  commitmentTimelockMinutes?: number;
  /**
   * Ferry pays a submarine invoice only while more than its final CLTV delta + this many Lightning (Bitcoin) blocks
   * remain before the timeout, and caps the payment's time lock this many blocks short of it. Default 6.
   */
  paymentSafetyBlocks?: number;
  /** Hold invoice final CLTV delta = reverse timeout + this. Default 24. */
  reverseCltvMarginBlocks?: number;
  /**
   * The miner fee prepay of v1 reverse swaps on UTXO chains: the lockup's miner fee is a second invoice, paid beside
   * the hold invoice before Ferry locks (`prepay.minerfee` in GET /getpairs). Default false.
   */
  prepayMinerFee?: boolean;
  /** Ferry locks for a reverse swap only while its held HTLCs expire at least this many blocks after the timeout. Default 6. */
  minHtlcMarginBlocks?: number;
  /** Ferry locks for a reverse swap only while at least this many blocks remain until its timeout. Default: half of the timeout. */
  minReverseLockupBlocks?: number;
  /** How often the node's pending invoices are listed to follow unpaid reverse swaps (one call for all of them). Default 5000. */
  invoicePollMs?: number;
  /** First retry delay of a failed effect (doubling up to effectRetryMaxMs). Default 1000. */
  effectRetryMs?: number;
  /** Default 60 000. */
  effectRetryMaxMs?: number;
  /**
   * Failed attempts after which an effect is given up: marked failed in the effect log (shown by `ferry admin swaps`,
   * counted in metrics, retried with `ferry admin retry`) and logged at error. Default 50 (about 45 minutes).
   */
  effectMaxAttempts?: number;
  /**
   * Blocks one of Ferry's own lockups, claims or refunds may wait unconfirmed in the mempool before it is replaced
   * at a higher fee (legs/fee-bump.ts); 0: never bump. Default 6.
   */
  feeBumpAfterBlocks?: number;
  /** Blocks one of Ferry's own transactions may wait unconfirmed before the 'unconfirmed' alert; 0: never. Default 6. */
  alertUnconfirmedAfterBlocks?: number;
}

export interface EngineSettings {
  network: Network;
  pairs: Map<string, PairConfig>;
  claimDelayMs: number;
  invoiceExpirySeconds: number;
  minInvoiceValiditySeconds: number;
  paymentTimeoutSeconds: number;
  routingFeeLimitPpm: number;
  minRoutingFeeSat: number;
  overpaymentTolerancePercent: number;
  commitmentTimelockMinutes: number;
  paymentSafetyBlocks: number;
  reverseCltvMarginBlocks: number;
  prepayMinerFee: boolean;
  minHtlcMarginBlocks: number;
  minReverseLockupBlocks: number | undefined;
  invoicePollMs: number;
  effectRetryMs: number;
  effectRetryMaxMs: number;
  effectMaxAttempts: number;
  feeBumpAfterBlocks: number;
  alertUnconfirmedAfterBlocks: number;
}

export function resolveSettings(options: SwapEngineOptions): EngineSettings {
  const pairs = options.pairs ?? [DEFAULT_BTC_PAIR];
  return {
    network: options.network ?? 'regtest',
    pairs: new Map(pairs.map((pair) => [pair.id, pair])),
    claimDelayMs: options.claimDelayMs ?? 60_000,
    invoiceExpirySeconds: options.invoiceExpirySeconds ?? 3600,
    minInvoiceValiditySeconds: options.minInvoiceValiditySeconds ?? 600,
    paymentTimeoutSeconds: options.paymentTimeoutSeconds ?? 60,
    routingFeeLimitPpm: options.routingFeeLimitPpm ?? 5_000,
    minRoutingFeeSat: options.minRoutingFeeSat ?? 10,
    overpaymentTolerancePercent: options.overpaymentTolerancePercent ?? 2,
    commitmentTimelockMinutes: options.commitmentTimelockMinutes ?? 14 * 24 * 60,
    paymentSafetyBlocks: options.paymentSafetyBlocks ?? 6,
    reverseCltvMarginBlocks: options.reverseCltvMarginBlocks ?? 24,
    prepayMinerFee: options.prepayMinerFee ?? false,
    minHtlcMarginBlocks: options.minHtlcMarginBlocks ?? 6,
    minReverseLockupBlocks: options.minReverseLockupBlocks,
    invoicePollMs: options.invoicePollMs ?? 5_000,
    effectRetryMs: options.effectRetryMs ?? 1_000,
    effectRetryMaxMs: options.effectRetryMaxMs ?? 60_000,
    effectMaxAttempts: options.effectMaxAttempts ?? 50,
    feeBumpAfterBlocks: options.feeBumpAfterBlocks ?? 6,
    alertUnconfirmedAfterBlocks: options.alertUnconfirmedAfterBlocks ?? 6,
  };
}
