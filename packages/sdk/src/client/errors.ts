// What can go wrong on the client side, as distinct types a wallet can act on.

/** The service answered, but not with success: status and body are kept whole. */
export class ServiceError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const text = typeof body === 'object' && body !== null && 'error' in body ? String((body as { error: unknown }).error) : JSON.stringify(body);
    super(`${method} ${path} answered ${status}: ${text}`);
    this.name = 'ServiceError';
  }

  /** The service's `error` text, when it sent one. */
  get reason(): string | undefined {
    const body = this.body as { error?: unknown } | null;
    return typeof body?.error === 'string' ? body.error : undefined;
  }
}

/** The service could not be reached at all (refused, reset, timed out, not JSON). */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the swap service at ${url}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'ServiceUnreachableError';
  }
}

/** A service answer failed a check the client makes before it moves any funds. */
export class VerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerificationError';
  }
}

/** A script-path refund asked for before the swap's timeout block. */
export class RefundTooEarlyError extends Error {
  constructor(
    readonly timeoutBlockHeight: number,
    readonly height: number,
    readonly cooperativeFailure?: string,
  ) {
    super(
      `the swap times out at block ${timeoutBlockHeight} and the chain is at ${height}: ` +
        `a refund without the service is possible in ${timeoutBlockHeight - height} block(s)` +
        (cooperativeFailure ? ` (the service did not sign a refund: ${cooperativeFailure})` : ''),
    );
    this.name = 'RefundTooEarlyError';
  }
}
