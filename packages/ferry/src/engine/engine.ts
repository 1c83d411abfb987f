// SwapEngine: the SwapService the API calls. It drives every swap through its state machine (src/swaps), each
// swap type composed of legs (./legs) on the chains and Lightning nodes it is given by symbol. Every change is a
// stored transition; every side effect an entry of the effect log, performed after commit and replayed after a
// restart.
import type { SwapRecord } from '../db/index.ts';
import { silentLogger } from '../log/index.ts';
import { invalidPairHash } from '@ferry/sdk/protocol/index.js';
import type {
  ChainClaimDetailsBody,
  ChainClaimRequest,
  ChainPairBody,
  ChainTransactionsBody,
  CreateChainRequest,
  CreateChainResponse,
  CreateEvmChainResponse,
  CreateReverseRequest,
  CreateReverseResponse,
  CreateEvmReverseResponse,
  CreateEvmSubmarineResponse,
  CreateSubmarineRequest,
  CreateSubmarineResponse,
  LockupTransactionBody,
  PairList,
  PartialSignatureBody,
  ReferralReport,
  ReferralStats,
  PairStatsBody,
  ReverseBip21Body,
  AssetRescueBroadcastBody,
  AssetRescueBroadcastRequest,
  AssetRescueSetupBody,
  AssetRescueSetupRequest,
  CommitmentLockupDetailsBody,
  CommitmentRefundRequest,
  CommitmentRequest,
  RescuableSwapBody,
  RescueRequest,
  RestoreRequest,
  RestorableSwapBody,
  RestoreIndexBody,
  RefundRequest,
  ReverseClaimRequest,
  CovenantRegistration,
  ReversePairBody,
  SetInvoiceResponse,
  SubmarineClaimDetailsBody,
  SubmarinePairBody,
  SwapService,
  SwapStatusBody,
  V1CreateReverseResponse,
  V1CreateSubmarineResponse,
  V1PairBody,
  V1TimeoutsBody,
} from '@ferry/sdk/protocol/index.js';
import { chainFollowedInAny } from '@ferry/sdk/swaps/derive.js';
import { machineFor } from '@ferry/sdk/swaps/machines.js';
import { reversePairBody, submarinePairBody, validatePair, type MinerFees, type PairConfig } from '../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { ChainEventRouter, needsChain } from './chain-events.ts';
import { LogAlerts } from '../alerts/index.ts';
import { lockupLossAlerts } from './lockup-loss-alerts.ts';
import { anyChainOf, chainOf, currentMinerFees, type EngineContext } from './context.ts';
import { KeyIndexes } from './key-indexes.ts';
import { reverseData } from './data.ts';
import { EffectRunner } from './effects.ts';
import { InvoiceWatch } from './legs/hold-invoice.ts';
import { lockupLegsOf } from './legs/lockup-leg.ts';
import { CooperativeClaims } from './legs/user-lockup.ts';
import { CovenantClaimer } from './covenant-claimer.ts';
import { NamedLocks } from './locks.ts';
import { resolveSettings, type SwapEngineOptions } from './options.ts';
import { referralReport } from './referrals.ts';
import { referralStats } from './referral-stats.ts';
import { FeeHistory } from './fee-history.ts';
import { reverseBip21 } from './swap-types/reverse-hint.ts';
import { assetRescueBroadcast, assetRescueSetup } from './asset-rescue.ts';
import { commit, commitmentDetails } from './commitments.ts';
import { refundCommitment } from './commitment-refund.ts';
import { rescueSwaps, restoreIndex, restoreSwaps } from './restore/index.ts';
import { reverseInvoiceExpiry, setMetadata } from './metadata.ts';
import { refundTimeoutOf, type RefundTimeout } from './refund-timeout.ts';
import { SigningSessions } from './signing-sessions.ts';
import { StatusCache } from './status-cache.ts';
import { statusBody } from './status-body.ts';
import { SwapStore } from './swap-store.ts';
import { effectKinds, performEffect } from './swap-types/index.ts';
import { createReverse, reverseClaim, reverseLockupTransaction } from './swap-types/reverse.ts';
import { createLegacyReverse, createLegacySubmarine } from './swap-types/legacy-create.ts';
import { chainPairOf, createChain, quotedChainFees, type ChainMinerFees, type CreateChainResult } from './swap-types/chain.ts';
import { acceptChainQuote, chainClaim, chainClaimDetails, chainCreateResponse, chainQuote, chainPairBody, chainPairs, chainRefund, chainRefundSignature, chainTransactions } from './swap-types/chain-calls.ts';
import {
  createSubmarine,
  setSubmarineInvoice,
  submarineInvoiceAmountFor,
  submarineLockupTransaction,
  submarinePreimageOf,
  submarineRefund,
  submarineRefundSignature,
} from './swap-types/submarine.ts';
import { currentV1Pair, v1TimeoutsBody } from './v1-pairs.ts';
import { WatchIndex } from './watch-index.ts';

