// The hold plugin's JSON-RPC methods on a devnet CLN node (BoltzExchange/hold: holdinvoice, injectinvoice,
// listholdinvoices, settleholdinvoice, cancelholdinvoice), over the network model's hold invoices. The plugin's `holdinvoice`
// takes payment_hash and amount (msat); memo, description hash, expiry and min_final_cltv_expiry are fields of
// its gRPC InvoiceRequest only. The devnet also takes them here as named parameters — `description`,
// `description_hash`, `expiry`, `min_final_cltv_expiry` — which a real plugin ignores (serde drops unknown fields).
import { createHash } from 'node:crypto';
import { decodeBolt11 } from '../../../lightning/bolt11/index.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import { holdInvoiceJson } from './json.ts';
import type { Method, MethodContext } from './lightningd.ts';
import { optionalHash, optionalInt, optionalString, requiredHash, requiredInt, requiredString } from './params.ts';

const pluginError = (err: unknown): ClnError => new ClnError(CLN.PLUGIN_ERROR, toClnError(err).message);

function holdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const paymentHash = requiredHash(params, 'payment_hash');
  const amount = requiredInt(params, 'amount');
  try {
    const created = network.addHoldInvoice(node, paymentHash, {
      valueMsat: amount,
      memo: optionalString(params, 'description') ?? '',
      descriptionHash: optionalHash(params, 'description_hash'),
      expiry: optionalInt(params, 'expiry'),
      cltvExpiry: optionalInt(params, 'min_final_cltv_expiry'),
    });
    return { bolt11: created.paymentRequest };
  } catch (err) {
    throw pluginError(err);
  }
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
  const holds = network.listInvoices(node).filter((i) => i.hold);
  return {
    holdinvoices: holds
      .map((i, index) => ({ i, id: index + 1 }))
      .filter(({ i }) => hash === undefined || i.paymentHash === hash)
      .map(({ i, id }) => holdInvoiceJson(i, id)),
  };
}

function settleholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const preimage = requiredHash(params, 'preimage');
  const hash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
  if (network.findInvoice(node, hash)?.hold !== true) throw new ClnError(CLN.PLUGIN_ERROR, 'hold invoice not found');
  try {
    network.settleInvoice(node, preimage);
  } catch (err) {
    throw pluginError(err);
  }
  return {};
}

function cancelholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const hash = requiredHash(params, 'payment_hash');
  if (network.findInvoice(node, hash)?.hold !== true) throw new ClnError(CLN.PLUGIN_ERROR, 'hold invoice not found');
  try {
    network.cancelInvoice(node, hash);
  } catch (err) {
    throw pluginError(err);
  }
  return {};
}

// injectinvoice: an invoice made elsewhere (a wallet's BOLT12 invoice whose path leads to this node) is held
// here under its payment hash. The devnet takes BOLT12 invoices only (a BOLT11 one's payment secret is not ours).
function injectinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const text = requiredString(params, 'invoice');
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
      cltvExpiry: optionalInt(params, 'min_cltv') ?? target.minFinalCltvExpiry,
      bolt12: text,
    });
  } catch (err) {
    throw pluginError(err);
  }
  return {};
}

export const HOLD_METHODS: Record<string, Method> = { holdinvoice, injectinvoice, listholdinvoices, settleholdinvoice, cancelholdinvoice };
