// Swap types and the status strings clients see (REFERENCE.md "Statuses"): the one list both machines,
// the engine and the API share.

export const SwapType = {
  Submarine: 'submarine',
  Reverse: 'reverse',
  Chain: 'chain',
} as const;
export type SwapType = (typeof SwapType)[keyof typeof SwapType];

export const SwapStatus = {
  Created: 'swap.created',
  Expired: 'swap.expired',
  InvoiceSet: 'invoice.set',
  InvoicePending: 'invoice.pending',
  InvoicePaid: 'invoice.paid',
  InvoiceSettled: 'invoice.settled',
  InvoiceFailedToPay: 'invoice.failedToPay',
  InvoiceExpired: 'invoice.expired',
  MinerFeePaid: 'minerfee.paid',
  TransactionMempool: 'transaction.mempool',
  TransactionConfirmed: 'transaction.confirmed',
  TransactionServerMempool: 'transaction.server.mempool',
  TransactionServerConfirmed: 'transaction.server.confirmed',
  TransactionClaimPending: 'transaction.claim.pending',
  TransactionClaimed: 'transaction.claimed',
  TransactionRefunded: 'transaction.refunded',
  TransactionFailed: 'transaction.failed',
  TransactionLockupFailed: 'transaction.lockupFailed',
} as const;
export type SwapStatus = (typeof SwapStatus)[keyof typeof SwapStatus];

/**
 * Statuses in which the reference allows a cooperative (key path) refund (REFERENCE.md "Cooperative refund"). The
 * engine reads refundability off the machine tables (rows for refund.signed); a test holds the tables to this list.
 */
export const REFUNDABLE_STATUSES: readonly SwapStatus[] = [
  SwapStatus.Expired,
  SwapStatus.TransactionFailed,
  SwapStatus.TransactionLockupFailed,
  SwapStatus.InvoiceFailedToPay,
  SwapStatus.TransactionRefunded,
];

/** The reason a swap that timed out on chain reports. */
export const TIMED_OUT_REASON = 'onchain HTLC timed out';
