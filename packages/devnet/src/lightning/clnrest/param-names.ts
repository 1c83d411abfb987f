// The named parameters lightningd's methods take (Core Lightning v26.06.6, doc/schemas/<method>.json `request`;
// test/fixtures/cln/ holds those files and test/contracts/cln.test.ts checks this table against them), and
// lightningd's param parser's refusal of any other name (common/json_param.c): code -32602 "unknown parameter: …".
// Not here: `pay`, which xpay takes over and whose unknown parameters it ignores (pay.ts), and the hold plugin's
// methods, which ignore unknown names as serde does (hold.ts).
import { invalidParams } from './errors.ts';
import type { Params } from './params.ts';

export const LIGHTNINGD_PARAMS: Record<string, readonly string[]> = {
  getinfo: [],
  listpeerchannels: ['id', 'short_channel_id', 'channel_id'],
  listnodes: ['id'],
  listchannels: ['short_channel_id', 'source', 'destination'],
  listinvoices: ['label', 'invstring', 'payment_hash', 'offer_id', 'index', 'start', 'limit'],
  listsendpays: ['bolt11', 'payment_hash', 'status', 'index', 'start', 'limit'],
  invoice: ['amount_msat', 'label', 'description', 'expiry', 'fallbacks', 'preimage', 'exposeprivatechannels', 'cltv', 'deschashonly'],
  decode: ['string'],
  fetchinvoice: [
    'offer',
    'amount_msat',
    'quantity',
    'recurrence_counter',
    'recurrence_start',
    'recurrence_label',
    'timeout',
    'payer_note',
    'payer_metadata',
    'bip353',
    'dev_reply_path',
    'dev_path_use_scidd',
  ],
  injectonionmessage: ['path_key', 'message'],
  offer: [
    'amount',
    'description',
    'issuer',
    'label',
    'quantity_max',
    'absolute_expiry',
    'recurrence',
    'recurrence_base',
    'recurrence_paywindow',
    'recurrence_limit',
    'single_use',
    'proportional_amount',
    'optional_recurrence',
    'fronting_nodes',
    'dev_paths',
  ],
  listoffers: ['offer_id', 'active_only'],
};

/** Refuses a parameter the lightningd method does not take, in its param parser's words. */
export function checkParamNames(method: string, params: Params): void {
  const known = LIGHTNINGD_PARAMS[method];
  if (known === undefined) return;
  for (const name of Object.keys(params)) {
    if (!known.includes(name)) {
      throw invalidParams(
        `unknown parameter: ${name}, this may be caused by a failure to autodetect key=value-style parameters. Please try using the -k flag and explicit key=value pairs of parameters.`,
      );
    }
  }
}