export class SwapEngine implements SwapService {
  private readonly ctx: EngineContext;
  private readonly router: ChainEventRouter;
  /** One per Lightning node, by its symbol. */
  private readonly invoices = new Map<string, InvoiceWatch>();
  private readonly claims: CooperativeClaims;
  private readonly covenants: CovenantClaimer;
  private readonly feeHistory: FeeHistory;
  private started = false;
  private readonly standby: boolean;

  constructor(options: SwapEngineOptions) {
    const settings = resolveSettings(options);
    for (const pair of settings.pairs.values()) {
      validatePair(pair);
      if (!options.chains.has(pair.base) && !options.contracts?.has(pair.base)) throw new Error(`pair ${pair.id}: no chain backend for ${pair.base}`);
      if (!options.lightning.has(pair.quote)) throw new Error(`pair ${pair.id}: no Lightning backend for ${pair.quote}`);
    }
    const logger = options.logger ?? silentLogger;
    const alerts = options.alerts ?? new LogAlerts(logger.child('alerts'));
    const effects = new EffectRunner(options.storage, logger.child('effects'), {
      alerts,
      retryBaseMs: settings.effectRetryMs,
      retryMaxMs: settings.effectRetryMaxMs,
      maxAttempts: settings.effectMaxAttempts,
      held: options.standby === true,
    });
    this.standby = options.standby === true;
    const locks = new NamedLocks(options.storage.locks, { owner: options.instanceId });
    // Instances sharing a database keep status bodies only once they hear each other's writes (startInstances).
    const swaps = new SwapStore(options.storage, locks, (records) => effects.enqueue(records), logger, new StatusCache(!this.standby));
    this.ctx = {
      storage: options.storage,
      chains: options.chains,
      contracts: options.contracts ?? new Map(),
      lightning: options.lightning,
      keys: options.keys,
      logger,
      alerts,
      settings,
      swaps,
      effects,
      watching: new WatchIndex((symbol) => chainOf(this.ctx, symbol).watcher),
      locks,
      sessions: new SigningSessions(options.storage),
      keyIndexes: new KeyIndexes(options.storage),
    };
    this.router = new ChainEventRouter(this.ctx);
    for (const [symbol, node] of options.lightning) this.invoices.set(symbol, new InvoiceWatch(this.ctx, node));
    this.claims = new CooperativeClaims(this.ctx);
    this.covenants = new CovenantClaimer(this.ctx);
    this.feeHistory = new FeeHistory({
      samples: options.storage.feeSamples,
      sources: { submarine: () => this.submarinePairs(), reverse: () => this.reversePairs(), chain: () => this.chainPairs() },
      routingFeeLimitPpm: settings.routingFeeLimitPpm,
      logger: logger.child('fee-history'),
    });

    const ctx = this.ctx;
    for (const kind of effectKinds()) effects.register(kind, (effect) => performEffect(ctx, effect));
    swaps.onTransition((swap) => this.afterTransition(swap));
    swaps.onTransition((swap) => this.router.timeoutIfPassed(swap));
    swaps.onTransition((swap, before, event) => lockupLossAlerts(ctx, before, swap, event));
  }

