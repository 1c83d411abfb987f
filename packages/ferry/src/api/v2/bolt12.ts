// The reference's BOLT12 calls under /v2/lightning/{currency}/bolt12: registering an offer (with an optional
// webhook), changing its webhook and deleting it — both proven by a signature of the offer's key over SHA256 of
// the new URL or "UPDATE", and of "DELETE" —, the parameters a wallet's invoices must meet (GET .../{receiving})
// and fetching an invoice for an offer (bolt12-fetch.ts), which answers 404 "no BOLT12 support" when neither a
// subscribed wallet nor a BOLT12 Lightning node can. Status codes as the reference documents them: 422 for a signature that is
// not hex, 401 for a wrong one, 404 for an unknown currency or offer.
import { type OfferRegistry } from '../../lightning/bolt12/registry.ts';
import { Bolt12Error, OWNER_MESSAGES, checkOwnerSignature, decodeOffer, offerExpired, offerSigningKey, parseSignatureHex, type Offer } from '@ferry/sdk/lightning/bolt12/index.js';
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { documented } from '../schema/documented.ts';
import { fetchOfferInvoice, type Bolt12FetchDeps } from './bolt12-fetch.ts';
import type { JsonSchema } from '../schema/validator.ts';

const tags = ['Lightning'];
const base = '/v2/lightning/{currency}/bolt12';
const bolt12Text: JsonSchema = { type: 'string', minLength: 1, maxLength: 8192 };
const urlText: JsonSchema = { type: 'string', minLength: 1, maxLength: 2048 };
const hexText: JsonSchema = { type: 'string', maxLength: 256 };
const empty: JsonSchema = { type: 'object' };

function offerOf(text: string): Offer {
  let offer: Offer;
  try {
    offer = decodeOffer(text);
  } catch (error) {
    if (error instanceof Bolt12Error) throw badRequest(`invalid offer: ${error.message}`);
    throw error;
  }
  if (offerSigningKey(offer) === undefined) throw badRequest('invalid offer: it has no signing key (offer_issuer_id)');
  if (offerExpired(offer, Date.now() / 1000)) throw badRequest('invalid offer: expired');
  return offer;
}

function checkUrl(url: string | undefined): void {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('invalid parameter: url');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw badRequest('invalid parameter: url (must be http or https)');
}

/** Throws the reference's 422 for a signature that is not hex, 401 for one that does not verify. */
function checkSignature(offer: Offer, message: string, signature: string): void {
  let bytes: Uint8Array;
  try {
    bytes = parseSignatureHex(signature);
  } catch (error) {
    throw new HttpError(422, (error as Error).message);
  }
  try {
    checkOwnerSignature(offer, message, bytes);
  } catch (error) {
    if (error instanceof Bolt12Error) throw new HttpError(401, error.message);
    throw error;
  }
}

export function bolt12Routes(router: Router, registry: OfferRegistry, fetch: Bolt12FetchDeps, swaps?: SwapService): void {
  const currencies = Object.keys(fetch.lightning);
  const currencyOf = (currency: string) => {
    if (!currencies.includes(currency)) throw notFound(`no BOLT12 support for currency: ${currency.slice(0, 16)}`);
    return currency;
  };

  documented<{ offer: string; url?: string }>(
    router,
    'POST',
    base,
    { summary: 'Registers a BOLT12 offer for reverse swaps, with an optional webhook for its invoice requests', tags, body: { type: 'object', required: ['offer'], properties: { offer: bolt12Text, url: urlText } }, responses: { 201: empty } },
    async ({ params }, body) => {
      const currency = currencyOf(params.currency);
      const offer = offerOf(body.offer);
      checkUrl(body.url);
      if (!(await registry.add(currency, offer, body.offer, body.url))) throw new HttpError(409, 'offer is registered already');
      return { status: 201, body: {} };
    },
  );

  documented<{ offer: string; url?: string; signature: string }>(
    router,
    'PATCH',
    base,
    { summary: 'Sets or removes the webhook of a registered offer; signed over SHA256 of the URL, or of "UPDATE"', tags, body: { type: 'object', required: ['offer', 'signature'], properties: { offer: bolt12Text, url: urlText, signature: hexText } }, responses: { 200: empty } },
    async ({ params }, body) => {
      const currency = currencyOf(params.currency);
      const offer = offerOf(body.offer);
      checkUrl(body.url);
      checkSignature(offer, body.url ?? OWNER_MESSAGES.update, body.signature);
      if (!(await registry.setUrl(currency, offer, body.url))) throw notFound('offer is not registered');
      return { body: {} };
    },
  );

  const remove = async ({ params }: { params: Record<string, string> }, body: { offer: string; signature: string }) => {
    const currency = currencyOf(params.currency);
    const offer = offerOf(body.offer);
    checkSignature(offer, OWNER_MESSAGES.delete, body.signature);
    if (!(await registry.delete(currency, offer))) throw notFound('offer is not registered');
    return { body: {} };
  };
  const deleteBody: JsonSchema = { type: 'object', required: ['offer', 'signature'], properties: { offer: bolt12Text, signature: hexText } };
  documented(router, 'DELETE', base, { summary: 'Deletes a registered offer; signed over SHA256("DELETE")', tags, body: deleteBody, responses: { 200: empty } }, remove);
  documented(router, 'POST', `${base}/delete`, { summary: 'Deletes a registered offer (alias of DELETE)', tags, body: deleteBody, responses: { 200: empty }, deprecated: true }, remove);

  const fetchAnswer = { type: 'object', required: ['invoice'], properties: { invoice: { type: 'string' } } } as const;
  documented(router, 'POST', `${base}/fetch`, { summary: "Fetches an invoice for an offer: from its subscribed wallet, or through a BOLT12 Lightning node (CLN); 404 without one", tags, responses: { 201: fetchAnswer } }, async ({ params, body }) => {
    // the reference reads the body before it looks for the currency's node: a malformed one is its 422
    const { offer, amount, note } = (body ?? {}) as Record<string, unknown>;
    if (typeof offer !== 'string' || offer.length > 8192) throw new HttpError(422, 'undefined parameter: offer');
    if (amount !== undefined && (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)) throw new HttpError(422, 'invalid parameter: amount (a positive number of satoshis)');
    if (note !== undefined && (typeof note !== 'string' || note.length > 512)) throw new HttpError(422, 'invalid parameter: note');
    const currency = currencyOf(params.currency);
    const invoice = await fetchOfferInvoice(fetch, currency, { offer, amount: amount as number | undefined, note: note as string | undefined });
    return { status: 201, body: { invoice } };
  });

  documented(router, 'GET', `${base}/{receiving}`, { summary: "What a wallet's invoices for BOLT12 reverse swaps to a chain must meet", tags, responses: { 200: { type: 'object', required: ['minCltv'], properties: { minCltv: { type: 'integer' } } } } }, async ({ params }) => {
    currencyOf(params.currency);
    // the reverse pair's timeout on its Lightning (quote) side, in Bitcoin blocks: the invoice's CLTV must cover it
    const timeouts = (await swaps?.v1Timeouts?.())?.[`${params.receiving}/${params.currency}`];
    if (timeouts === undefined) throw notFound(`no reverse swaps from ${params.currency} to ${params.receiving.slice(0, 16)}`);
    return { body: { minCltv: timeouts.quote.reverse } };
  });
}
