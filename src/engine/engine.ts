// SwapEngine: the SwapService the API calls, driving submarine and reverse swaps on the BTC/BTC pair through
// their state machines. Every change is a stored transition; every side effect an entry of the effect log that
// is performed after commit and replayed after a restart.
import { refundTimeoutOf, type RefundTimeout } from './refund-timeout.ts';
import type { SwapRecord } from '../db/index.ts';
import { silentLogger } from '../log/index.ts';
import { reversePairBody, submarinePairBody, validatePair } from '../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '../swaps/status.ts';
import { ChainEventRouter, needsChain, WATCHED_STATUSES } from './chain-events.ts';
import { ChainTools } from './chain-tools.ts';
import { currentMinerFees, WatchIndex, type EngineContext } from './context.ts';
import { reverseData, submarineData } from './data.ts';
import { EffectRunner } from './effects.ts';
import { KeyedMutex, Mutex } from './locks.ts';
import { resolveSettings, type SwapEngineOptions } from './options.ts';
import { reverseClaim, reverseLockupTransaction } from './reverse/claim.ts';
import { createReverse } from './reverse/create.ts';
import { cancelInvoice, InvoiceWatch, settleInvoice } from './reverse/invoice.ts';
import { sendLockup } from './reverse/lockup.ts';
import { refundLockup } from './reverse/refund.ts';
import { referralReport } from './referrals.ts';
import type {
  ChainPairBody,
  CreateReverseRequest,
  CreateReverseResponse,
  CreateSubmarineRequest,
  CreateSubmarineResponse,
  PartialSignatureBody,
  ReferralReport,
  ReversePairBody,
  SubmarinePairBody,
  SwapService,
  SwapStatusBody,
  V1PairBody,
  V1TimeoutsBody,
} from './service.ts';
import { statusBody } from './status-body.ts';
import { SwapStore } from './swap-store.ts';
import { claimWhenSilent, SubmarineClaims } from './submarine/claim.ts';
import {
  createSubmarine,
  setSubmarineInvoice,
  submarineInvoiceAmountFor,
  submarineLockupTransaction,
  submarinePreimageOf,
} from './submarine/create.ts';
import { payInvoice, startClaim, startPayment } from './submarine/payment.ts';
import { submarineRefund } from './submarine/refund.ts';
import { v1PairBody, v1TimeoutsBody } from './v1-pairs.ts';

export class SwapEngine implements SwapService {
  private readonly ctx: EngineContext;
  private readonly router: ChainEventRouter;
  private readonly invoices: InvoiceWatch;
  private readonly claims: SubmarineClaims;
  private started = false;

  constructor(options: SwapEngineOptions) {
    const settings = resolveSettings(options);
    for (const pair of settings.pairs.values()) validatePair(pair);
    const logger = options.logger ?? silentLogger;
    const effects = new EffectRunner(options.storage, logger.child('effects'), {
      retryBaseMs: settings.effectRetryMs,
      retryMaxMs: settings.effectRetryMaxMs,
    });
    const swaps = new SwapStore(options.storage, new KeyedMutex(), (records) => effects.enqueue(records), logger);
    this.ctx = {
      storage: options.storage,
      watcher: options.watcher,
      rpc: options.rpc,
      lightning: options.lightning,
      keys: options.keys,
      logger,
      settings,
      chain: new ChainTools(options.rpc, settings.network, options.feeEstimator),
      swaps,
      effects,
      watching: new WatchIndex(options.watcher),
      lockups: new Mutex(),
    };
    this.router = new ChainEventRouter(this.ctx);
    this.invoices = new InvoiceWatch(this.ctx);
    this.claims = new SubmarineClaims(this.ctx);

    const ctx = this.ctx;
    const handlers = {
      startPayment,
      payInvoice,
      startClaim,
      claimWhenSilent,
      sendLockup,
      settleInvoice,
      cancelInvoice,
      refundLockup,
    };
    for (const [kind, handler] of Object.entries(handlers)) effects.register(kind, (effect) => handler(ctx, effect));
    swaps.onTransition((swap) => this.afterTransition(swap));
  }

  /**
   * Registers every active swap's scripts, outpoints and invoices, replays pending effects, starts the chain
   * watcher (its first round runs before this resolves) and checks timeouts at the current height.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.router.attach();
    for (const swap of await this.ctx.storage.swaps.listByStatus(WATCHED_STATUSES)) this.follow(swap);
    this.ctx.effects.enqueue(await this.ctx.storage.effects.listPending());
    this.invoices.start();
    await this.ctx.watcher.start();
    await this.router.timeouts(await this.ctx.chain.height());
  }

  /** Stops following chain and Lightning and waits briefly for effects in progress; the watcher itself keeps running. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.router.stop();
    this.invoices.stop();
    await this.ctx.effects.stop();
  }

  async submarinePairs(): Promise<Record<string, Record<string, SubmarinePairBody>>> {
    const fees = await currentMinerFees(this.ctx);
    const out: Record<string, Record<string, SubmarinePairBody>> = {};
    for (const pair of this.ctx.settings.pairs.values()) (out[pair.base] ??= {})[pair.quote] = submarinePairBody(pair, fees);
    return out;
  }

  async reversePairs(): Promise<Record<string, Record<string, ReversePairBody>>> {
    const fees = await currentMinerFees(this.ctx);
    const out: Record<string, Record<string, ReversePairBody>> = {};
    // Reverse pairs are listed from the Lightning side: { BTC (Lightning): { BTC (chain): pair } }.
    for (const pair of this.ctx.settings.pairs.values()) (out[pair.quote] ??= {})[pair.base] = reversePairBody(pair, fees);
    return out;
  }

  /** Ferry offers no chain swaps yet: no chain pairs. */
  async chainPairs(): Promise<Record<string, Record<string, ChainPairBody>>> {
    return {};
  }