  /**
   * Registers every active swap's scripts, outpoints and invoices, replays pending effects, starts the chain
   * watchers (their first round runs before this resolves), checks timeouts at each chain's current height and
   * broadcasts the covenant claims registered for lockups already out.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.router.attach();
    this.ctx.effects.release();
    await this.resync();
    for (const watch of this.invoices.values()) watch.start();
    for (const chain of this.ctx.chains.values()) await chain.watcher.start();
    for (const chain of this.ctx.contracts.values()) await chain.start();
    for (const chain of [...this.ctx.chains.values(), ...this.ctx.contracts.values()]) await this.router.timeouts(await chain.height(), chain.symbol);
    await this.covenants.resume();
    this.feeHistory.start();
  }

  /**
   * Follows every active swap and queues every pending effect, whoever wrote them: at the start, and on a leader
   * after it may have missed other instances' notices (its notice connection was down).
   */
  async resync(): Promise<void> {
    for (const swap of await this.ctx.storage.swaps.listByStatus(chainFollowedInAny())) this.follow(swap);
    this.ctx.effects.enqueue(await this.ctx.storage.effects.listPending());
  }

  /**
   * Takes up a swap another instance created or changed (a notice from the database): follows or forgets it on
   * chain and queues its pending effects. Only a started engine (the leader) does anything.
   */
  async adopt(id: string): Promise<void> {
    if (!this.started) return;
    const swap = await this.ctx.swaps.get(id);
    if (swap === undefined) return;
    if (needsChain(swap)) this.follow(swap);
    else this.afterTransition(swap);
    this.ctx.effects.enqueue(await this.ctx.storage.effects.listPending({ swapId: id }));
  }

  /** Queues every pending effect now (a leader's safety net against a lost notice). */
  async sweepEffects(): Promise<void> {
    if (this.started) this.ctx.effects.enqueue(await this.ctx.storage.effects.listPending());
  }

  /** Stops following chains and Lightning and waits briefly for effects in progress; the watchers keep running. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.router.stop();
    this.feeHistory.stop();
    for (const watch of this.invoices.values()) watch.stop();
    await this.ctx.effects.stop();
  }

  submarinePairs(): Promise<PairList<SubmarinePairBody>> {
    return this.pairList((pair, fees) => [pair.base, pair.quote, submarinePairBody(pair, fees)]);
  }

  reversePairs(): Promise<PairList<ReversePairBody>> {
    // Reverse pairs are listed from the Lightning side: { BTC (Lightning): { BTC (chain): pair } }.
    return this.pairList((pair, fees) => [pair.quote, pair.base, reversePairBody(pair, fees)]);
  }

  chainPairs(): Promise<PairList<ChainPairBody>> {
    return chainPairs(this.ctx);
  }

  async v1Pairs(): Promise<Record<string, V1PairBody>> {
    const out: Record<string, V1PairBody> = {};
    for (const pair of this.ctx.settings.pairs.values()) out[pair.id] = await currentV1Pair(this.ctx, pair);
    return out;
  }

  /** GET /getpairs `info`: `prepay.minerfee` while v1 reverse swaps on UTXO chains ask for the miner fee up front. */
  v1PairsInfo(): string[] {
    return this.ctx.settings.prepayMinerFee ? ['prepay.minerfee'] : [];
  }

  async v1Timeouts(): Promise<Record<string, V1TimeoutsBody>> {
    const out: Record<string, V1TimeoutsBody> = {};
    for (const pair of this.ctx.settings.pairs.values()) out[pair.id] = v1TimeoutsBody(pair, anyChainOf(this.ctx, pair.base));
    return out;
  }

  referralReport(referralId?: string): Promise<ReferralReport> {
    return referralReport(this.ctx, referralId);
  }

  referralStats(referralId?: string): Promise<ReferralStats> {
    return referralStats(this.ctx, referralId);
  }

  reverseBip21(invoice: string): Promise<ReverseBip21Body | undefined> {
    return reverseBip21(this.ctx, invoice);
  }

  assetRescueSetup(currency: string, request: AssetRescueSetupRequest): Promise<AssetRescueSetupBody> {
    return assetRescueSetup(this.ctx, currency, request);
  }

