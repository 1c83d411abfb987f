// LND's REST objects, as its gateway marshals them: proto field names, every field present, 64-bit integers
// as decimal strings, bytes as base64, enums by name.
import { DEFAULT_FEATURE_BITS, type Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import type { LightningNetwork } from '../network.ts';
import type { ChannelRecord, InvoiceRecord, NodeRecord, PaymentRecord, RouteHop } from '../types.ts';

export const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
const str = (n: number | bigint): string => n.toString();
const sat = (msat: number): string => Math.floor(msat / 1000).toString();

const FEATURE_NAMES: Record<number, string> = {
  8: 'tlv-onion',
  9: 'tlv-onion',
  14: 'payment-addr',
  15: 'payment-addr',
  16: 'multi-path-payments',
  17: 'multi-path-payments',
};

export function featuresJson(bits: number[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const bit of bits) {
    out[String(bit)] = { name: FEATURE_NAMES[bit] ?? 'unknown', is_required: bit % 2 === 0, is_known: bit in FEATURE_NAMES };
  }
  return out;
}

// Every invoice record's payment request is written by the network (createInvoice) with LND's default feature bits;
// decoding it again per answer recovered its signer's key in noble, ~2.5 ms, more than making the invoice.
export function invoiceJson(invoice: InvoiceRecord): Record<string, unknown> {
  return {
    memo: invoice.memo,
    r_preimage: invoice.preimage === null ? '' : b64(invoice.preimage),
    r_hash: b64(invoice.paymentHash),
    value: sat(invoice.valueMsat),
    value_msat: str(invoice.valueMsat),
    settled: invoice.state === 'SETTLED',
    creation_date: str(invoice.creationDate),
    settle_date: str(invoice.settleDate),
    payment_request: invoice.paymentRequest,
    description_hash: b64(invoice.descriptionHash),
    expiry: str(invoice.expiry),
    fallback_addr: '',
    cltv_expiry: str(invoice.cltvExpiry),
    route_hints: [],
    private: invoice.private,
    add_index: str(invoice.addIndex),
    settle_index: str(invoice.settleIndex),
    amt_paid: str(invoice.amtPaidMsat),
    amt_paid_sat: sat(invoice.amtPaidMsat),
    amt_paid_msat: str(invoice.amtPaidMsat),
    state: invoice.state,
    htlcs: invoice.htlcs.map((h) => ({
      chan_id: h.chanId,
      htlc_index: str(h.htlcIndex),
      amt_msat: str(h.amountMsat),
      accept_height: h.acceptHeight,
      accept_time: str(h.acceptTime),
      resolve_time: str(h.resolveTime),
      expiry_height: h.expiryHeight,
      state: h.state,
      custom_records: {},
      mpp_total_amt_msat: str(h.amountMsat),
      amp: null,
      custom_channel_data: '',
    })),
    features: featuresJson(DEFAULT_FEATURE_BITS),
    is_keysend: false,
    payment_addr: b64(invoice.paymentAddr),
    is_amp: false,
    amp_invoice_state: {},
    is_blinded: false,
    blinded_path_config: null,
  };
}

function hopJson(hop: RouteHop): Record<string, unknown> {
  return {
    chan_id: hop.chanId,
    chan_capacity: str(hop.chanCapacitySat),
    amt_to_forward: sat(hop.amtToForwardMsat),
    fee: sat(hop.feeMsat),
    expiry: hop.expiry,
    amt_to_forward_msat: str(hop.amtToForwardMsat),
    fee_msat: str(hop.feeMsat),
    pub_key: hop.pubKey,
    tlv_payload: true,
    mpp_record: null,
    amp_record: null,
    custom_records: {},
    metadata: '',
    blinding_point: '',
    encrypted_data: '',
    total_amt_msat: '0',
  };
}

export function routeJson(payment: PaymentRecord): Record<string, unknown> | null {
  if (payment.route === null) return null;
  const totalAmt = payment.valueMsat + payment.feeMsat;
  return {
    total_time_lock: payment.totalTimeLock,
    total_fees: sat(payment.feeMsat),
    total_amt: sat(totalAmt),
    hops: payment.route.map(hopJson),
    total_fees_msat: str(payment.feeMsat),
    total_amt_msat: str(totalAmt),
    first_hop_amount_msat: str(totalAmt),
    custom_channel_data: '',
  };
}

export function paymentJson(payment: PaymentRecord): Record<string, unknown> {
  const route = routeJson(payment);
  const htlcs =
    route === null
      ? []
      : [
          {
            attempt_id: str(payment.paymentIndex),
            status: payment.status,
            route,
            attempt_time_ns: payment.creationTimeNs,
            resolve_time_ns: payment.resolveTimeNs,
            failure:
              payment.status === 'FAILED'
                ? {
                    code: 'INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS',
                    channel_update: null,
                    htlc_msat: '0',
                    onion_sha_256: '',
                    cltv_expiry: 0,
                    flags: 0,
                    failure_source_index: payment.route?.length ?? 0,
                    height: 0,
                  }
                : null,
            preimage: payment.preimage === null ? '' : b64(payment.preimage),
          },
        ];
  return {
    payment_hash: payment.paymentHash,
    value: sat(payment.valueMsat),
    creation_date: (BigInt(payment.creationTimeNs) / 1_000_000_000n).toString(),
    fee: sat(payment.feeMsat),
    payment_preimage: payment.preimage ?? '0'.repeat(64),
    value_sat: sat(payment.valueMsat),
    value_msat: str(payment.valueMsat),
    payment_request: payment.paymentRequest,
    status: payment.status,
    fee_sat: sat(payment.feeMsat),
    fee_msat: str(payment.feeMsat),
    creation_time_ns: payment.creationTimeNs,
    htlcs,
    payment_index: str(payment.paymentIndex),
    failure_reason: payment.failureReason,
    first_hop_custom_records: {},
  };
}

export function channelJson(channel: ChannelRecord, me: string, network: LightningNetwork): Record<string, unknown> {
  const isA = channel.nodeA === me;
  const peer = network.node(isA ? channel.nodeB : channel.nodeA);
  const local = isA ? channel.balanceAMsat : channel.balanceBMsat;
  const remote = isA ? channel.balanceBMsat : channel.balanceAMsat;
  const unsettled = channel.htlcs.reduce((sum, h) => sum + h.amountMsat, 0);
  const sent = isA ? channel.sentMsatA : channel.receivedMsatA;
  const received = isA ? channel.receivedMsatA : channel.sentMsatA;
  return {
    active: true,
    private: channel.private === true,
    remote_pubkey: peer.pubkey,
    channel_point: channel.channelPoint,
    chan_id: channel.chanId,
    capacity: str(channel.capacitySat),
    local_balance: sat(local),
    remote_balance: sat(remote),
    commit_fee: '0',
    commit_weight: '0',
    fee_per_kw: '0',
    unsettled_balance: sat(unsettled),
    total_satoshis_sent: sat(sent),
    total_satoshis_received: sat(received),
    num_updates: str(channel.updates),
    pending_htlcs: channel.htlcs.map((h) => ({
      incoming: h.fromNode !== me,
      amount: sat(h.amountMsat),
      hash_lock: b64(h.paymentHash),
      expiration_height: h.expiryHeight,
      htlc_index: '0',
      forwarding_channel: '0',
      forwarding_htlc_index: '0',
      locked_in: true,
    })),
    csv_delay: 144,
    initiator: isA,
    chan_status_flags: 'ChanStatusDefault',
    local_chan_reserve_sat: '0',
    remote_chan_reserve_sat: '0',
    static_remote_key: false,
    commitment_type: 'ANCHORS',
    lifetime: '0',
    uptime: '0',
    close_address: '',
    push_amount_sat: str(channel.pushSat),
    thaw_height: 0,
    local_constraints: null,
    remote_constraints: null,
    alias_scids: [],
    zero_conf: false,
    zero_conf_confirmed_scid: '0',
    peer_alias: peer.name,
    peer_scid_alias: '0',
    memo: '',
    custom_channel_data: '',
  };
}

export function payReqJson(invoice: Bolt11Invoice): Record<string, unknown> {
  const msat = invoice.amountMsat ?? 0n;
  return {
    destination: invoice.payeeNodeKey,
    payment_hash: invoice.paymentHash,
    num_satoshis: (msat / 1000n).toString(),
    timestamp: str(invoice.timestamp),
    expiry: str(invoice.expiry),
    description: invoice.description ?? '',
    description_hash: invoice.descriptionHash ?? '',
    fallback_addr: '',
    cltv_expiry: str(invoice.minFinalCltvExpiry),
    route_hints: invoice.routeHints.map((hops) => ({
      hop_hints: hops.map((h) => ({
        node_id: h.pubkey,
        chan_id: BigInt('0x' + h.shortChannelId).toString(),
        fee_base_msat: h.feeBaseMsat,
        fee_proportional_millionths: h.feeProportionalMillionths,
        cltv_expiry_delta: h.cltvExpiryDelta,
      })),
    })),
    payment_addr: invoice.paymentSecret === undefined ? '' : b64(invoice.paymentSecret),
    num_msat: msat.toString(),
    features: featuresJson(invoice.featureBits),
    blinded_paths: [],
  };
}

export function lightningNodeJson(node: NodeRecord): Record<string, unknown> {
  return {
    last_update: 0,
    pub_key: node.pubkey,
    alias: node.name,
    addresses: node.restPort === 0 ? [] : [{ network: 'tcp', addr: `127.0.0.1:${node.restPort}` }],
    color: node.color,
    features: featuresJson([8, 14, 17]),
    custom_records: {},
  };
}

export function channelEdgeJson(channel: ChannelRecord, network: LightningNetwork): Record<string, unknown> {
  const policy = { time_lock_delta: 40, min_htlc: '1000', fee_base_msat: '1000', fee_rate_milli_msat: '1', disabled: false, max_htlc_msat: str(channel.capacitySat * 1000), last_update: 0, custom_records: {}, inbound_fee_base_msat: 0, inbound_fee_rate_milli_msat: 0 };
  return {
    channel_id: channel.chanId,
    chan_point: channel.channelPoint,
    last_update: 0,
    node1_pub: network.node(channel.nodeA).pubkey,
    node2_pub: network.node(channel.nodeB).pubkey,
    capacity: str(channel.capacitySat),
    node1_policy: policy,
    node2_policy: policy,
    custom_records: {},
    auth_proof: null, // LND 0.20: only with include_auth_proof
  };
}
