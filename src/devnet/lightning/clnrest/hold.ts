// The hold plugin (BoltzExchange/hold) on a devnet CLN node, over the network model's hold invoices: its operations
// once, called from both of its faces — the JSON-RPC methods here (holdinvoice, injectinvoice, listholdinvoices,
// settleholdinvoice, cancelholdinvoice) and the gRPC service (hold-grpc.ts). The plugin's `holdinvoice` takes
// payment_hash and amount (msat); memo, description hash, expiry and min_final_cltv_expiry are fields of its gRPC
// InvoiceRequest only. The devnet also takes them here as named parameters — `description`, `description_hash`,
// `expiry`, `min_final_cltv_expiry` — which a real plugin ignores (serde drops unknown fields).
import { createHash } from 'node:crypto';
import { decodeBolt11 } from '../../../lightning/bolt11/index.ts';
import type { LightningNetwork } from '../network.ts';
import type { InvoiceRecord } from '../types.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import { holdInvoiceJson } from './json.ts';
import type { Method, MethodContext } from './lightningd.ts';
import { optionalHash, optionalInt, optionalString, requiredHash, requiredInt, requiredString } from './params.ts';

const pluginError = (err: unknown): ClnError => new ClnError(CLN.PLUGIN_ERROR, toClnError(err).message);

export interface HoldInvoiceSpec {
  paymentHash: string;
  amountMsat: number;
  memo?: string;
  descriptionHash?: string;
  expiry?: number;
  minFinalCltvExpiry?: number;
}

/** Makes a hold invoice; its BOLT11. */
export function createHold(network: LightningNetwork, node: string, spec: HoldInvoiceSpec): string {
  try {
    return network.addHoldInvoice(node, spec.paymentHash, {
      valueMsat: spec.amountMsat,
      memo: spec.memo ?? '',
      descriptionHash: spec.descriptionHash,
      expiry: spec.expiry,
      cltvExpiry: spec.minFinalCltvExpiry,
    }).paymentRequest;
  } catch (err) {
    throw pluginError(err);
  }
}

/** The node's hold invoices with the plugin's ids (1, 2, … in the order made), or the one of a payment hash. */
export function holdInvoicesOf(network: LightningNetwork, node: string, paymentHash?: string): { invoice: InvoiceRecord; id: number }[] {
  return network
    .listInvoices(node)
    .filter((i) => i.hold)
    .map((invoice, index) => ({ invoice, id: index + 1 }))
    .filter(({ invoice }) => paymentHash === undefined || invoice.paymentHash === paymentHash);
}

export function settleHold(network: LightningNetwork, node: string, preimage: string): void {
  const hash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
  if (network.findInvoice(node, hash)?.hold !== true) throw new ClnError(CLN.PLUGIN_ERROR, 'hold invoice not found');
  try {
    network.settleInvoice(node, preimage);
  } catch (err) {
    throw pluginError(err);
  }
}

export function cancelHold(network: LightningNetwork, node: string, paymentHash: string): void {
  if (network.findInvoice(node, paymentHash)?.hold !== true) throw new ClnError(CLN.PLUGIN_ERROR, 'hold invoice not found');
  try {
    network.cancelInvoice(node, paymentHash);
  } catch (err) {
    throw pluginError(err);
  }
}

// Inject: an invoice made elsewhere (a wallet's BOLT12 invoice whose path leads to this node) is held here under
// its payment hash. The devnet takes BOLT12 invoices only (a BOLT11 one's payment secret is not ours).
export function injectHold(network: LightningNetwork, node: string, text: string, minCltv?: number): void {
  if (!/^lni1/i.test(text)) throw new ClnError(CLN.PLUGIN_ERROR, 'devnet: only BOLT12 invoices can be injected');
  let target;
  try {
    target = network.decodePaymentRequest(text);
  } catch (err) {
    throw pluginError(err);
  }
  if (target.payeeNodeKey !== network.node(node).pubkey) throw new ClnError(CLN.PLUGIN_ERROR, 'the invoice has no path through this node');
  try {
    network.addHoldInvoice(node, target.paymentHash, {
      valueMsat: Number(target.amountMsat ?? 0n),
      memo: target.description ?? '',
      expiry: Math.max(1, target.timestamp + target.expiry - Math.floor(Date.now() / 1000)),
      cltvExpiry: minCltv ?? target.minFinalCltvExpiry,
      bolt12: text,
    });
  } catch (err) {
    throw pluginError(err);
  }
}

function holdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const bolt11 = createHold(network, node, {
    paymentHash: requiredHash(params, 'payment_hash'),
    amountMsat: requiredInt(params, 'amount'),
    memo: optionalString(params, 'description'),
    descriptionHash: optionalHash(params, 'description_hash'),
    expiry: optionalInt(params, 'expiry'),
    minFinalCltvExpiry: optionalInt(params, 'min_final_cltv_expiry'),
  });
  return { bolt11 };
}

function listholdinvoices({ network, node, params }: MethodContext): Record<string, unknown> {
  let hash = optionalHash(params, 'payment_hash');
  const invoice = optionalString(params, 'invoice');
  if (hash !== undefined && invoice !== undefined) throw new ClnError(CLN.PLUGIN_ERROR, 'too many parameters');
  if (invoice !== undefined) {
    try {
      hash = decodeBolt11(invoice).paymentHash;
    } catch (err) {
      throw pluginError(err);
    }
  }
  return { holdinvoices: holdInvoicesOf(network, node, hash).map(({ invoice, id }) => holdInvoiceJson(invoice, id)) };
}

function settleholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  settleHold(network, node, requiredHash(params, 'preimage'));
  return {};
}

function cancelholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  cancelHold(network, node, requiredHash(params, 'payment_hash'));
  return {};
}

function injectinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  injectHold(network, node, requiredString(params, 'invoice'), optionalInt(params, 'min_cltv'));
  return {};
}

export const HOLD_METHODS: Record<string, Method> = { holdinvoice, injectinvoice, listholdinvoices, settleholdinvoice, cancelholdinvoice };
