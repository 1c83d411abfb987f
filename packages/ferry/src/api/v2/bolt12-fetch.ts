// POST /v2/lightning/{currency}/bolt12/fetch: an invoice for a BOLT12 offer. As the reference does, an offer whose
// wallet Ferry can reach — subscribed over the WebSocket, or registered with a webhook (the hub asks either) — is
// asked directly: Ferry builds and signs the invoice request with a payer key of its own, and the wallet's invoice
// comes back checked against it. Any other offer is fetched by the currency's Lightning node where it speaks BOLT12
// (CLN's fetchinvoice), and is a 404 otherwise.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Bolt12Error, createInvoiceRequest, decodeOffer, offerExpired, type InvoiceRequest, type Offer } from '@ferry/sdk/lightning/bolt12/index.js';
import { InvoiceFetchError, type LightningBackend } from '../../lightning/backend.ts';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import { InvoiceRequestError, type InvoiceRequestHub } from '../ws/invoice-requests.ts';

export interface Bolt12FetchDeps {
  lightning: Record<string, LightningBackend>;
  invoiceRequests?: InvoiceRequestHub;
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

/** The wallet's invoice (over the WebSocket or the offer's webhook), or undefined when Ferry cannot reach it. */
async function fromWallet(hub: InvoiceRequestHub, request: InvoiceRequest): Promise<string | undefined> {
  try {
    return (await hub.requestInvoice(request.bytes)).invoice;
  } catch (error) {
    if (!(error instanceof InvoiceRequestError)) throw error;
    if (error.reason === 'noSubscriber') return undefined;
    throw new HttpError(WALLET_FAILURE_STATUS[error.reason], `could not fetch an invoice from the offer's wallet: ${error.message}`);
  }
}

export async function fetchOfferInvoice(deps: Bolt12FetchDeps, currency: string, body: { offer: string; amount?: number; note?: string }): Promise<string> {
  const offer = offerOf(body.offer);
  const amountMsat = amountMsatOf(offer, body.amount);
  const fromItsWallet = deps.invoiceRequests && (await fromWallet(deps.invoiceRequests, requestFor(offer, amountMsat, body.note)));
  if (fromItsWallet) return fromItsWallet;
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
