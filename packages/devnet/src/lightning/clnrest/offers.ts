// BOLT12 on a devnet CLN node: `offer` issues an offer signed for by the node's key (offer_issuer_id, regtest
// chain), `fetchinvoice` builds and signs an invoice request for any offer and sends it to the devnet CLN node the
// offer leads to — its path's introduction node, or its issuer — as an onion message (onion-messages.ts), or hands
// it in-process to an issuing node it cannot reach that way; the issuer answers with an invoice (issuer.ts),
// payable with `pay`. `listoffers` and `decode` read them back.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import {
  Bolt12Error, checkInvoiceAnswers, createInvoiceRequest, decodeInvoice, decodeOffer, encodeInvoice, encodeOffer, offerExpired, type Offer,
} from '@ferry/sdk/lightning/bolt12/index.js';
import type { BlindedPayInfo } from '@ferry/sdk/lightning/bolt12/values.js';
import type { OfferRecord } from '../types.ts';
import { CLN, ClnError, invalidParams } from './errors.ts';
import { answerInvoiceRequest, offerIdOf } from './issuer.ts';
import type { Method, MethodContext } from './lightningd.ts';
import { fetchTimeoutOf, injectonionmessage, offerRouteOf, requestOverOnion } from './onion-messages.ts';
import { optionalInt, optionalString, requiredString } from './params.ts';

/** The regtest genesis block hash as BOLT12 chain hashes are written (internal byte order). */
export const REGTEST_CHAIN = hex.decode('06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f');

/** An offer as `offer` answers it (with `created`) or `listoffers` lists it (without). */
function offerJson(record: OfferRecord, created?: boolean): Record<string, unknown> {
  return {
    offer_id: record.offerId,
    active: record.active,
    single_use: false,
    force_paths: false,
    bolt12: record.bolt12,
    used: record.used,
    ...(created !== undefined && { created }),
    ...(record.label !== undefined && { label: record.label }),
  };
}

function offer({ network, node, params }: MethodContext): Record<string, unknown> {
  const description = optionalString(params, 'description');
  const amountMsat = params.amount === 'any' ? undefined : optionalInt(params, 'amount');
  if (params.amount === undefined) throw invalidParams('missing required parameter: amount');
  if (amountMsat !== undefined && description === undefined) throw new ClnError(CLN.INVOICE_NO_DESCRIPTION, 'description is required for the user to know what it was they paid for');
  const text = encodeOffer({
    chains: [REGTEST_CHAIN],
    ...(amountMsat !== undefined && { amount: BigInt(amountMsat) }),
    ...(description !== undefined && { description }),
    issuerId: hex.decode(network.node(node).pubkey),
  });
  const offerId = offerIdOf(decodeOffer(text));
  const existing = network.offersOf(node).find((o) => o.offerId === offerId);
  if (existing !== undefined) return offerJson(existing, false);
  const label = optionalString(params, 'label');
  const record: OfferRecord = { node, offerId, bolt12: text, description: description ?? '', amountMsat: amountMsat ?? null, active: true, used: false, ...(label !== undefined && { label }) };
  network.addOffer(record);
  return offerJson(record, true);
}

function listoffers({ network, node, params }: MethodContext): Record<string, unknown> {
  const id = optionalString(params, 'offer_id');
  return { offers: network.offersOf(node).filter((o) => id === undefined || o.offerId === id).map((o) => offerJson(o)) };
}

