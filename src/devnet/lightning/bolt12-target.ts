// What a payer needs of a BOLT12 invoice to pay it on the devnet, in the shape the network routes BOLT11 invoices
// by: the payee is invoice_node_id (the devnet's paths lead straight to it), the final CLTV delta is the blinded
// payinfo's, and there is no payment secret — the network matches the invoice itself instead.
import { hex } from '@scure/base';
import type { Bolt11Invoice } from '../../lightning/bolt11/index.ts';
import { DEFAULT_RELATIVE_EXPIRY, decodeInvoice } from '../../lightning/bolt12/invoice.ts';

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
    payeeNodeKey: hex.encode(own.nodeId!),
    featureBits: [],
    routeHints: [],
    fallbackAddresses: [],
    signature: hex.encode(invoice.signature),
    recoveryId: 0,
  };
}
