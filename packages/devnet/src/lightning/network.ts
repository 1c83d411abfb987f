// The devnet's Lightning network: nodes with identity keys, channels with balances, invoices (regular and
// hold) and payments that move balance along a route. All nodes live in one process, so a payment is
// carried out directly across its route: HTLCs are locked on every channel of the path, then settled towards
// the payee or failed back to the payer. Every change is journalled before it is answered (store.ts).
import { EventEmitter } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { DEFAULT_FEATURE_BITS, decodeBolt11, encodeBolt11, type Bolt11Invoice, type Bolt11Signer, type RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { invoiceSigner, type PointMultiplier } from './invoice-signer.ts';
import type { LightningChain } from './chain.ts';
import { GRPC, LndError, invoiceNotFound } from './errors.ts';
import { findRoute, peerOf, type Route } from './routing.ts';
import { bolt12PaymentTarget } from './bolt12-target.ts';
import type { StateStore } from './store.ts';
import type { StateChange } from './journal.ts';
import type {
  ChannelRecord,
  FailureReason,
  InvoiceRecord,
  NetworkState,
  NodeRecord,
  OfferRecord,
  PaymentRecord,
} from './types.ts';

export const DEFAULT_INVOICE_EXPIRY = 86_400;
export const DEFAULT_CLTV_EXPIRY = 80;
const COLORS = ['#3399ff', '#ff9933', '#33cc66', '#cc3366', '#9966ff'];

export interface ChannelSpec {
  from: string;
  to: string;
  capacitySat: number;
  pushSat: number;
  /** Not announced: a payer learns of it only from a route hint. */
  private?: boolean;
}

export interface NetworkOptions {
  store: StateStore;
  chain: LightningChain;
  nodes: string[];
  channels: ChannelSpec[];
}

export interface NewInvoice {
  valueMsat: number;
  memo?: string;
  descriptionHash?: string;
  expiry?: number;
  cltvExpiry?: number;
  private?: boolean;
  label?: string;
  bolt12?: string;
  holdMinCltv?: number; // the hold plugin's min_cltv: kept for an injected invoice or a gRPC one given a CLTV delta
  /** Written into the invoice as `r` fields, as given (LND's route_hints, the hold plugin's routing_hints). */
  routeHints?: RouteHintHop[][];
}

export interface PaymentRequestOptions {
  paymentRequest: string;
  amountMsat?: number; // only for invoices without an amount
  feeLimitMsat: number;
  cltvLimit?: number; // LND's cltv_limit; 0 or absent = no limit
}

const sha256Hex = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const nowNs = (): string => (BigInt(Date.now()) * 1_000_000n).toString();

export interface NetworkEvents {
  invoice: [InvoiceRecord];
  payment: [PaymentRecord];
}

const invoiceKey = (node: string, paymentHash: string): string => `${node}:${paymentHash}`;

export class LightningNetwork extends EventEmitter<NetworkEvents> {
  private tip = 0;
  private unsubscribe: () => void = () => {};
  /** Every invoice by node and payment hash: found without a scan of them all. */
  private readonly invoicesByKey = new Map<string, InvoiceRecord>();
  /** Listeners to one invoice's changes (an LND invoice subscription each), by node and hash. */
  private readonly invoiceWatchers = new Map<string, Set<(invoice: InvoiceRecord) => void>>();
  /** The invoices that may still be OPEN, the only ones expiry looks at; one that left OPEN is dropped when seen. */
  private readonly maybeOpen = new Set<InvoiceRecord>();

  private constructor(
    private readonly state: NetworkState,
    private readonly store: StateStore,
    readonly chain: LightningChain,
    private readonly secp256k1: PointMultiplier,
  ) {
    super();
    this.setMaxListeners(0);
    for (const invoice of state.invoices) this.indexInvoice(invoice);
  }

  private readonly signers = new Map<string, Bolt11Signer>();

  private signerOf(node: NodeRecord): Bolt11Signer {
    let signer = this.signers.get(node.name);
    if (signer === undefined) this.signers.set(node.name, (signer = invoiceSigner(Buffer.from(node.secretKey, 'hex'), this.secp256k1)));
    return signer;
  }

  private indexInvoice(invoice: InvoiceRecord): void {
    this.invoicesByKey.set(invoiceKey(invoice.node, invoice.paymentHash), invoice);
    if (invoice.state === 'OPEN') this.maybeOpen.add(invoice);
  }

  static async open(options: NetworkOptions): Promise<LightningNetwork> {
    const state: NetworkState = options.store.load() ?? {
      version: 1,
      nodes: [],
      channels: [],
      invoices: [],
      payments: [],
      counters: { addIndex: 0, settleIndex: 0, paymentIndex: 0, htlcIndex: 0 },
    };
    const network = new LightningNetwork(state, options.store, options.chain, await loadZkp());
    // The journal read at this start is folded into a snapshot (which a first start writes here, before its changes).
    options.store.compact(state);
    network.tip = await options.chain.height();
    for (const name of options.nodes) {
      if (!state.nodes.some((n) => n.name === name)) network.createNode(name);
    }
    // Each channel is opened once; a restart finds it in the state, and opens only channels added since.
    for (const spec of options.channels) {
      if (!network.hasChannel(spec.from, spec.to)) await network.openChannel(spec);
    }
    network.unsubscribe = options.chain.onBlock((height) => network.onBlock(height));
    network.onBlock(await options.chain.height());
    return network;
  }

  close(): void {
    this.unsubscribe();
    this.removeAllListeners();
    this.store.close(this.state);
  }

  get height(): number {
    return this.tip;
  }

  // ----- nodes and channels -----

  get nodes(): readonly NodeRecord[] {
    return this.state.nodes;
  }

  node(name: string): NodeRecord {
    const node = this.state.nodes.find((n) => n.name === name);
    if (node === undefined) throw new Error(`unknown lightning node ${name}`);
    return node;
  }

  nodeByPubkey(pubkey: string): NodeRecord | undefined {
    return this.state.nodes.find((n) => n.pubkey === pubkey);
  }

  setRestPort(name: string, port: number): void {
    const node = this.node(name);
    node.restPort = port;
    this.journal({ nodes: [node] });
  }

  get channels(): readonly ChannelRecord[] {
    return this.state.channels;
  }

  channelsOf(name: string): ChannelRecord[] {
    return this.state.channels.filter((c) => c.nodeA === name || c.nodeB === name);
  }

  hasChannel(a: string, b: string): boolean {
    return this.state.channels.some((c) => (c.nodeA === a && c.nodeB === b) || (c.nodeA === b && c.nodeB === a));
  }

  private createNode(name: string): void {
    const secretKey = secp256k1.utils.randomSecretKey();
    const node: NodeRecord = {
      name,
      secretKey: Buffer.from(secretKey).toString('hex'),
      pubkey: Buffer.from(secp256k1.getPublicKey(secretKey, true)).toString('hex'),
      macaroon: randomBytes(32).toString('hex'),
      color: COLORS[this.state.nodes.length % COLORS.length],
      restPort: 0,
    };
    this.state.nodes.push(node);
    this.journal({ nodes: [node] });
  }

  async openChannel(spec: ChannelSpec): Promise<ChannelRecord> {
    const opener = this.node(spec.from);
    const peer = this.node(spec.to);
    if (spec.pushSat < 0 || spec.pushSat > spec.capacitySat) throw new Error('push amount exceeds capacity');
    const funding = await this.chain.fundChannel({
      capacitySat: spec.capacitySat,
      openerKey: opener.pubkey,
      peerKey: peer.pubkey,
    });
    const chanId =
      (BigInt(funding.blockHeight) << 40n) | (BigInt(funding.txIndex) << 16n) | BigInt(funding.vout);
    const channel: ChannelRecord = {
      chanId: chanId.toString(),
      channelPoint: `${funding.txid}:${funding.vout}`,
      nodeA: opener.name,
      nodeB: peer.name,
      capacitySat: spec.capacitySat,
      balanceAMsat: (spec.capacitySat - spec.pushSat) * 1000,
      balanceBMsat: spec.pushSat * 1000,
      pushSat: spec.pushSat,
      ...(spec.private === true && { private: true }),
      openHeight: funding.blockHeight,
      htlcs: [],
      sentMsatA: 0,
      receivedMsatA: 0,
      updates: 0,
    };
    this.state.channels.push(channel);
    this.journal({});
    return channel;
  }

  // ----- invoices -----

  addInvoice(nodeName: string, request: NewInvoice & { preimage?: string }): InvoiceRecord {
    const preimage = request.preimage ?? randomBytes(32).toString('hex');
    return this.createInvoice(nodeName, sha256Hex(preimage), preimage, false, request);
  }

  addHoldInvoice(nodeName: string, paymentHash: string, request: NewInvoice): InvoiceRecord {
    return this.createInvoice(nodeName, paymentHash, null, true, request);
  }

  private createInvoice(
    nodeName: string,
    paymentHash: string,
    preimage: string | null,
    hold: boolean,
    request: NewInvoice,
  ): InvoiceRecord {
    const node = this.node(nodeName);
    if (!/^[0-9a-f]{64}$/.test(paymentHash)) throw new LndError(GRPC.INVALID_ARGUMENT, 'invalid hash');
    if (!Number.isSafeInteger(request.valueMsat) || request.valueMsat < 0) {
      throw new LndError(GRPC.INVALID_ARGUMENT, 'invalid amount');
    }
    if (this.invoicesByKey.has(invoiceKey(nodeName, paymentHash))) {
      throw new LndError(GRPC.UNKNOWN, 'invoice with payment hash already exists');
    }
    const creationDate = nowSeconds();
    const paymentAddr = randomBytes(32).toString('hex');
    const expiry = request.expiry || DEFAULT_INVOICE_EXPIRY;
    const cltvExpiry = request.cltvExpiry || DEFAULT_CLTV_EXPIRY;
    const descriptionHash = request.descriptionHash ?? '';
    const paymentRequest = encodeBolt11(
      {
        network: 'bcrt',
        amountMsat: request.valueMsat > 0 ? BigInt(request.valueMsat) : undefined,
        timestamp: creationDate,
        paymentHash,
        paymentSecret: paymentAddr,
        ...(descriptionHash !== '' ? { descriptionHash } : { description: request.memo ?? '' }),
        expiry,
        minFinalCltvExpiry: cltvExpiry,
        featureBits: DEFAULT_FEATURE_BITS, // what invoiceJson reports (rest/json.ts)
        ...(request.routeHints !== undefined && request.routeHints.length > 0 && { routeHints: request.routeHints }),
      },
      this.signerOf(node),
    );
    this.state.counters.addIndex += 1;
    const invoice: InvoiceRecord = {
      node: nodeName,
      paymentHash,
      preimage,
      paymentAddr,
      valueMsat: request.valueMsat,
      memo: request.memo ?? '',
      descriptionHash,
      creationDate,
      settleDate: 0,
      expiry,
      cltvExpiry,
      paymentRequest,
      state: 'OPEN',
      hold,
      ...(request.label !== undefined && { label: request.label }),
      ...(request.bolt12 !== undefined && { bolt12: request.bolt12 }),
      ...(request.holdMinCltv !== undefined && { holdMinCltv: request.holdMinCltv }),
      private: request.private ?? false,
      addIndex: this.state.counters.addIndex,
      settleIndex: 0,
      amtPaidMsat: 0,
      htlcs: [],
    };
    this.state.invoices.push(invoice);
    this.indexInvoice(invoice);
    this.commit({ invoices: [invoice] });
    return invoice;
  }

  lookupInvoice(nodeName: string, paymentHash: string): InvoiceRecord {
    this.expireOpenInvoices();
    const invoice = this.findInvoice(nodeName, paymentHash);
    if (invoice === undefined) throw invoiceNotFound();
    return invoice;
  }

  /**
   * Calls `listener` on every change of one invoice; gives the function that stops it. Unlike an 'invoice' listener,
   * it is not offered every other invoice's changes: each pending reverse swap holds a subscription, and offering each
   * change to all of them cost a hold invoice more than making it once thousands were open.
   */
  watchInvoice(nodeName: string, paymentHash: string, listener: (invoice: InvoiceRecord) => void): () => void {
    const key = invoiceKey(nodeName, paymentHash);
    let watchers = this.invoiceWatchers.get(key);
    if (watchers === undefined) this.invoiceWatchers.set(key, (watchers = new Set()));
    watchers.add(listener);
    return () => {
      watchers.delete(listener);
      if (watchers.size === 0 && this.invoiceWatchers.get(key) === watchers) this.invoiceWatchers.delete(key);
    };
  }

  /** Whether anything watches this invoice (a test waits for its subscription to be registered). */
  isWatched(nodeName: string, paymentHash: string): boolean {
    return this.invoiceWatchers.has(invoiceKey(nodeName, paymentHash));
  }

  findInvoice(nodeName: string, paymentHash: string): InvoiceRecord | undefined {
    return this.invoicesByKey.get(invoiceKey(nodeName, paymentHash));
  }

  settleInvoice(nodeName: string, preimage: string): void {
    const paymentHash = sha256Hex(preimage);
    const invoice = this.lookupInvoice(nodeName, paymentHash);
    if (invoice.state === 'SETTLED') return;
    if (invoice.state === 'CANCELED') throw new LndError(GRPC.UNKNOWN, 'invoice already canceled');
    if (invoice.state === 'OPEN') throw new LndError(GRPC.UNKNOWN, 'invoice still open');
    invoice.preimage = preimage;
    const payment = this.inFlightPaymentFor(paymentHash);
    this.settle(invoice, payment);
  }

  cancelInvoice(nodeName: string, paymentHash: string): void {
    const invoice = this.lookupInvoice(nodeName, paymentHash);
    if (invoice.state === 'CANCELED') return;
    if (invoice.state === 'SETTLED') throw new LndError(GRPC.UNKNOWN, 'invoice already settled');
    this.cancel(invoice, this.inFlightPaymentFor(paymentHash));
  }

  listInvoices(nodeName: string): InvoiceRecord[] {
    this.expireOpenInvoices();
    return this.state.invoices.filter((i) => i.node === nodeName);
  }

  // An open invoice past its expiry time is cancelled, as LND's invoice expiry watcher does.
  private expireOpenInvoices(): void {
    const now = nowSeconds();
    const expired: InvoiceRecord[] = [];
    for (const invoice of this.maybeOpen) {
      if (invoice.state !== 'OPEN') this.maybeOpen.delete(invoice);
      else if (invoice.creationDate + invoice.expiry <= now) {
        expired.push(invoice);
        this.maybeOpen.delete(invoice);
      }
    }
    if (expired.length === 0) return;
    for (const invoice of expired) invoice.state = 'CANCELED';
    this.commit({ invoices: expired });
  }

  // ----- BOLT12 offers -----

  addOffer(record: OfferRecord): void {
    (this.state.offers ??= []).push(record);
    this.journal({ offers: [record] });
  }

  /** An offer that has been answered with an invoice (listoffers' `used`). */
  markOfferUsed(record: OfferRecord): void {
    record.used = true;
    this.journal({ offers: [record] });
  }

  offersOf(nodeName: string): OfferRecord[] {
    return (this.state.offers ?? []).filter((o) => o.node === nodeName);
  }

  // ----- payments -----

  lookupPayment(nodeName: string, paymentHash: string): PaymentRecord | undefined {
    return this.state.payments.find((p) => p.node === nodeName && p.paymentHash === paymentHash);
  }

  listPayments(nodeName: string): PaymentRecord[] {
    return this.state.payments.filter((p) => p.node === nodeName);
  }

  // A BOLT12 invoice (lni) is read into the same shape: its node id, hash, amount and blinded payinfo's CLTV delta.
  decodePaymentRequest(paymentRequest: string): Bolt11Invoice {
    let invoice: Bolt11Invoice;
    try {
      invoice = paymentRequest.toLowerCase().startsWith('lni') ? bolt12PaymentTarget(paymentRequest) : decodeBolt11(paymentRequest);
    } catch (err) {
      throw new LndError(GRPC.UNKNOWN, (err as Error).message);
    }
    if (invoice.network !== 'bcrt') {
      throw new LndError(GRPC.UNKNOWN, 'invoice not for current active network \'regtest\'');
    }
    return invoice;
  }

  // Refusals (expired, already paid, in flight, bad request) throw before a payment exists, as
  // SendPaymentV2 does; everything after that is reported through the payment's status.
  sendPayment(nodeName: string, request: PaymentRequestOptions): PaymentRecord {
    const payer = this.node(nodeName);
    const invoice = this.decodePaymentRequest(request.paymentRequest);
    let amountMsat: number;
    if (invoice.amountMsat === undefined) {
      if (request.amountMsat === undefined || request.amountMsat <= 0) {
        throw new LndError(GRPC.UNKNOWN, 'amount must be specified when paying a zero amount invoice');
      }
      amountMsat = request.amountMsat;
    } else {
      if (request.amountMsat !== undefined && request.amountMsat > 0) {
        throw new LndError(GRPC.UNKNOWN, 'amount must not be specified when paying a non-zero amount invoice');
      }
      amountMsat = Number(invoice.amountMsat);
    }
    const expiresAt = invoice.timestamp + invoice.expiry;
    if (expiresAt <= nowSeconds()) {
      throw new LndError(GRPC.UNKNOWN, `invoice expired. Valid until ${new Date(expiresAt * 1000).toISOString()}`);
    }
    const previous = this.lookupPayment(nodeName, invoice.paymentHash);
    if (previous?.status === 'SUCCEEDED') throw new LndError(GRPC.ALREADY_EXISTS, 'invoice is already paid');
    if (previous?.status === 'IN_FLIGHT') throw new LndError(GRPC.ALREADY_EXISTS, 'payment is in transition');
    if (previous !== undefined) this.state.payments.splice(this.state.payments.indexOf(previous), 1);

    this.state.counters.paymentIndex += 1;
    const payment: PaymentRecord = {
      node: nodeName,
      paymentHash: invoice.paymentHash,
      paymentRequest: invoice.paymentRequest,
      valueMsat: amountMsat,
      feeMsat: 0,
      preimage: null,
      status: 'IN_FLIGHT',
      failureReason: 'FAILURE_REASON_NONE',
      creationTimeNs: nowNs(),
      resolveTimeNs: '0',
      paymentIndex: this.state.counters.paymentIndex,
      route: null,
      totalTimeLock: 0,
    };
    this.state.payments.push(payment);
    this.commit({ payments: [payment] });

    const payee = this.nodeByPubkey(invoice.payeeNodeKey);
    const route =
      payee === undefined
        ? undefined
        : findRoute(this.state.channels, (n) => this.node(n).pubkey, {
            from: payer.name,
            to: payee.name,
            amountMsat,
            finalCltvDelta: invoice.minFinalCltvExpiry,
            height: this.tip,
            feeLimitMsat: request.feeLimitMsat,
            cltvLimit: request.cltvLimit,
          });
    if (payee === undefined || route === undefined) {
      const outbound = this.channelsOf(payer.name).reduce(
        (sum, c) => sum + (c.nodeA === payer.name ? c.balanceAMsat : c.balanceBMsat),
        0,
      );
      this.failPayment(payment, outbound < amountMsat ? 'FAILURE_REASON_INSUFFICIENT_BALANCE' : 'FAILURE_REASON_NO_ROUTE');
      return payment;
    }
    payment.route = route.hops;
    payment.feeMsat = route.totalFeesMsat;
    payment.totalTimeLock = route.totalTimeLock;
    this.lockHtlcs(route, payment);
    this.deliver(payee.name, invoice, route, payment);
    return payment;
  }

  private deliver(payeeName: string, request: Bolt11Invoice, route: Route, payment: PaymentRecord): void {
    this.expireOpenInvoices();
    const invoice = this.findInvoice(payeeName, request.paymentHash);
    const finalAmount = route.channelAmountsMsat[route.channelAmountsMsat.length - 1];
    const finalExpiry = route.channelExpiries[route.channelExpiries.length - 1];
    const acceptable =
      invoice !== undefined &&
      invoice.state === 'OPEN' &&
      finalAmount >= invoice.valueMsat &&
      (invoice.bolt12 !== undefined ? request.paymentRequest === invoice.bolt12 : request.paymentSecret === invoice.paymentAddr) &&
      finalExpiry >= this.tip + invoice.cltvExpiry;
    if (!acceptable) {
      this.releaseHtlcs(payment, 'fail');
      this.failPayment(payment, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS');
      return;
    }
    this.state.counters.htlcIndex += 1;
    invoice.htlcs.push({
      chanId: route.hops[route.hops.length - 1].chanId,
      htlcIndex: this.state.counters.htlcIndex,
      amountMsat: finalAmount,
      acceptHeight: this.tip,
      acceptTime: nowSeconds(),
      resolveTime: 0,
      expiryHeight: finalExpiry,
      state: 'ACCEPTED',
    });
    invoice.amtPaidMsat = finalAmount;
    if (invoice.hold) {
      invoice.state = 'ACCEPTED';
      this.commit({ invoices: [invoice], payments: [payment] });
    } else {
      this.settle(invoice, payment);
    }
  }

  private settle(invoice: InvoiceRecord, payment: PaymentRecord | undefined): void {
    invoice.state = 'SETTLED';
    invoice.settleDate = nowSeconds();
    this.state.counters.settleIndex += 1;
    invoice.settleIndex = this.state.counters.settleIndex;
    for (const htlc of invoice.htlcs) {
      if (htlc.state === 'ACCEPTED') {
        htlc.state = 'SETTLED';
        htlc.resolveTime = invoice.settleDate;
      }
    }
    if (payment !== undefined) {
      this.releaseHtlcs(payment, 'settle');
      payment.status = 'SUCCEEDED';
      payment.preimage = invoice.preimage;
      payment.resolveTimeNs = nowNs();
    }
    this.commit({ invoices: [invoice], payments: payment === undefined ? [] : [payment] });
  }

  private cancel(invoice: InvoiceRecord, payment: PaymentRecord | undefined): void {
    invoice.state = 'CANCELED';
    for (const htlc of invoice.htlcs) {
      if (htlc.state === 'ACCEPTED') {
        htlc.state = 'CANCELED';
        htlc.resolveTime = nowSeconds();
      }
    }
    invoice.amtPaidMsat = 0;
    if (payment !== undefined) {
      this.releaseHtlcs(payment, 'fail');
      payment.status = 'FAILED';
      payment.failureReason = 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS';
      payment.resolveTimeNs = nowNs();
    }
    this.commit({ invoices: [invoice], payments: payment === undefined ? [] : [payment] });
  }

  private failPayment(payment: PaymentRecord, reason: FailureReason): void {
    payment.status = 'FAILED';
    payment.failureReason = reason;
    payment.resolveTimeNs = nowNs();
    this.commit({ payments: [payment] });
  }

  private inFlightPaymentFor(paymentHash: string): PaymentRecord | undefined {
    return this.state.payments.find((p) => p.paymentHash === paymentHash && p.status === 'IN_FLIGHT');
  }

  // ----- HTLCs on channels -----

  private lockHtlcs(route: Route, payment: PaymentRecord): void {
    route.hops.forEach((hop, i) => {
      const channel = this.channelById(hop.chanId);
      const from = route.nodes[i];
      const amountMsat = route.channelAmountsMsat[i];
      if (channel.nodeA === from) channel.balanceAMsat -= amountMsat;
      else channel.balanceBMsat -= amountMsat;
      channel.htlcs.push({
        paymentHash: payment.paymentHash,
        payer: payment.node,
        amountMsat,
        fromNode: from,
        expiryHeight: route.channelExpiries[i],
      });
      channel.updates += 1;
    });
  }

  // Settling pays each HTLC to the side it was offered to; failing returns it to the side that offered it.
  private releaseHtlcs(payment: PaymentRecord, outcome: 'settle' | 'fail'): void {
    for (const channel of this.state.channels) {
      const mine = channel.htlcs.filter((h) => h.paymentHash === payment.paymentHash && h.payer === payment.node);
      if (mine.length === 0) continue;
      for (const htlc of mine) {
        const to = outcome === 'settle' ? peerOf(channel, htlc.fromNode) : htlc.fromNode;
        if (channel.nodeA === to) channel.balanceAMsat += htlc.amountMsat;
        else channel.balanceBMsat += htlc.amountMsat;
        if (outcome === 'settle') {
          if (htlc.fromNode === channel.nodeA) channel.sentMsatA += htlc.amountMsat;
          else channel.receivedMsatA += htlc.amountMsat;
        }
        channel.updates += 1;
      }
      channel.htlcs = channel.htlcs.filter((h) => !mine.includes(h));
    }
  }

  private channelById(chanId: string): ChannelRecord {
    const channel = this.state.channels.find((c) => c.chanId === chanId);
    if (channel === undefined) throw new Error(`unknown channel ${chanId}`);
    return channel;
  }

  // ----- chain -----

  // A held HTLC whose expiry height is reached is failed back and its hold invoice cancelled, as LND does
  // rather than let the HTLC go to the chain.
  private onBlock(height: number): void {
    if (height > this.tip) this.tip = height;
    const expired = this.state.invoices.filter(
      (i) => i.state === 'ACCEPTED' && i.htlcs.some((h) => h.state === 'ACCEPTED' && h.expiryHeight <= this.tip),
    );
    for (const invoice of expired) this.cancel(invoice, this.inFlightPaymentFor(invoice.paymentHash));
  }

  // ----- persistence -----

  // The changed records go to the journal with the counters and the channels, which any change may have moved.
  private journal(change: Omit<StateChange, 'counters' | 'channels'>): void {
    this.store.append({ counters: this.state.counters, channels: this.state.channels, ...change }, this.state);
  }

  private commit(changed: { invoices?: InvoiceRecord[]; payments?: PaymentRecord[] }): void {
    this.journal(changed);
    for (const invoice of changed.invoices ?? []) {
      this.emit('invoice', invoice);
      const watchers = this.invoiceWatchers.get(invoiceKey(invoice.node, invoice.paymentHash));
      for (const watcher of watchers === undefined ? [] : [...watchers]) watcher(invoice);
    }
    for (const payment of changed.payments ?? []) this.emit('payment', payment);
  }
}
