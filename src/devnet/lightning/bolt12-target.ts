// What a payer needs of a BOLT12 invoice to pay it on the devnet, in the shape the network routes BOLT11 invoices
// by: the payee is the first path's introduction node (the devnet's blinded paths have one hop, so the introduction
// node receives: the issuing node itself, or Ferry's node for a wallet's invoice it holds), else invoice_node_id;
// the final CLTV delta is the blinded payinfo's; no payment secret — the network matches the invoice itself.
import { hex } from '@scure/base';
import type { Bolt11Invoice } from '../../lightning/bolt11/index.ts';
import { DEFAULT_RELATIVE_EXPIRY, decodeInvoice } from '../../lightning/bolt12/invoice.ts';
import type { BlindedPath } from '../../lightning/bolt12/index.ts';

const introductionNode = (path: BlindedPath | undefined): Uint8Array | undefined =>
  path !== undefined && 'nodeId' in path.firstNode ? path.firstNode.nodeId : undefined;

export function bolt12PaymentTarget(text: string): Bolt11Invoice {
  const invoice = decodeInvoice(text);
  const own = invoice.invoice;
  return {
    paymentRequest: text,
    network: 'bcrt',
    amountMsat: own.amountMsat,
    timestamp: Number(own.createdAt),
    paymentHash: hex.encode(own.paymentHash!),
    paymentSecret: undefined,
    description: invoice.offer.description,
    descriptionHash: undefined,
    expiry: Number(own.relativeExpiry ?? DEFAULT_RELATIVE_EXPIRY),
    minFinalCltvExpiry: own.blindedPay![0].cltvExpiryDelta,
    payeeNodeKey: hex.encode(introductionNode(own.paths![0]) ?? own.nodeId!),
    featureBits: [],
    routeHints: [],
    fallbackAddresses: [],
    signature: hex.encode(invoice.signature),
    recoveryId: 0,
  };
}