  assetRescueBroadcast(currency: string, request: AssetRescueBroadcastRequest): Promise<AssetRescueBroadcastBody> {
    return assetRescueBroadcast(this.ctx, currency, request);
  }

  commitmentDetails(currency: string): Promise<CommitmentLockupDetailsBody> {
    return commitmentDetails(this.ctx, currency);
  }

  commit(currency: string, request: CommitmentRequest): Promise<Record<string, never>> {
    return commit(this.ctx, currency, request);
  }

  refundCommitment(currency: string, request: CommitmentRefundRequest): Promise<{ signature: string }> {
    return refundCommitment(this.ctx, currency, request);
  }

  /** GET /v2/swap/{type}/stats/{from}/{to}: the fees this pair was listed with over the last week. */
  pairStats(swapType: string, from: string, to: string): Promise<PairStatsBody | undefined> {
    return this.feeHistory.stats(swapType, from, to);
  }

  restoreSwaps(request: RestoreRequest): Promise<RestorableSwapBody[]> {
    return restoreSwaps(this.ctx, request);
  }

  rescueSwaps(request: RescueRequest): Promise<RescuableSwapBody[]> {
    return rescueSwaps(this.ctx, request);
  }

  restoreIndex(request: RescueRequest): Promise<RestoreIndexBody> {
    return restoreIndex(this.ctx, request);
  }

  setMetadata(id: string, metadata: string): Promise<Record<string, never>> {
    return setMetadata(this.ctx, id, metadata);
  }

  async reverseInvoiceExpiry(): Promise<Record<string, Record<string, { min: number; max: number }>>> {
    return reverseInvoiceExpiry(this.ctx);
  }

  createSubmarine(request: CreateSubmarineRequest & { refundPublicKey: string }): Promise<CreateSubmarineResponse>;
  createSubmarine(request: CreateSubmarineRequest): Promise<CreateSubmarineResponse | CreateEvmSubmarineResponse>;
  createSubmarine(request: CreateSubmarineRequest): Promise<CreateSubmarineResponse | CreateEvmSubmarineResponse> {
    return createSubmarine(this.ctx, request);
  }

  setSubmarineInvoice(id: string, invoice: string, pairHash?: string): Promise<SetInvoiceResponse> {
    return setSubmarineInvoice(this.ctx, id, invoice, pairHash);
  }

  submarineInvoiceAmount(id: string): Promise<{ invoiceAmount: number }> {
    return submarineInvoiceAmountFor(this.ctx, id);
  }

  submarineTransaction(id: string): Promise<LockupTransactionBody> {
    return submarineLockupTransaction(this.ctx, id);
  }

  submarinePreimage(id: string): Promise<{ preimage: string }> {
    return submarinePreimageOf(this.ctx, id);
  }

  submarineClaimDetails(id: string): Promise<SubmarineClaimDetailsBody> {
    return this.claims.details(id);
  }

  submarineClaimSignature(id: string, signature: PartialSignatureBody): Promise<Record<string, never>> {
    return this.claims.sign(id, signature);
  }

  submarineRefund(id: string, request: RefundRequest): Promise<PartialSignatureBody> {
    return submarineRefund(this.ctx, id, request);
  }

  /** By the swap's id or its preimage hash, as the reference. */
  submarineRefundSignature(idOrPreimageHash: string): Promise<{ signature: string }> {
    return submarineRefundSignature(this.ctx, idOrPreimageHash);
  }

  /** A chain swap as the engine creates it (both sides, unshaped). */
  createChainSwap(request: CreateChainRequest): Promise<CreateChainResult> {
    return createChain(this.ctx, request);
  }

  async createChain(request: CreateChainRequest): Promise<CreateChainResponse | CreateEvmChainResponse> {
    const pair = chainPairOf(this.ctx, request.from, request.to);
    // A hash of the last minute's quotes prices the swap with that quote's fees, which the client checked.
    let quoted: ChainMinerFees | undefined;
    if (request.pairHash !== undefined) {
      quoted = await quotedChainFees(this.ctx, request.from, request.to, (fees) => chainPairBody(pair, fees).hash, request.pairHash);
      if (quoted === undefined) throw invalidPairHash();
    }
    return chainCreateResponse(this.ctx, await createChain(this.ctx, request, quoted), request.referralId);
  }

