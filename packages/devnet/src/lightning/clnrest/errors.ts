// Errors as clnrest reports them: the JSON-RPC error object ({code, message}) as the body, and the HTTP status
// clnrest picks for it — 403 without a rune, 401 for a rune that does not check, 404 for an unknown method,
// 500 for every error the method itself returns.
import { LndError } from '../errors.ts';

/** lightningd's and its plugins' JSON-RPC error codes the devnet answers with. */
export const CLN = {
  LIGHTNINGD: -1,
  INVALID_PARAMS: -32602,
  METHOD_NOT_FOUND: -32601,
  PLUGIN_ERROR: -32700, // cln-plugin (Rust) answers a method's error with this code and the error's text
  PAY_IN_PROGRESS: 200,
  PAY_DESTINATION_PERM_FAIL: 203,
  PAY_ROUTE_NOT_FOUND: 205,
  PAY_INVOICE_EXPIRED: 207,
  PAY_UNSPECIFIED_ERROR: 209,
  PAY_STOPPED_RETRYING: 210,
  INVOICE_LABEL_ALREADY_EXISTS: 900,
  INVOICE_NO_DESCRIPTION: 908,
  OFFER_EXPIRED: 1002,
  OFFER_BAD_INVREQ_REPLY: 1004,
  OFFER_TIMEOUT: 1005,
  RUNE_NOT_AUTHORIZED: 1501,
  RUNE_NOT_PERMITTED: 1502,
} as const;

export class ClnError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus = 500,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ClnError';
  }
}

/** The network model reports refusals in LND's words; through this face they are lightningd's generic error. */
export function toClnError(err: unknown): ClnError {
  if (err instanceof ClnError) return err;
  if (err instanceof LndError) return new ClnError(CLN.LIGHTNINGD, err.message);
  return new ClnError(CLN.LIGHTNINGD, (err as Error)?.message ?? String(err));
}

export const invalidParams = (message: string): ClnError => new ClnError(CLN.INVALID_PARAMS, message);
