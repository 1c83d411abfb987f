// Errors as LND's REST gateway reports them: a gRPC status code, the matching HTTP status and LND's message.
export const GRPC = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  UNIMPLEMENTED: 12,
  UNAUTHENTICATED: 16,
} as const;

// grpc-gateway's HTTPStatusFromCode.
const HTTP_FOR_GRPC: Record<number, number> = {
  1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503,
  15: 500, 16: 401,
};

export class LndError extends Error {
  readonly httpStatus: number;

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'LndError';
    this.httpStatus = HTTP_FOR_GRPC[code] ?? 500;
  }
}

export const invoiceNotFound = (): LndError => new LndError(GRPC.NOT_FOUND, 'unable to locate invoice');
export const paymentNotFound = (): LndError => new LndError(GRPC.NOT_FOUND, 'payment isn\'t initiated');
