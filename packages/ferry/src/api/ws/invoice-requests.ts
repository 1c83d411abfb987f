// BOLT12 invoice requests on their way to the wallets that answer them. Wallets subscribe to their offers over the
// WebSocket (`invoice.request`); the Lightning backend that receives an invoice request for such an offer calls
// `requestInvoice` with its bytes and gets back the wallet's invoice, checked to answer that very request, or an
// InvoiceRequestError saying why not (nobody subscribed, too many waiting, the wallet's own error, no answer in
// time). Offers are matched by their bytes, which every invoice request mirrors exactly. State is per process:
// a subscription lives as long as its connection, as in the reference. The webhook alternative: an offer registered
// with a `url` and no wallet subscribed is asked there — a signed POST {"event": "invoice.request", "data": {offer,
// invoiceRequest}} answered with {"invoice"} or {"error"} —, and the invoice is checked the same way.
import { randomUUID } from 'node:crypto';
import { hex } from '@scure/base';
import {
  Bolt12Error, checkInvoiceAnswers, decodeInvoice, invoiceExpiresAt, invoiceRequestFromBytes, offerBytesOf,
  type Invoice, type InvoiceRequest,
} from '@ferry/sdk/lightning/bolt12/index.js';

/** One connection's end: hands a request event to its wallet. */
export interface OfferListener {
  deliver(request: { id: string; offer: string; invoiceRequest: string }): void;
}

export type InvoiceRequestFailure = 'invalid' | 'noSubscriber' | 'busy' | 'rejected' | 'timeout' | 'disconnected';

export class InvoiceRequestError extends Error {
  constructor(readonly reason: InvoiceRequestFailure, message: string) {
    super(message);
  }
}

/** A wallet's answer Ferry refuses; its message goes back to that wallet as an error event. */
export class InvoiceAnswerError extends Error {}

export interface InvoiceRequestOptions {
  /** How long a wallet has to answer a request (the reference: 60 s). */
  timeoutMs: number;
  /** Requests waiting on one connection's answers, and on all together; more are refused at once. */
  maxPendingPerConnection: number;
  maxPending: number;
  /** Offers one connection may subscribe to. */
  maxOffersPerConnection: number;
}

export const defaultInvoiceRequestOptions: InvoiceRequestOptions = {
  timeoutMs: 60_000,
  maxPendingPerConnection: 64,
  maxPending: 10_000,
  maxOffersPerConnection: 100,
};

interface Pending {
  listener: OfferListener;
  request: InvoiceRequest;
  resolve: (invoice: { invoice: string; decoded: Invoice }) => void;
  reject: (error: InvoiceRequestError) => void;
  timer: NodeJS.Timeout;
}

/** Where offers registered with a webhook are asked for invoices. */
export interface InvoiceRequestWebhook {
  /** The offer of these bytes as registered, with its webhook URL; undefined when it has none. */
  find(offerBytes: Uint8Array): Promise<{ offer: string; url?: string } | undefined>;
  /** One signed POST to an untrusted receiver (SSRF-guarded, bounded): its status and body. */
  ask(url: string, payload: unknown): Promise<{ status: number; body: string }>;
}

/** The wallet's invoice, checked to answer the request and not to be expired; throws the reason otherwise. */
function checkedInvoice(text: string, request: InvoiceRequest): { invoice: string; decoded: Invoice } {
  let decoded: Invoice;
  try {
    decoded = decodeInvoice(text);
    checkInvoiceAnswers(decoded, request);
  } catch (error) {
    if (!(error instanceof Bolt12Error)) throw error;
    throw new InvoiceAnswerError(error.message);
  }
  if (invoiceExpiresAt(decoded) <= BigInt(Math.floor(Date.now() / 1000))) throw new InvoiceAnswerError('expired');
  return { invoice: text, decoded };
}

export class InvoiceRequestHub {
  private readonly offers = new Map<string, { offer: string; listener: OfferListener }>();
  private readonly pending = new Map<string, Pending>();
  private readonly waiting = new Map<OfferListener, number>();
  private webhookPending = 0;

  constructor(
    readonly options: InvoiceRequestOptions = defaultInvoiceRequestOptions,
    private readonly webhook?: InvoiceRequestWebhook,
  ) {}

  get pendingRequests(): number {
    return this.pending.size + this.webhookPending;
  }

  /** Offers (by their bytes) now routed to this listener; an offer another connection had moves here. */
  subscribe(listener: OfferListener, offers: { bytes: Uint8Array; offer: string }[]): void {
    for (const { bytes, offer } of offers) this.offers.set(hex.encode(bytes), { offer, listener });
  }

  /** Drops the listener's subscriptions to these offers; answers the offers it still has. */
  unsubscribe(listener: OfferListener, offers: Uint8Array[]): string[] {
    for (const bytes of offers) {
      const key = hex.encode(bytes);
      if (this.offers.get(key)?.listener === listener) this.offers.delete(key);
    }
    return this.offersOf(listener);
  }

  offersOf(listener: OfferListener): string[] {
    return [...this.offers.values()].filter((entry) => entry.listener === listener).map((entry) => entry.offer);
  }

  /** The connection is gone: its offers are unsubscribed and requests waiting on it fail now. */
  drop(listener: OfferListener): void {
    for (const [key, entry] of this.offers) if (entry.listener === listener) this.offers.delete(key);
    for (const [id, pending] of this.pending) {
      if (pending.listener === listener) this.settle(id, new InvoiceRequestError('disconnected', 'the wallet disconnected before answering'));
    }
  }

