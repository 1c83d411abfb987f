// The errors the engine answers with, by condition, with the reference implementation's texts where it has one.
import { SwapError } from './service.ts';

export const swapNotFound = (id: string) => new SwapError(404, `could not find swap with id: ${id}`);
export const pairNotFound = (id: string) => new SwapError(400, `could not find pair with id: ${id}`);
export const invalidPairHash = () => new SwapError(400, 'invalid pair hash');
export const invoiceExists = () => new SwapError(409, 'a swap with this invoice exists already');
export const preimageHashExists = () => new SwapError(409, 'a swap with this preimage hash exists already');
export const swapHasInvoice = (id: string) => new SwapError(409, `swap ${id} has an invoice already`);
export const paymentInProgress = (invoice: string) =>
  new SwapError(400, 'lightning payment in progress already', { invoice });
export const noLockup = () => new SwapError(400, 'no coins were locked up yet');
export const undefinedParameter = (name: string) => new SwapError(400, `undefined parameter: ${name}`);
export const invalidParameter = (name: string) => new SwapError(400, `invalid parameter: ${name}`);
export const invalidPreimageHashLength = (length: number) => new SwapError(400, `invalid preimage hash length: ${length}`);
export const notEligibleForRefund = (reason: string) =>
  new SwapError(400, `swap not eligible for a cooperative refund: ${reason}`);
export const notEligibleForClaim = () => new SwapError(400, 'swap not eligible for a cooperative claim');
export const incorrectPreimage = () => new SwapError(400, 'incorrect preimage');
export const invalidPartialSignature = () => new SwapError(400, 'invalid partial signature');

export const RefundRefusal = {
  status: 'status not eligible',
  paymentPending: 'lightning payment still in progress, try again in a couple minutes',
} as const;
