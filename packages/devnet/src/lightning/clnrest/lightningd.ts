// The lightningd methods of a devnet CLN node (payments: pay.ts; offers: offers.ts): node info, channels,
// invoices of its own and `decode`, each read from or applied to the shared network model.
import { createHash } from 'node:crypto';
import type { LightningNetwork } from '../network.ts';
import { CLN, ClnError, invalidParams } from './errors.ts';
import { decodedBolt11Json, invoiceJson, peerChannelJson, sendPayJson } from './json.ts';
import { decodedBolt12Json } from './offers.ts';
import { neverSent } from './pay.ts';
import { optionalHash, optionalInt, optionalString, requiredString, type Params } from './params.ts';

export const DEVNET_CLN_VERSION = 'v24.11.1-devnet';

// The feature bits a devnet node says it has, as lightningd writes them (hex of the bit field): var_onion (8/9),
// payment_secret (14/15), basic_mpp (16/17), static_remotekey (12/13), anchors (22/23), offers (38/39) as optional.
export const NODE_FEATURES = '8000008a2a2200';
const OUR_FEATURES = { init: NODE_FEATURES, node: NODE_FEATURES, channel: '', invoice: '02000002024100' };

export interface MethodContext {
  network: LightningNetwork;
  node: string;
  params: Params;
}

export type Method = (ctx: MethodContext) => unknown;

function getinfo({ network, node }: MethodContext): Record<string, unknown> {
  const me = network.node(node);
  const channels = network.channelsOf(node);
  const peers = new Set(channels.map((c) => (c.nodeA === node ? c.nodeB : c.nodeA)));
  // A node on loopback announces nothing (`address` is empty, as lightningd's for a local bind): only `binding` says
  // where it listens.
  const binding = me.restPort === 0 ? [] : [{ type: 'ipv4', address: '127.0.0.1', port: me.restPort }];
  return {
    id: me.pubkey,
    alias: me.name,
    color: me.color.slice(1),
    num_peers: peers.size,
    num_pending_channels: 0,
    num_active_channels: channels.length,
    num_inactive_channels: 0,
    address: [],
    binding,
    version: DEVNET_CLN_VERSION,
    blockheight: network.height,
    network: 'regtest',
    fees_collected_msat: 0,
    'lightning-dir': `/devnet/${node}/regtest`,
    our_features: OUR_FEATURES,
  };
}

function listpeerchannels({ network, node, params }: MethodContext): Record<string, unknown> {
  const id = optionalString(params, 'id');
  const channels = network
    .channelsOf(node)
    .filter((c) => id === undefined || network.node(c.nodeA === node ? c.nodeB : c.nodeA).pubkey === id);
  return { channels: channels.map((c) => peerChannelJson(c, node, network)) };
}

function invoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const label = requiredString(params, 'label');
  const description = requiredString(params, 'description');
  const amount = params.amount_msat === 'any' ? 0 : optionalInt(params, 'amount_msat');
  if (amount === undefined) throw invalidParams('missing required parameter: amount_msat');
  if (network.listInvoices(node).some((i) => i.label === label)) {
    throw new ClnError(CLN.INVOICE_LABEL_ALREADY_EXISTS, `Duplicate label '${label}'`);
  }
  const preimage = optionalHash(params, 'preimage');
  const deschashonly = params.deschashonly === true;
  const created = network.addInvoice(node, {
    valueMsat: amount,
    memo: description,
    ...(deschashonly && { descriptionHash: createHash('sha256').update(description).digest('hex') }),
    expiry: optionalInt(params, 'expiry'),
    cltvExpiry: optionalInt(params, 'cltv'),
    label,
    ...(preimage !== undefined && { preimage }),
  });
  return {
    bolt11: created.paymentRequest,
    payment_hash: created.paymentHash,
    payment_secret: created.paymentAddr,
    expires_at: created.creationDate + created.expiry,
    created_index: created.addIndex,
  };
}

function listinvoices({ network, node, params }: MethodContext): Record<string, unknown> {
  const label = optionalString(params, 'label');
  const bolt11 = optionalString(params, 'invstring');
  const hash = optionalHash(params, 'payment_hash');
  const invoices = network
    .listInvoices(node)
    .filter((i) => !i.hold)
    .filter((i) => label === undefined || i.label === label)
    .filter((i) => bolt11 === undefined || i.paymentRequest === bolt11)
    .filter((i) => hash === undefined || i.paymentHash === hash);
  return { invoices: invoices.map(invoiceJson) };
}

function listsendpays({ network, node, params }: MethodContext): Record<string, unknown> {
  const hash = optionalHash(params, 'payment_hash');
  const bolt11 = optionalString(params, 'bolt11');
  const payments = network
    .listPayments(node)
    .filter((p) => hash === undefined || p.paymentHash === hash)
    .filter((p) => bolt11 === undefined || p.paymentRequest === bolt11)
    .filter((p) => !neverSent(p));
  return { payments: payments.map((p) => sendPayJson(p)) };
}

function decode({ params }: MethodContext): Record<string, unknown> {
  const text = requiredString(params, 'string');
  try {
    return /^ln[oi]1/i.test(text) ? decodedBolt12Json(text) : decodedBolt11Json(text);
  } catch (err) {
    throw new ClnError(CLN.INVALID_PARAMS, `string: Unparsable invoice: ${(err as Error).message}`);
  }
}

export const LIGHTNINGD_METHODS: Record<string, Method> = {
  getinfo,
  listpeerchannels,
  invoice,
  listinvoices,
  listsendpays,
  decode,
};
