// Every failed request is answered with a status and {"error": "..."}; extra fields ride along when the
// interface asks for them (e.g. timeoutBlockHeight on an early refund broadcast).

import type { SwapError, SwapErrorKind } from '@ferry/sdk/protocol/index.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new HttpError(400, message, extra);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);

const SWAP_ERROR_STATUS: Record<SwapErrorKind, number> = { invalid: 400, notFound: 404, conflict: 409, unsupported: 501, unprocessable: 422 };

/** The HTTP status v2 answers an engine refusal with. */
export const httpStatusOf = (error: SwapError): number => SWAP_ERROR_STATUS[error.kind];

/** An engine refusal as the HTTP error v2 answers. */
export const fromSwapError = (error: SwapError): HttpError => new HttpError(httpStatusOf(error), error.message, error.extra);
