// The refusals of the swap interface: a domain error with its kind, and each condition's text (the reference
// implementation's where it has one, REFERENCE.md). The engine throws these; src/api maps a kind to an HTTP status.

/** unprocessable: a well-formed request that proves nothing (a forged or stale EVM restore signature). */
export type SwapErrorKind = 'invalid' | 'notFound' | 'conflict' | 'unsupported' | 'unprocessable';

/** A refusal the API answers verbatim: `{"error": message, ...extra}` with the status of its kind. */
export class SwapError extends Error {
  constructor(
    readonly kind: SwapErrorKind,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SwapError';
  }
}

export const invalid = (message: string, extra?: Record<string, unknown>) => new SwapError('invalid', message, extra);

export const swapNotFound = (id: string) => new SwapError('notFound', `could not find swap with id: ${id}`);
export const pairNotFound = (id: string) => invalid(`could not find pair with id: ${id}`);
/** A swap in which a chain without Lightning (Liquid) would be the Lightning side. */
export const noLightningSupport = (symbol: string) => invalid(`${symbol} has no lightning support`);
/** The Lightning node cannot hold invoices (CLN without the hold plugin's gRPC): no reverse swaps. */
export const noHoldInvoices = () =>
  new SwapError('unsupported', 'reverse swaps are not available: the Lightning node cannot hold invoices (Core Lightning needs the hold plugin\'s gRPC, lightning.cln.hold.grpcUrl)');
export const invalidPairHash = () => invalid('invalid pair hash');
export const invoiceExists = () => new SwapError('conflict', 'a swap with this invoice exists already');
export const preimageHashExists = () => new SwapError('conflict', 'a swap with this preimage hash exists already');
export const swapHasInvoice = (id: string) => new SwapError('conflict', `swap ${id} has an invoice already`);
export const paymentInProgress = (invoice: string) => invalid('lightning payment in progress already', { invoice });
export const noLockup = () => invalid('no coins were locked up yet');
export const undefinedParameter = (name: string) => invalid(`undefined parameter: ${name}`);
export const invalidParameter = (name: string) => invalid(`invalid parameter: ${name}`);
export const invalidPreimageHashLength = (length: number) => invalid(`invalid preimage hash length: ${length}`);
export const notEligibleForRefund = (reason: string) => invalid(`swap not eligible for a cooperative refund: ${reason}`);
export const notEligibleForClaim = () => invalid('swap not eligible for a cooperative claim');
export const incorrectPreimage = () => invalid('incorrect preimage');
export const noLegacySwaps = (symbol: string) => invalid(`${symbol} has no legacy (API v1) swaps: create this swap with API v2`);
/** Legacy (API v1) swap outputs have no key path: each side spends them alone through the redeem script. */
export const noCooperativeLegacySpend = () =>
  invalid('legacy swaps cannot be claimed or refunded cooperatively: spend the output with its redeem script');
export const invalidPartialSignature = () => invalid('invalid partial signature');
export const notEligibleForAssetRescue = () => invalid('swap not eligible for asset rescue');
export const noAssetRescuePending = () => invalid('no rescue is pending');
export const notSpendingLockup = () => invalid('the input to sign does not spend the lockup of this swap');
export const unknownSpentOutputs = () => invalid('could not find the outputs the transaction spends');

export const RefundRefusal = {
  status: 'status not eligible',
  paymentPending: 'lightning payment still in progress, try again in a couple minutes',
} as const;