  chainTransactions(id: string): Promise<ChainTransactionsBody> {
    return chainTransactions(this.ctx, id);
  }

  chainClaimDetails(id: string): Promise<ChainClaimDetailsBody> {
    return chainClaimDetails(this.ctx, this.claims, id);
  }

  chainClaim(id: string, request: ChainClaimRequest): Promise<PartialSignatureBody | Record<string, never>> {
    return chainClaim(this.ctx, this.claims, id, request);
  }

  chainRefundSignature(id: string): Promise<{ signature: string }> {
    return chainRefundSignature(this.ctx, id);
  }

  chainRefund(id: string, request: RefundRequest): Promise<PartialSignatureBody> {
    return chainRefund(this.ctx, id, request);
  }

  chainQuote(id: string): Promise<{ amount: number }> {
    return chainQuote(this.ctx, id);
  }

  acceptChainQuote(id: string, amount: number): Promise<Record<string, never>> {
    return acceptChainQuote(this.ctx, id, amount);
  }

  createReverse(request: CreateReverseRequest & { claimPublicKey: string }): Promise<CreateReverseResponse>;
  createReverse(request: CreateReverseRequest): Promise<CreateReverseResponse | CreateEvmReverseResponse>;
  async createReverse(request: CreateReverseRequest): Promise<CreateReverseResponse | CreateEvmReverseResponse> {
    const response = await createReverse(this.ctx, request);
    this.watchHoldInvoices(await this.ctx.swaps.require(response.id));
    return response;
  }

  createLegacySubmarine(request: CreateSubmarineRequest): Promise<V1CreateSubmarineResponse> {
    return createLegacySubmarine(this.ctx, request);
  }

  async createLegacyReverse(request: CreateReverseRequest): Promise<V1CreateReverseResponse> {
    const { created, response } = await createLegacyReverse(this.ctx, request);
    this.watchHoldInvoices(created.record);
    return response;
  }

  reverseTransaction(id: string): Promise<LockupTransactionBody> {
    return reverseLockupTransaction(this.ctx, id);
  }

  reverseClaim(id: string, request: ReverseClaimRequest): Promise<PartialSignatureBody | Record<string, never>> {
    return reverseClaim(this.ctx, id, request);
  }

  registerCovenant(request: CovenantRegistration): Promise<Record<string, never>> {
    return this.covenants.register(request);
  }

  refundTimeout(txHex: string, currency?: string): Promise<RefundTimeout | undefined> {
    return refundTimeoutOf(this.ctx, txHex, currency);
  }

  async status(id: string): Promise<SwapStatusBody | undefined> {
    const swap = await this.ctx.swaps.get(id);
    return swap === undefined ? undefined : statusBody(swap);
  }

  /** GET /v2/swap/{id}'s body as JSON text, kept per swap until its row is written; undefined for an unknown id. */
  statusText(id: string): Promise<string | undefined> {
    return this.ctx.swaps.statusCache.read(id, async () => {
      const swap = await this.ctx.swaps.get(id);
      return swap === undefined ? undefined : JSON.stringify(statusBody(swap));
    });
  }

  /** The kept status body of a swap, if any: answered without a turn of the event loop. */
  keptStatusText(id: string): string | undefined {
    return this.ctx.swaps.statusCache.text(id);
  }

  /** Status bodies kept for reads: instances/index.ts drops them on other instances' writes. */
  get statusCache(): StatusCache {
    return this.ctx.swaps.statusCache;
  }

  onStatus(listener: (id: string, status: SwapStatusBody) => void): () => void {
    return this.ctx.swaps.onStatus(listener);
  }

  /** Follows swaps as they are created here and as their transitions commit here (the swap counters of src/metrics). */
  onSwapEvents(hooks: { created(swap: SwapRecord): void; transition(swap: SwapRecord, from: string): void }): void {
    this.ctx.swaps.onInsert((swap) => hooks.created(swap));
    this.ctx.swaps.onTransition((swap, before) => hooks.transition(swap, before.status));
  }

