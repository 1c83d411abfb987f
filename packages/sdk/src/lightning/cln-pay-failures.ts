// Core Lightning's `pay` error codes (xpay's, as lightningd reports them) in LND's FAILURE_REASON_* words: the one
// vocabulary of failed payments Ferry records. Shared by the service's CLN adapter and the devnet's `pay` tool.
export const FAILURE_BY_CODE: Readonly<Record<number, string>> = {
  203: 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS', // PAY_DESTINATION_PERM_FAIL
  205: 'FAILURE_REASON_NO_ROUTE', // PAY_ROUTE_NOT_FOUND
  206: 'FAILURE_REASON_NO_ROUTE', // PAY_ROUTE_TOO_EXPENSIVE
  207: 'FAILURE_REASON_TIMEOUT', // PAY_INVOICE_EXPIRED
  209: 'FAILURE_REASON_ERROR', // PAY_UNSPECIFIED_ERROR (xpay: failed after its attempts)
  210: 'FAILURE_REASON_ERROR', // PAY_STOPPED_RETRYING
  215: 'FAILURE_REASON_INSUFFICIENT_BALANCE', // PAY_INSUFFICIENT_FUNDS
  216: 'FAILURE_REASON_NO_ROUTE', // PAY_UNREACHABLE
  217: 'FAILURE_REASON_ERROR', // PAY_USER_ERROR (e.g. maxdelay too small)
  [-32602]: 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS', // JSONRPC2_INVALID_PARAMS: the invoice cannot be paid as asked
};

/** `pay`'s answer while a payment of the same invoice is still in flight. */
export const PAY_IN_PROGRESS = 200;
