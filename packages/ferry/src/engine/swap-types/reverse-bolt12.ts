// A reverse swap paid through the wallet's own BOLT12 invoice (`invoice` on creation, as the reference takes it):
// the wallet answered an invoice request for its offer with an invoice for its preimage hash whose blinded path
// leads to Ferry's node, and Ferry's node holds payments for it (the hold plugin's inject) instead of issuing a
// hold invoice of its own. Everything after that — held, locked, settled by the preimage — is the usual leg.
import { hex } from '@scure/base';
import { Bolt12Error, decodeInvoice, invoiceExpiresAt } from '@ferry/sdk/lightning/bolt12/index.js';
import type { LightningBackend } from '../../lightning/backend.ts';
import { SwapError } from '@ferry/sdk/protocol/index.js';

export interface WalletInvoice {
  invoice: string;
  invoiceAmount: number; // sat
  expiresAt: number; // unix seconds
}

const invalid = (message: string) => new SwapError('invalid', message);

/** Checks the wallet's invoice against the swap: a BOLT12 invoice, for its preimage hash, payable through our node. */
export async function walletBolt12Invoice(lightning: LightningBackend, text: string, paymentHash: string, invoiceAmount?: number): Promise<WalletInvoice> {
  if (lightning.injectHoldInvoice === undefined) throw invalid('BOLT12 invoices need a Lightning node that can hold them (CLN)');
  let decoded;
  try {
    decoded = decodeInvoice(text);
  } catch (error) {
    if (error instanceof Bolt12Error) throw invalid(`invalid parameter: invoice (${error.message})`);
    throw error;
  }
  const own = decoded.invoice;
  if (hex.encode(own.paymentHash!) !== paymentHash) throw invalid('the invoice is not for preimageHash');
  if (own.amountMsat! % 1000n !== 0n || own.amountMsat! === 0n) throw invalid('the invoice amount must be a positive number of whole satoshis');
  const amount = Number(own.amountMsat! / 1000n);
  if (invoiceAmount !== undefined && invoiceAmount !== amount) throw invalid(`invoiceAmount ${invoiceAmount} is not the invoice's ${amount}`);
  const expiresAt = Number(invoiceExpiresAt(decoded));
  if (expiresAt <= Date.now() / 1000) throw invalid('the invoice has expired');
  const ours = (await lightning.getInfo()).publicKey;
  const throughUs = own.paths!.some((path) => 'nodeId' in path.firstNode && hex.encode(path.firstNode.nodeId) === ours);
  if (!throughUs) throw invalid("the invoice has no path through Ferry's node");
  return { invoice: text, invoiceAmount: amount, expiresAt };
}