  /**
   * The entry point for the Lightning backend: an invoice request (its TLV bytes, as received in the onion
   * message) for a subscribed offer goes to the offer's wallet; resolves with the wallet's invoice.
   */
  requestInvoice(invoiceRequest: Uint8Array): Promise<{ invoice: string; decoded: Invoice }> {
    let request: InvoiceRequest;
    try {
      request = invoiceRequestFromBytes(invoiceRequest);
    } catch (error) {
      if (!(error instanceof Bolt12Error)) throw error;
      return Promise.reject(new InvoiceRequestError('invalid', `invalid invoice request: ${error.message}`));
    }
    const entry = this.offers.get(hex.encode(offerBytesOf(request)));
    if (entry === undefined) return this.askWebhook(request);
    const waiting = this.waiting.get(entry.listener) ?? 0;
    if (waiting >= this.options.maxPendingPerConnection || this.pendingRequests >= this.options.maxPending) {
      return Promise.reject(new InvoiceRequestError('busy', 'too many invoice requests waiting for answers: try again later'));
    }
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new InvoiceRequestError('timeout', `no invoice within ${this.options.timeoutMs / 1000} s`)),
        this.options.timeoutMs,
      );
      timer.unref();
      this.pending.set(id, { listener: entry.listener, request, resolve, reject, timer });
      this.waiting.set(entry.listener, waiting + 1);
      entry.listener.deliver({ id, offer: entry.offer, invoiceRequest: hex.encode(request.bytes) });
    });
  }

  /**
   * Whether Ferry answers invoice requests for this request's offer: a wallet subscribed to it, or it was registered
   * with a webhook. False for bytes that are no valid invoice request. The Lightning node's onion-message responder
   * asks this before it takes a request over from the node.
   */
  async answersFor(invoiceRequest: Uint8Array): Promise<boolean> {
    let request: InvoiceRequest;
    try {
      request = invoiceRequestFromBytes(invoiceRequest);
    } catch (error) {
      if (!(error instanceof Bolt12Error)) throw error;
      return false;
    }
    const offer = offerBytesOf(request);
    if (this.offers.has(hex.encode(offer))) return true;
    return (await this.webhook?.find(offer))?.url !== undefined;
  }

  /** A wallet's answer: an invoice for the request, or the error it reports. Throws what the wallet should hear. */
  answer(listener: OfferListener, id: string, answer: { invoice: string } | { error: string }): void {
    const pending = this.pending.get(id);
    if (pending === undefined || pending.listener !== listener) throw new InvoiceAnswerError(`unknown invoice request id: ${id.slice(0, 64)}`);
    if ('error' in answer) {
      return this.settle(id, new InvoiceRequestError('rejected', answer.error.slice(0, 1024)));
    }
    let checked: { invoice: string; decoded: Invoice };
    try {
      checked = checkedInvoice(answer.invoice, pending.request);
    } catch (error) {
      if (!(error instanceof InvoiceAnswerError)) throw error;
      throw new InvoiceAnswerError(`invalid invoice for request ${id}: ${error.message}`);
    }
    this.settle(id, checked);
  }

  /** No wallet subscribed: the offer's webhook, if it was registered with one, answers instead. */
  private async askWebhook(request: InvoiceRequest): Promise<{ invoice: string; decoded: Invoice }> {
    const registered = await this.webhook?.find(offerBytesOf(request));
    if (registered?.url === undefined) throw new InvoiceRequestError('noSubscriber', 'no wallet is subscribed to this offer');
    if (this.pendingRequests >= this.options.maxPending) throw new InvoiceRequestError('busy', 'too many invoice requests waiting for answers: try again later');
    this.webhookPending++;
    let answer: { status: number; body: string };
    try {
      answer = await this.webhook!.ask(registered.url, { event: 'invoice.request', data: { offer: registered.offer, invoiceRequest: hex.encode(request.bytes) } });
    } catch (error) {
      throw new InvoiceRequestError('timeout', `the offer's webhook did not answer: ${(error as Error).message}`);
    } finally {
      this.webhookPending--;
    }
    let body: { invoice?: unknown; error?: unknown } = {};
    try {
      body = JSON.parse(answer.body) as typeof body;
    } catch {
      // not JSON: refused below
    }
    if (answer.status < 200 || answer.status >= 300 || typeof body?.invoice !== 'string') {
      const reason = typeof body?.error === 'string' ? body.error.slice(0, 1024) : `the offer's webhook answered ${answer.status} without an invoice`;
      throw new InvoiceRequestError('rejected', reason);
    }
    try {
      return checkedInvoice(body.invoice, request);
    } catch (error) {
      if (error instanceof InvoiceAnswerError) throw new InvoiceRequestError('rejected', `invalid invoice from the offer's webhook: ${error.message}`);
      throw error;
    }
  }

  private settle(id: string, outcome: { invoice: string; decoded: Invoice } | InvoiceRequestError): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const left = (this.waiting.get(pending.listener) ?? 1) - 1;
    if (left > 0) this.waiting.set(pending.listener, left);
    else this.waiting.delete(pending.listener);
    if (outcome instanceof InvoiceRequestError) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}
