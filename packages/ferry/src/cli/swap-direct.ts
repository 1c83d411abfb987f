// `ferry swap submarine` and the magic routing hint: before swapping chain coins into an invoice, ask whether its
// receiver takes them on chain directly (a reverse swap whose receiver signed its address with the key the invoice's
// hint names). When it does, there is nothing to swap: the CLI prints the checked address and amount to pay instead,
// and creates no swap. As the reference's wallets do, an invoice without a hint (or one the service has no BIP21 for)
// is swapped as usual, but a hint whose BIP21 fails a check (signature, chain, asset, amount) is refused.
import { VerificationError } from '@ferry/sdk/client/errors.js';
import type { DirectPayment } from '@ferry/sdk/client/direct-payment.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/decode.js';
import { btc, type Output } from './swap-output.ts';
import type { SwapContext } from './swap-context.ts';

/** The checked direct payment for `invoice` on `currency`, or undefined when the invoice is to be swapped. */
export async function findDirectPayment(context: SwapContext, invoice: string, currency: string): Promise<DirectPayment | undefined> {
  try {
    decodeBolt11(invoice);
  } catch {
    return undefined; // not a BOLT11 invoice (a BOLT12 one, or a typo): the service judges it when the swap is asked for
  }
  try {
    return await context.client().directPayment(invoice, currency);
  } catch (error) {
    if (!(error instanceof VerificationError)) throw error;
    throw new VerificationError(
      `${error.message}; nothing was created (the invoice names a direct payment that cannot be trusted: pay it over Lightning with --no-direct, or ask the receiver)`,
    );
  }
}

/** Prints what to pay instead of swapping; the invoice stays unpaid and no swap exists. */
export function printDirectPayment(output: Output, payment: DirectPayment, currency: string, invoice: string): void {
  const { amountMsat } = decodeBolt11(invoice);
  output.event(
    'direct',
    {
      type: 'direct',
      currency,
      address: payment.address,
      amount: payment.amount,
      amountBtc: btc(payment.amount),
      ...(payment.assetId !== undefined && { assetId: payment.assetId }),
      bip21: payment.bip21,
      invoiceAmount: amountMsat === undefined ? null : Number(amountMsat / 1000n),
    },
    [
      `no swap needed: the invoice's receiver takes ${currency} on chain directly (magic routing hint; its address is signed by the key in the invoice)`,
      `  send ${payment.amount} sat (${btc(payment.amount)} ${currency}) to ${payment.address}`,
      `  ${payment.bip21}`,
      '  no swap was created and the invoice stays unpaid; to swap into it over Lightning instead, add --no-direct',
    ].join('\n'),
  );
}
