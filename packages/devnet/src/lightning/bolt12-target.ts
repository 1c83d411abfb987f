// What a payer needs of a BOLT12 invoice to pay it on the devnet: its terms as any backend reads them, but with
// the first path's introduction node as the payee — the devnet's blinded paths have one hop, so the introduction
// node receives: the issuing node itself, or Ferry's node for a wallet's invoice it holds. The network then
// matches the invoice itself, as there is no payment secret.
import { hex } from '@scure/base';
import type { Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import { bolt12AsInvoice } from '@ferry/sdk/lightning/bolt12/payable.js';
import { decodeInvoice } from '@ferry/sdk/lightning/bolt12/invoice.js';

export function bolt12PaymentTarget(text: string): Bolt11Invoice {
  const terms = bolt12AsInvoice(text);
  const first = decodeInvoice(text).invoice.paths![0]?.firstNode;
  return first !== undefined && 'nodeId' in first ? { ...terms, payeeNodeKey: hex.encode(first.nodeId) } : terms;
}
