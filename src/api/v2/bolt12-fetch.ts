// POST /v2/lightning/{currency}/bolt12/fetch: an invoice for a BOLT12 offer. As the reference does, an offer whose
// wallet Ferry can reach is asked directly — Ferry builds and signs the invoice request with a payer key of its
// own, and the wallet's invoice comes back checked against it —: over the WebSocket (`invoice.request`) when the
// wallet is subscribed, else through the webhook the offer was registered with (POST {"event": "invoice.request",
// "data": {offer, invoiceRequest}}, answered {invoice} or {error}). Any other offer is fetched by the currency's
// Lightning node where it speaks BOLT12 (CLN's fetchinvoice), and is a 404 otherwise.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import {
  Bolt12Error, checkInvoiceAnswers, createInvoiceRequest, decodeInvoice, decodeOffer, offerExpired, type InvoiceRequest,
  type Offer, type OfferRegistry,
} from '../../lightning/bolt12/index.ts';
import { InvoiceFetchError, type LightningBackend } from '../../lightning/backend.ts';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import { InvoiceRequestError, type InvoiceRequestHub } from '../ws/invoice-requests.ts';

/** One webhook call whose answer is used: its status and body. */
export type AskWebhook = (url: string, payload: unknown) => Promise<{ status: number; text: string }>;

export interface Bolt12FetchDeps {
  lightning: Record<string, LightningBackend>;
  invoiceRequests?: InvoiceRequestHub;
  offers?: OfferRegistry;
  askWebhook?: AskWebhook;
}

const WALLET_FAILURE_STATUS = { invalid: 400, noSubscriber: 404, busy: 429, rejected: 422, timeout: 504, disconnected: 504 } as const;

function offerOf(text: string): Offer {
  try {
    const offer = decodeOffer(text);
    if (offerExpired(offer, Date.now() / 1000)) throw new HttpError(422, 'invalid offer: expired');
    return offer;
  } catch (error) {
    if (error instanceof Bolt12Error) throw new HttpError(422, `invalid offer: ${error.message}`);
    throw error;
  }
}

/** The amount asked for: the body's (sat), or the offer's own when it names one in the chain's unit. */
function amountMsatOf(offer: Offer, amountSat: number | undefined): bigint {
  if (amountSat !== undefined) return BigInt(amountSat) * 1000n;
  if (offer.fields.amount !== undefined && offer.fields.currency === undefined) return offer.fields.amount;
  throw new HttpError(422, 'undefined parameter: amount (the offer names no amount in satoshis)');
}

function requestFor(offer: Offer, amountMsat: bigint, note: string | undefined): InvoiceRequest {
  try {
    return createInvoiceRequest(
      offer,
      { metadata: randomBytes(16), ...(offer.fields.chains && { chain: offer.fields.chains[0] }), amountMsat, ...(note !== undefined && { payerNote: note }) },
      secp256k1.utils.randomSecretKey(),
    );
  } catch (error) {
    if (error instanceof Bolt12Error) throw badRequest(`invalid invoice request for the offer: ${error.message}`);
    throw error;
  }
}

/** The subscribed wallet's invoice, or undefined when no wallet is subscribed to the offer. */
async function overWebSocket(hub: InvoiceRequestHub, request: InvoiceRequest): Promise<string | undefined> {
  try {
    return (await hub.requestInvoice(request.bytes)).invoice;
  } catch (error) {
    if (!(error instanceof InvoiceRequestError)) throw error;
    if (error.reason === 'noSubscriber') return undefined;
    throw new HttpError(WALLET_FAILURE_STATUS[error.reason], `could not fetch an invoice from the offer's wallet: ${error.message}`);
  }
}

/** The invoice the offer's webhook answers with, checked to answer Ferry's request. */
async function overWebhook(ask: AskWebhook, url: string, offer: string, request: InvoiceRequest): Promise<string> {
  const failed = (reason: string) => new HttpError(422, `could not fetch an invoice from the offer's webhook: ${reason}`);
  const { status, text } = await ask(url, { event: 'invoice.request', data: { offer, invoiceRequest: hex.encode(request.bytes) } }).catch(
    (error: Error) => {
      throw failed(error.message);
    },
  );
  let answer: { invoice?: unknown; error?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw failed(`answered ${status} without JSON`);
  }
  if (typeof answer?.invoice !== 'string') throw failed(typeof answer?.error === 'string' ? answer.error.slice(0, 1024) : `answered ${status} without an invoice`);
  try {
    checkInvoiceAnswers(decodeInvoice(answer.invoice), request);
  } catch (error) {
    if (error instanceof Bolt12Error) throw failed(`invalid invoice: ${error.message}`);
    throw error;
  }
  return answer.invoice;
}

export async function fetchOfferInvoice(deps: Bolt12FetchDeps, currency: string, body: { offer: string; amount?: number; note?: string }): Promise<string> {
  const offer = offerOf(body.offer);
  const amountMsat = amountMsatOf(offer, body.amount);
  const webhook = deps.offers?.get(currency, offer)?.url;
  if (deps.invoiceRequests !== undefined || (webhook !== undefined && deps.askWebhook !== undefined)) {
    const request = requestFor(offer, amountMsat, body.note);
    const fromSocket = deps.invoiceRequests && (await overWebSocket(deps.invoiceRequests, request));
    if (fromSocket) return fromSocket;
    if (webhook !== undefined && deps.askWebhook !== undefined) return overWebhook(deps.askWebhook, webhook, body.offer, request);
  }
  const node = deps.lightning[currency];
  if (node?.fetchInvoice === undefined) {
    throw notFound('no BOLT12 support: fetching invoices for offers needs a Lightning backend that speaks BOLT12 (CLN), and none is configured');
  }
  try {
    return await node.fetchInvoice(body.offer, amountMsat, body.note);
  } catch (error) {
    if (error instanceof InvoiceFetchError) throw new HttpError(422, `could not fetch an invoice for the offer: ${error.message}`);
    throw error;
  }
}
