// The hold plugin (BoltzExchange/hold v0.3.3) on a devnet CLN node, over the network model's hold invoices: its
// operations once, called from both of its faces — the JSON-RPC methods here and the gRPC service (hold-grpc.ts).
// The RPC methods are exactly the plugin's (src/main.rs, src/commands/): holdinvoice {payment_hash, amount},
// injectholdinvoice {invoice, min_cltv?}, listholdinvoices {payment_hash?, invoice?}, settleholdinvoice {preimage},
// cancelholdinvoice {payment_hash}. Each reads its named parameters as serde reads a struct: unknown ones are
// ignored, a missing one is "missing field `x`"; `holdinvoice` gives every invoice the plugin's defaults (empty
// description, expiry 3600 s, CLTV delta 80) — memo, description hash, expiry and CLTV delta are gRPC fields only.
// A plugin's error reaches the caller with code -32700 (cln-plugin's parse_error) and its message.
import { createHash } from 'node:crypto';
import { decodeBolt11, type RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import type { LightningNetwork } from '../network.ts';
import type { InvoiceRecord } from '../types.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import { holdInvoiceJson } from './json.ts';
import type { Method, MethodContext } from './lightningd.ts';
import type { Params } from './params.ts';

const pluginError = (err: unknown): ClnError => new ClnError(CLN.PLUGIN_ERROR, toClnError(err).message);

// The plugin's invoice defaults (src/encoder.rs: lightning_invoice's DEFAULT_EXPIRY_TIME, its own CLTV delta).
const PLUGIN_EXPIRY_SECONDS = 3600;
const PLUGIN_MIN_FINAL_CLTV_EXPIRY = 80;

// serde_json's words for a struct field that is absent or of the wrong JSON type.
function field(params: Params, name: string, kind: 'string' | 'u64', required: boolean): string | number | undefined {
  const value = params[name];
  if (value === undefined || (value === null && !required)) {
    if (required) throw new ClnError(CLN.PLUGIN_ERROR, `missing field \`${name}\``);
    return undefined;
  }
  if (kind === 'string' && typeof value === 'string') return value;
  if (kind === 'u64' && typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new ClnError(CLN.PLUGIN_ERROR, `invalid type: ${serdeType(value)}, expected ${kind === 'string' ? 'a string' : 'u64'}`);
}

function serdeType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  return Array.isArray(value) ? 'sequence' : 'map';
}

/** hex::decode of a plugin parameter, refused in its words; lower-case hex. */
function hexField(value: string): string {
  if (value.length % 2 !== 0) throw new ClnError(CLN.PLUGIN_ERROR, 'Odd number of digits');
  const bad = /[^0-9a-fA-F]/.exec(value);
  if (bad !== null) throw new ClnError(CLN.PLUGIN_ERROR, `Invalid character '${bad[0]}' at position ${bad.index}`);
  return value.toLowerCase();
}

const hash32 = (value: string): string => {
  const hex = hexField(value);
  if (hex.length !== 64) throw new ClnError(CLN.PLUGIN_ERROR, 'invalid payment hash length');
  return hex;
};

export interface HoldInvoiceSpec {
  paymentHash: string;
  amountMsat: number;
  memo?: string;
  descriptionHash?: string;
  expiry?: number;
  minFinalCltvExpiry?: number;
  routeHints?: RouteHintHop[][];
}

/** Makes a hold invoice; its BOLT11. What is not given is the plugin's default (src/encoder.rs). */
export function createHold(network: LightningNetwork, node: string, spec: HoldInvoiceSpec): string {
  try {
    return network.addHoldInvoice(node, spec.paymentHash, {
      valueMsat: spec.amountMsat,
      memo: spec.memo ?? '',
      descriptionHash: spec.descriptionHash,
      expiry: spec.expiry ?? PLUGIN_EXPIRY_SECONDS,
      cltvExpiry: spec.minFinalCltvExpiry ?? PLUGIN_MIN_FINAL_CLTV_EXPIRY,
      ...(spec.minFinalCltvExpiry !== undefined && { holdMinCltv: spec.minFinalCltvExpiry }),
      ...(spec.routeHints !== undefined && { routeHints: spec.routeHints }),
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
      ...(minCltv !== undefined && { holdMinCltv: minCltv }),
      bolt12: text,
    });
  } catch (err) {
    throw pluginError(err);
  }
}

function holdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const paymentHash = hash32(field(params, 'payment_hash', 'string', true) as string);
  const amountMsat = field(params, 'amount', 'u64', true) as number;
  const bolt11 = createHold(network, node, { paymentHash, amountMsat, memo: '' });
  return { bolt11 };
}

function listholdinvoices({ network, node, params }: MethodContext): Record<string, unknown> {
  const hashText = field(params, 'payment_hash', 'string', false) as string | undefined;
  const invoice = field(params, 'invoice', 'string', false) as string | undefined;
  if (hashText !== undefined && invoice !== undefined) throw new ClnError(CLN.PLUGIN_ERROR, 'too many parameters');
  let hash = hashText === undefined ? undefined : hexField(hashText);
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
  settleHold(network, node, hexField(field(params, 'preimage', 'string', true) as string));
  return {};
}

function cancelholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  cancelHold(network, node, hexField(field(params, 'payment_hash', 'string', true) as string));
  return {};
}

function injectholdinvoice({ network, node, params }: MethodContext): Record<string, unknown> {
  const invoice = field(params, 'invoice', 'string', true) as string;
  const minCltv = field(params, 'min_cltv', 'u64', false) as number | undefined;
  injectHold(network, node, invoice, minCltv);
  return {};
}

export const HOLD_METHODS: Record<string, Method> = { holdinvoice, injectholdinvoice, listholdinvoices, settleholdinvoice, cancelholdinvoice };