  async v1Pairs(): Promise<Record<string, V1PairBody>> {
    const fees = await currentMinerFees(this.ctx);
    const out: Record<string, V1PairBody> = {};
    for (const pair of this.ctx.settings.pairs.values()) out[pair.id] = v1PairBody(pair, fees);
    return out;
  }

  async v1Timeouts(): Promise<Record<string, V1TimeoutsBody>> {
    const out: Record<string, V1TimeoutsBody> = {};
    for (const pair of this.ctx.settings.pairs.values()) out[pair.id] = v1TimeoutsBody(pair);
    return out;
  }

  referralReport(referralId?: string): Promise<ReferralReport> {
    return referralReport(this.ctx, referralId);
  }

  createSubmarine(request: CreateSubmarineRequest): Promise<CreateSubmarineResponse> {
    return createSubmarine(this.ctx, request);
  }

  setSubmarineInvoice(id: string, invoice: string, pairHash?: string) {
    return setSubmarineInvoice(this.ctx, id, invoice, pairHash);
  }

  submarineInvoiceAmount(id: string): Promise<{ invoiceAmount: number }> {
    return submarineInvoiceAmountFor(this.ctx, id);
  }

  submarineTransaction(id: string) {
    return submarineLockupTransaction(this.ctx, id);
  }

  submarinePreimage(id: string): Promise<{ preimage: string }> {
    return submarinePreimageOf(this.ctx, id);
  }

  submarineClaimDetails(id: string) {
    return this.claims.details(id);
  }

  submarineClaimSignature(id: string, signature: PartialSignatureBody): Promise<Record<string, never>> {
    return this.claims.sign(id, signature);
  }

  submarineRefund(id: string, request: { pubNonce: string; transaction: string; index: number }): Promise<PartialSignatureBody> {
    return submarineRefund(this.ctx, id, request);
  }

  async createReverse(request: CreateReverseRequest): Promise<CreateReverseResponse> {
    const response = await createReverse(this.ctx, request);
    const swap = await this.ctx.swaps.require(response.id);
    this.invoices.watch(swap.id, swap.preimageHash, reverseData(swap).invoiceExpiresAt);
    return response;
  }

  reverseTransaction(id: string) {
    return reverseLockupTransaction(this.ctx, id);
  }

  reverseClaim(id: string, request: { preimage: string; pubNonce?: string; transaction?: string; index?: number }) {
    return reverseClaim(this.ctx, id, request);
  }

  refundTimeout(txHex: string): Promise<RefundTimeout | undefined> {
    return refundTimeoutOf(this.ctx, txHex);
  }

  async status(id: string): Promise<SwapStatusBody | undefined> {
    const swap = await this.ctx.swaps.get(id);
    return swap === undefined ? undefined : statusBody(swap);
  }

  onStatus(listener: (id: string, status: SwapStatusBody) => void): () => void {
    return this.ctx.swaps.onStatus(listener);
  }

  /** Waits until the swap has no effect running or queued (for tests and callers that need a settled state). */
  whenIdle(id: string): Promise<void> {
    return this.ctx.effects.whenIdle(id);
  }

  /** Runs the timeout check for a height now instead of at the next block. */
  checkTimeouts(height: number): Promise<void> {
    return this.router.timeouts(height);
  }

  /** Looks up every followed hold invoice now instead of at the next poll. */
  pollInvoices(): Promise<void> {
    return this.invoices.poll();
  }

  private follow(swap: SwapRecord): void {
    const data = swap.data as { lockupScript: string };
    if (swap.type === SwapType.Submarine) {
      this.ctx.watching.script(swap.id, data.lockupScript);
      const lockup = submarineData(swap).lockup;
      if (lockup !== undefined) this.ctx.watching.outpoint(swap.id, lockup.txid, lockup.vout);
      return;
    }
    if (!needsChain(swap)) return;
    const reverse = reverseData(swap);
    this.ctx.watching.script(swap.id, data.lockupScript);
    if (reverse.lockup !== undefined) this.ctx.watching.outpoint(swap.id, reverse.lockup.txid, reverse.lockup.vout);
    if (swap.status === S.Created && reverse.lockupRequested !== true) {
      this.invoices.watch(swap.id, swap.preimageHash, reverse.invoiceExpiresAt);
    }
  }

  private afterTransition(swap: SwapRecord): void {
    if (needsChain(swap)) return;
    this.ctx.watching.forget(swap.id);
    this.invoices.unwatch(swap.id);
    this.claims.forget(swap.id);
  }
}