  /** Waits until the swap has no effect running or queued (for tests and callers that need a settled state). */
  whenIdle(id: string): Promise<void> {
    return this.ctx.effects.whenIdle(id);
  }

  /** Runs the timeout check for a height now instead of at the next block. */
  checkTimeouts(height: number): Promise<void> {
    return this.router.timeouts(height);
  }

  /** The operator's retry of a stuck swap: its failed effects pending again and queued; returns how many. */
  async retryEffects(id: string): Promise<number> {
    const reopened = await this.ctx.storage.effects.reopenFailed(id);
    this.ctx.effects.retry(reopened);
    return reopened.length;
  }

  /** Runs one chain's timeout check at its current height now (Ferry's timed-out lockups are refunded). */
  async checkChainTimeouts(symbol: string): Promise<number> {
    const height = await chainOf(this.ctx, symbol).height();
    await this.router.timeouts(height, symbol);
    return height;
  }

  /** Looks up every followed hold invoice now instead of at the next poll. */
  async pollInvoices(): Promise<void> {
    await Promise.all([...this.invoices.values()].map((watch) => watch.poll()));
  }

  private async minerFees(pair: PairConfig): Promise<MinerFees> {
    return currentMinerFees(anyChainOf(this.ctx, pair.base));
  }

  private async pairList<P>(entry: (pair: PairConfig, fees: MinerFees) => [string, string, P]): Promise<PairList<P>> {
    const out: PairList<P> = {};
    for (const pair of this.ctx.settings.pairs.values()) {
      const [from, to, body] = entry(pair, await this.minerFees(pair));
      (out[from] ??= {})[to] = body;
    }
    return out;
  }

  /** A standby leaves following invoices to the leader, which adopts the swap from its notice. */
  private follows(): boolean {
    return this.started || !this.standby;
  }

  private invoiceWatchOf(swap: SwapRecord): InvoiceWatch | undefined {
    return this.invoices.get(swap.pair.split('/')[1]);
  }

  private follow(swap: SwapRecord): void {
    if (!needsChain(swap)) return;
    // Contract legs need no registration: their events name the preimage hash the swap is found by.
    for (const leg of lockupLegsOf(swap).filter((candidate) => candidate.contract === undefined)) {
      this.ctx.watching.script(leg.chain, leg.script, { swapId: swap.id, leg: leg.name });
      if (leg.lockup !== undefined) this.ctx.watching.outpoint(leg.chain, leg.lockup.txid, leg.lockup.vout, { swapId: swap.id, leg: leg.name });
    }
    if (swap.type === SwapType.Reverse) this.watchHoldInvoices(swap);
  }

  /** A reverse swap's hold invoices not yet held, until Ferry decides to lock (a gasless swap has two). */
  private watchHoldInvoices(swap: SwapRecord): void {
    if (!this.follows()) return;
    const data = reverseData(swap);
    if ((swap.status !== S.Created && swap.status !== S.MinerFeePaid) || data.lockupRequested === true) return;
    const watch = this.invoiceWatchOf(swap);
    if (data.invoiceHeld !== true) watch?.watch(swap.id, swap.preimageHash, data.invoiceExpiresAt);
    if (data.gas !== undefined && data.gasHeld !== true) watch?.watch(swap.id, data.gas.preimageHash, data.invoiceExpiresAt, 'gas');
  }

  private afterTransition(swap: SwapRecord): void {
    const following = needsChain(swap);
    // A swap in a final status signs nothing more, even while it is still followed on chain (a claimed swap is, in
    // case a reorg takes its lockup: Ferry then broadcasts its recorded claim again, which needs no session); one no
    // longer followed neither: their sealed nonces need not be kept.
    if (!following || machineFor(swap.type).final.includes(swap.status)) {
      void this.ctx.storage.signingSessions.deleteForSwap(swap.id).catch((error: unknown) => {
        this.ctx.logger.warn('could not delete signing sessions', { swap: swap.id, error: String(error) });
      });
    }
    if (following) return;
    this.ctx.watching.forget(swap.id);
    this.invoiceWatchOf(swap)?.unwatch(swap.id);
  }
}