async function fetchinvoice({ network, node, params }: MethodContext): Promise<Record<string, unknown>> {
  let offer: Offer;
  try {
    offer = decodeOffer(requiredString(params, 'offer'));
  } catch (err) {
    if (err instanceof Bolt12Error) throw invalidParams(`offer: Unparsable offer: ${err.message}`);
    throw err;
  }
  if (offerExpired(offer, Date.now() / 1000)) throw new ClnError(CLN.OFFER_EXPIRED, 'Offer expired');
  const amountMsat = optionalInt(params, 'amount_msat');
  if (offer.fields.amount === undefined && amountMsat === undefined) throw invalidParams('amount_msat parameter required');
  if (offer.fields.amount !== undefined && offer.fields.currency === undefined && amountMsat !== undefined && BigInt(amountMsat) < offer.fields.amount) {
    throw invalidParams('amount_msat: Amount must be at least the offer amount');
  }
  const payerNote = optionalString(params, 'payer_note');
  const quantity = optionalInt(params, 'quantity');
  const request = createInvoiceRequest(
    offer,
    {
      metadata: randomBytes(16),
      chain: REGTEST_CHAIN,
      ...(amountMsat !== undefined && { amountMsat: BigInt(amountMsat) }),
      ...(quantity !== undefined && { quantity: BigInt(quantity) }),
      ...(payerNote !== undefined && { payerNote }),
    },
    secp256k1.utils.randomSecretKey(),
  );
  const routed = offerRouteOf(network, node, offer);
  if (routed !== undefined) return requestOverOnion(network, node, routed.destination, request, fetchTimeoutOf(params));
  // No devnet CLN node to send it to: handed in-process to the node whose key the offer names; none, or an offer
  // it did not issue: no answer.
  const issuerKey = offer.fields.issuerId === undefined ? undefined : hex.encode(offer.fields.issuerId);
  const issuer = issuerKey === undefined ? undefined : network.nodeByPubkey(issuerKey);
  const invoice = issuer === undefined ? undefined : answerInvoiceRequest(network, issuer.name, request.bytes);
  if (invoice === undefined) throw new ClnError(CLN.OFFER_TIMEOUT, 'Timeout waiting for response');
  try {
    checkInvoiceAnswers(invoice, request);
  } catch (err) {
    throw new ClnError(CLN.OFFER_BAD_INVREQ_REPLY, `Incorrect reply: ${(err as Error).message}`);
  }
  return { invoice: encodeInvoice(invoice), changes: {} };
}

export const OFFER_METHODS: Record<string, Method> = { offer, listoffers, fetchinvoice, injectonionmessage };

/** `decode` of an offer (lno) or a BOLT12 invoice (lni), in lightningd's field names. */
/** A short channel id as lightningd writes it: block x transaction x output. */
const shortChannelIdText = (scid: bigint): string => `${scid >> 40n}x${(scid >> 16n) & 0xffffffn}x${scid & 0xffffn}`;

/** A blinded path's payinfo as lightningd's `decode` lists it. */
const payinfoJson = (info: BlindedPayInfo): Record<string, unknown> => ({
  fee_base_msat: info.feeBaseMsat,
  fee_proportional_millionths: info.feeProportionalMillionths,
  cltv_expiry_delta: info.cltvExpiryDelta,
  htlc_minimum_msat: Number(info.htlcMinimumMsat),
  htlc_maximum_msat: Number(info.htlcMaximumMsat),
  features: hex.encode(info.features),
});

export function decodedBolt12Json(text: string): Record<string, unknown> {
  if (text.toLowerCase().startsWith('lno')) {
    const offer = decodeOffer(text);
    const f = offer.fields;
    return {
      type: 'bolt12 offer',
      valid: true,
      offer_id: offerIdOf(offer),
      ...(f.chains !== undefined && { offer_chains: f.chains.map((c) => hex.encode(c)) }),
      ...(f.description !== undefined && { offer_description: f.description }),
      ...(f.amount !== undefined && f.currency === undefined && { offer_amount_msat: Number(f.amount) }),
      ...(f.issuerId !== undefined && { offer_issuer_id: hex.encode(f.issuerId) }),
    };
  }
  const invoice = decodeInvoice(text);
  const own = invoice.invoice;
  return {
    type: 'bolt12 invoice',
    valid: true,
    ...(invoice.offer.description !== undefined && { offer_description: invoice.offer.description }),
    ...(invoice.invreq.payerNote !== undefined && { invreq_payer_note: invoice.invreq.payerNote }),
    invreq_metadata: hex.encode(invoice.invreq.metadata ?? new Uint8Array()),
    invreq_payer_id: hex.encode(invoice.invreq.payerId!),
    invoice_paths: (own.paths ?? []).map((path, i) => ({
      ...('nodeId' in path.firstNode
        ? { first_node_id: hex.encode(path.firstNode.nodeId) }
        : { first_scid: shortChannelIdText(path.firstNode.shortChannelId), first_scid_dir: path.firstNode.direction }),
      first_path_key: hex.encode(path.pathKey),
      path: path.hops.map((hop) => ({ blinded_node_id: hex.encode(hop.blindedNodeId), encrypted_recipient_data: hex.encode(hop.encryptedRecipientData) })),
      payinfo: payinfoJson(own.blindedPay![i]),
    })),
    signature: hex.encode(invoice.signature),
    invoice_amount_msat: Number(own.amountMsat),
    invoice_payment_hash: hex.encode(own.paymentHash!),
    invoice_node_id: hex.encode(own.nodeId!),
    invoice_created_at: Number(own.createdAt),
    invoice_relative_expiry: Number(own.relativeExpiry ?? 7200n),
  };
}
