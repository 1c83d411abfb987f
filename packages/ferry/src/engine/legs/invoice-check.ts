// Checks a BOLT11 invoice a submarine swap is asked to pay: right network, an amount within the pair limits,
// and valid long enough for the user to lock and Ferry to pay.
import type { Network } from '@ferry/sdk/keys/index.js';
import type { LightningBackend } from '../../lightning/backend.ts';
import type { Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import { SwapError } from '@ferry/sdk/protocol/index.js';
import { limitViolation } from '../../swaps/amounts.ts';
import type { PairConfig } from '../../swaps/pairs.ts';
import type { EngineContext } from '../context.ts';

const PREFIX: Record<Network, Bolt11Invoice['network']> = { mainnet: 'bc', testnet: 'tb', signet: 'tbs', regtest: 'bcrt' };

export interface CheckedInvoice {
  paymentRequest: string;
  paymentHash: string;
  /** Whole satoshi; a sub-satoshi remainder rounds up so the user always covers what Ferry pays. */
  amount: number;
  minFinalCltvExpiry: number;
  expiresAt: number;
}

export async function checkInvoice(
  ctx: EngineContext,
  lightning: LightningBackend,
  paymentRequest: string,
  pair: PairConfig,
): Promise<CheckedInvoice> {
  let invoice: Bolt11Invoice;
  try {
    invoice = await lightning.decodeInvoice(paymentRequest);
  } catch (error) {
    throw new SwapError('invalid', `invalid invoice: ${(error as Error).message}`);
  }
  const expected = PREFIX[ctx.settings.network];
  if (invoice.network !== expected) throw new SwapError('invalid', `invalid invoice: not an invoice of network ln${expected}`);
  if (invoice.amountMsat === undefined || invoice.amountMsat <= 0n) throw new SwapError('invalid', 'invoice has no amount');
  const amount = Number((invoice.amountMsat + 999n) / 1000n);
  const expiresAt = invoice.timestamp + invoice.expiry;
  const now = Math.floor(Date.now() / 1000);
  if (expiresAt <= now) throw new SwapError('invalid', 'invoice expired already');
  if (expiresAt - now < ctx.settings.minInvoiceValiditySeconds) {
    throw new SwapError('invalid', `invoice expires too soon: it must be valid for at least ${ctx.settings.minInvoiceValiditySeconds} seconds`);
  }
  const violation = limitViolation(amount, pair.limits);
  if (violation !== undefined) throw new SwapError('invalid', violation);
  return { paymentRequest, paymentHash: invoice.paymentHash, amount, minFinalCltvExpiry: invoice.minFinalCltvExpiry, expiresAt };
}
