// Fee and amount arithmetic for swaps, in integer satoshi. Percentages are configured in percent (0.1 = 0.1%)
// and turned into parts per million once, so no float rounding ever moves an amount by a satoshi.

const PPM = 1_000_000n;

/** 0.25 (percent) → 2500 (parts per million). */
export function percentToPpm(percent: number): bigint {
  if (!Number.isFinite(percent) || percent < 0 || percent >= 100) throw new RangeError(`invalid fee percentage ${percent}`);
  return BigInt(Math.round(percent * 10_000));
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** ceil(amount × percent / 100). */
export function percentageFee(amount: number, percent: number): number {
  return Number(ceilDiv(BigInt(amount) * percentToPpm(percent), PPM));
}

/** ceil(sat/vbyte × vbytes); a hair of tolerance keeps float noise (1.1 × 110 = 121.00000000000001) from adding 1 sat. */
export function minerFee(satPerVbyte: number, vbytes: number): number {
  return Math.ceil(satPerVbyte * vbytes - 1e-9);
}

// Amounts in the quote asset are converted with the pair rate; BTC/BTC has rate 1 and stays exact.
function convert(amount: number, rate: number): number {
  const value = amount * rate;
  return Number.isInteger(value) ? value : Math.floor(value);
}

/** Reverse swap: what Ferry locks on chain for an invoice of `invoiceAmount` (REFERENCE.md "Reverse amounts"). */
export function reverseOnchainAmount(invoiceAmount: number, rate: number, percent: number, lockupFee: number): number {
  const converted = convert(invoiceAmount, rate);
  return converted - percentageFee(converted, percent) - lockupFee;
}

/** Reverse swap: the invoice that pays for locking `onchainAmount` (REFERENCE.md "Reverse amounts"). */
export function reverseInvoiceAmount(onchainAmount: number, rate: number, percent: number, lockupFee: number): number {
  const ppm = percentToPpm(percent);
  const gross = BigInt(onchainAmount + lockupFee) * PPM;
  if (rate === 1) return Number(ceilDiv(gross, PPM - ppm));
  return Math.ceil((onchainAmount + lockupFee) / rate / (1 - Number(ppm) / 1e6));
}

/** Submarine swap: what the user must lock for an invoice of `invoiceAmount`. */
export function submarineExpectedAmount(invoiceAmount: number, rate: number, percent: number, claimFee: number): number {
  const converted = Math.ceil(invoiceAmount / rate);
  return converted + percentageFee(converted, percent) + claimFee;
}

/** Submarine swap: the largest invoice a lockup of `lockedAmount` pays for; 0 when it pays for none. */
export function submarineInvoiceAmount(lockedAmount: number, rate: number, percent: number, claimFee: number): number {
  const ppm = percentToPpm(percent);
  // Start from the exact inverse, then step to the largest invoice whose expected amount still fits.
  let invoice = Number((BigInt(Math.max(0, lockedAmount - claimFee)) * PPM) / (PPM + ppm));
  if (rate !== 1) invoice = Math.floor(invoice * rate);
  while (invoice > 0 && submarineExpectedAmount(invoice, rate, percent, claimFee) > lockedAmount) invoice--;
  while (submarineExpectedAmount(invoice + 1, rate, percent, claimFee) <= lockedAmount) invoice++;
  return invoice;
}

export interface Limits {
  minimal: number;
  maximal: number;
}

/** The reference's texts for an amount outside the pair limits, or undefined when it fits. */
export function limitViolation(amount: number, limits: Limits): string | undefined {
  if (amount < limits.minimal) return `${amount} is less than minimal of ${limits.minimal}`;
  if (amount > limits.maximal) return `${amount} is exceeds maximal of ${limits.maximal}`;
  return undefined;
}

/** A zero-amount swap's pricing, fixed at creation and applied to whatever the user locks. */
export interface ZeroAmountPricing {
  rate: number;
  percentage: number;
  serverMinerFee: number;
  claimFee: number;
  minimal: number;
  maximal: number;
}

/** What Ferry locks for a zero-amount swap's lockup of `value` sat. */
export const zeroAmountServerAmount = (pricing: ZeroAmountPricing, value: number): number =>
  reverseOnchainAmount(value, pricing.rate, pricing.percentage, pricing.serverMinerFee);

/** Why a zero-amount swap cannot take a lockup of `value` sat: outside the limits, or nothing left to lock. */
export function zeroAmountRefusal(pricing: ZeroAmountPricing, value: number): string | undefined {
  const violation = limitViolation(value, pricing);
  if (violation !== undefined) return violation;
  if (zeroAmountServerAmount(pricing, value) <= pricing.claimFee) return 'the amount Ferry would lock is too low';
  return undefined;
}
