// A BOLT12 invoice (lni) read into the terms a payer and Ferry's checks use of any invoice — the shape BOLT11
// invoices are decoded to —, so a backend that pays BOLT12 (CLN) serves swaps with either. The network is the
// chain the invoice request named (or the offer's first, Bitcoin's when it names none), the final CLTV delta the
// first blinded path's; there is no payment secret (it travels inside the blinded path) and no route hints.
import { hex } from '@scure/base';
import type { Bolt11Invoice, Bolt11Network } from '../bolt11/index.ts';
import { DEFAULT_RELATIVE_EXPIRY, decodeInvoice } from './invoice.ts';

/** Genesis block hashes as BOLT12 writes chains (internal byte order). */
const CHAINS: Record<string, Bolt11Network> = {
  '6fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000': 'bc',
  '43497fd7f826957108f4a30fd9cec3aeba79972084e90ead01ea330900000000': 'tb',
  f61eee3b63a380a477a063af32b2bbc97c9ff9f01f2c4225e973988108000000: 'tbs',
  '06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f': 'bcrt',
};

export const isBolt12Invoice = (text: string): boolean => /^lni1/i.test(text);

export function bolt12AsInvoice(text: string): Bolt11Invoice {
  const invoice = decodeInvoice(text);
  const own = invoice.invoice;
  const chain = invoice.invreq.chain ?? invoice.offer.chains?.[0];
  const network = chain === undefined ? 'bc' : CHAINS[hex.encode(chain)];
  if (network === undefined) throw new Error(`invoice for an unknown chain ${hex.encode(chain!).slice(0, 16)}`);
  return {
    paymentRequest: text,
    network,
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
