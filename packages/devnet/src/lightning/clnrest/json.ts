// Core Lightning's JSON objects for the devnet's records, as lightningd and the hold plugin write them: amounts
// in msat as integers, hashes and keys as hex, short channel ids as BLOCKxTXxOUT, states in lower case.
import { createHash } from 'node:crypto';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { bolt12PaymentTarget } from '../bolt12-target.ts';
import type { LightningNetwork } from '../network.ts';
import type { ChannelRecord, InvoiceRecord, PaymentRecord } from '../types.ts';

export function shortChannelId(chanId: string): string {
  const id = BigInt(chanId);
  return `${id >> 40n}x${(id >> 16n) & 0xffffffn}x${id & 0xffffn}`;
}

export function peerChannelJson(channel: ChannelRecord, node: string, network: LightningNetwork): Record<string, unknown> {
  const local = channel.nodeA === node;
  const peer = network.node(local ? channel.nodeB : channel.nodeA);
  const [txid, vout] = channel.channelPoint.split(':');
  const toUs = local ? channel.balanceAMsat : channel.balanceBMsat;
  const toThem = local ? channel.balanceBMsat : channel.balanceAMsat;
  return {
    peer_id: peer.pubkey,
    peer_connected: true,
    state: 'CHANNELD_NORMAL',
    short_channel_id: shortChannelId(channel.chanId),
    direction: network.node(node).pubkey < peer.pubkey ? 0 : 1,
    channel_id: txid,
    funding_txid: txid,
    funding_outnum: Number(vout),
    private: false,
    opener: local ? 'local' : 'remote',
    features: ['option_static_remotekey', 'option_anchors'],
    to_us_msat: toUs,
    total_msat: channel.capacitySat * 1000,
    spendable_msat: toUs,
    receivable_msat: toThem,
    htlcs: channel.htlcs.map((h, i) => ({
      direction: h.fromNode === node ? 'out' : 'in',
      id: i,
      amount_msat: h.amountMsat,
      expiry: h.expiryHeight,
      payment_hash: h.paymentHash,
      state: h.fromNode === node ? 'SENT_ADD_ACK_REVOCATION' : 'RCVD_ADD_ACK_REVOCATION',
    })),
  };
}

/** An invoice of lightningd's own (listinvoices): no hold state, so an unpaid invoice that ended is `expired`. */
export function invoiceJson(invoice: InvoiceRecord): Record<string, unknown> {
  const paid = invoice.state === 'SETTLED';
  return {
    label: invoice.label ?? invoice.paymentHash,
    description: invoice.memo,
    payment_hash: invoice.paymentHash,
    status: paid ? 'paid' : invoice.state === 'CANCELED' ? 'expired' : 'unpaid',
    expires_at: invoice.creationDate + invoice.expiry,
    ...(invoice.valueMsat > 0 && { amount_msat: invoice.valueMsat }),
    ...(invoice.bolt12 !== undefined ? { bolt12: invoice.bolt12 } : { bolt11: invoice.paymentRequest }),
    created_index: invoice.addIndex,
    ...(paid && {
      pay_index: invoice.settleIndex,
      amount_received_msat: invoice.amtPaidMsat,
      paid_at: invoice.settleDate,
      payment_preimage: invoice.preimage,
    }),
  };
}

export const HOLD_STATES = { OPEN: 'unpaid', ACCEPTED: 'accepted', SETTLED: 'paid', CANCELED: 'cancelled' } as const;
export const HTLC_STATES = { ACCEPTED: 'accepted', SETTLED: 'paid', CANCELED: 'cancelled' } as const;
const dateTime = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('Z', '');

/** A hold invoice as the hold plugin's listholdinvoices prints it. */
export function holdInvoiceJson(invoice: InvoiceRecord, id: number): Record<string, unknown> {
  return {
    id,
    payment_hash: invoice.paymentHash,
    ...(invoice.preimage !== null && { preimage: invoice.preimage }),
    invoice: invoice.bolt12 ?? invoice.paymentRequest,
    state: HOLD_STATES[invoice.state],
    // the plugin keeps a min_cltv for an injected invoice and a gRPC one made with a CLTV delta, none for its RPC's
    ...(invoice.holdMinCltv !== undefined && { min_cltv: invoice.holdMinCltv }),
    created_at: dateTime(invoice.creationDate),
    ...(invoice.settleDate > 0 && { settled_at: dateTime(invoice.settleDate) }),
    htlcs: invoice.htlcs.map((h) => ({
      id: h.htlcIndex,
      invoice_id: id,
      state: HTLC_STATES[h.state],
      scid: shortChannelId(h.chanId),
      channel_id: h.htlcIndex,
      msat: h.amountMsat,
      cltv_expiry: h.expiryHeight,
      created_at: dateTime(h.acceptTime),
    })),
  };
}

/** The payee of a BOLT11 or BOLT12 invoice. */
export const destinationOf = (paymentRequest: string): string =>
  paymentRequest.startsWith('lni') ? bolt12PaymentTarget(paymentRequest).payeeNodeKey : decodeBolt11(paymentRequest).payeeNodeKey;

const PAY_STATES = { IN_FLIGHT: 'pending', SUCCEEDED: 'complete', FAILED: 'failed' } as const;

/** One payment as listsendpays prints it (the devnet pays in one part). */
/**
 * The payment's part group: lightningd's groupid is a u64, in practice past 2^53 (so clients must read it losslessly);
 * the devnet's is fixed per node and payment hash, with the top bit set.
 */
export const groupIdOf = (payment: PaymentRecord): bigint =>
  BigInt(`0x${createHash('sha256').update(`${payment.node}:${payment.paymentHash}`).digest('hex').slice(0, 16)}`) | (1n << 63n);

export function sendPayJson(payment: PaymentRecord): Record<string, unknown> {
  const destination = destinationOf(payment.paymentRequest);
  return {
    created_index: payment.paymentIndex,
    id: payment.paymentIndex,
    groupid: groupIdOf(payment),
    payment_hash: payment.paymentHash,
    status: PAY_STATES[payment.status],
    amount_msat: payment.valueMsat,
    amount_sent_msat: payment.valueMsat + payment.feeMsat,
    destination,
    created_at: Number(BigInt(payment.creationTimeNs) / 1_000_000_000n),
    ...(payment.status !== 'IN_FLIGHT' && { completed_at: Number(BigInt(payment.resolveTimeNs) / 1_000_000_000n) }),
    ...(payment.paymentRequest.startsWith('lni') ? { bolt12: payment.paymentRequest } : { bolt11: payment.paymentRequest }),
    ...(payment.preimage !== null && payment.status === 'SUCCEEDED' && { payment_preimage: payment.preimage }),
  };
}

/** `decode` of a BOLT11 string. */
export function decodedBolt11Json(paymentRequest: string): Record<string, unknown> {
  const invoice = decodeBolt11(paymentRequest);
  return {
    type: 'bolt11 invoice',
    valid: true,
    currency: invoice.network,
    created_at: invoice.timestamp,
    expiry: invoice.expiry,
    payee: invoice.payeeNodeKey,
    ...(invoice.amountMsat !== undefined && { amount_msat: Number(invoice.amountMsat) }),
    payment_hash: invoice.paymentHash,
    signature: invoice.signature,
    ...(invoice.description !== undefined && { description: invoice.description }),
    ...(invoice.descriptionHash !== undefined && { description_hash: invoice.descriptionHash }),
    min_final_cltv_expiry: invoice.minFinalCltvExpiry,
    ...(invoice.paymentSecret !== undefined && { payment_secret: invoice.paymentSecret }),
  };
}
