// BOLT12 invoice requests on their way to the wallets that answer them. Wallets subscribe to their offers over the
// WebSocket (`invoice.request`); the Lightning backend that receives an invoice request for such an offer calls
// `requestInvoice` with its bytes and gets back the wallet's invoice, checked to answer that very request, or an
// InvoiceRequestError saying why not (nobody subscribed, too many waiting, the wallet's own error, no answer in
// time). Offers are matched by their bytes, which every invoice request mirrors exactly. State is per process:
// a subscription lives as long as its connection, as in the reference.
import { randomUUID } from 'node:crypto';
import { hex } from '@scure/base';
import {
  Bolt12Error, checkInvoiceAnswers, decodeInvoice, invoiceExpiresAt, invoiceRequestFromBytes, offerBytesOf,
  type Invoice, type InvoiceRequest,
} from '../../lightning/bolt12/index.ts';

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

export class InvoiceRequestHub {
  private readonly offers = new Map<string, { offer: string; listener: OfferListener }>();
  private readonly pending = new Map<string, Pending>();
  private readonly waiting = new Map<OfferListener, number>();

  constructor(readonly options: InvoiceRequestOptions = defaultInvoiceRequestOptions) {}

  get pendingRequests(): number {
    return this.pending.size;
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
    if (entry === undefined) return Promise.reject(new InvoiceRequestError('noSubscriber', 'no wallet is subscribed to this offer'));
    const waiting = this.waiting.get(entry.listener) ?? 0;
    if (waiting >= this.options.maxPendingPerConnection || this.pending.size >= this.options.maxPending) {
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

  /** A wallet's answer: an invoice for the request, or the error it reports. Throws what the wallet should hear. */
  answer(listener: OfferListener, id: string, answer: { invoice: string } | { error: string }): void {
    const pending = this.pending.get(id);
    if (pending === undefined || pending.listener !== listener) throw new InvoiceAnswerError(`unknown invoice request id: ${id.slice(0, 64)}`);
    if ('error' in answer) {
      return this.settle(id, new InvoiceRequestError('rejected', answer.error.slice(0, 1024)));
    }
    let decoded: Invoice;
    try {
      decoded = decodeInvoice(answer.invoice);
      checkInvoiceAnswers(decoded, pending.request);
    } catch (error) {
      if (!(error instanceof Bolt12Error)) throw error;
      throw new InvoiceAnswerError(`invalid invoice for request ${id}: ${error.message}`);
    }
    if (invoiceExpiresAt(decoded) <= BigInt(Math.floor(Date.now() / 1000))) throw new InvoiceAnswerError(`invalid invoice for request ${id}: expired`);
    this.settle(id, { invoice: answer.invoice, decoded });
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
