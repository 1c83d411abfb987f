// Errors as LND's REST gateway reports them: a gRPC status code, the matching HTTP status and LND's message.
export const GRPC = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  UNAUTHENTICATED: 16,
} as const;

const HTTP_FOR_GRPC: Record<number, number> = { 2: 500, 3: 400, 5: 404, 6: 409, 16: 401 };

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
