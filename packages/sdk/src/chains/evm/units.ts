// The EVM chain's amounts: wei (18 decimals) on chain, while the API counts every currency in units of 10^-8
// (satoshi-like), so an RBTC amount in the API is wei / 10^10; tokens scale by their own decimals the same way.
// Gas prices are answered in GWEI, as Boltz's fee endpoints do for EVM chains.
import { formatUnits } from 'ethers';

export const API_DECIMALS = 8;
export const NATIVE_DECIMALS = 18;

/** Amount in API units (floored: the dust below 10^-8 cannot be expressed) of `amount` base units. */
export function toApiUnits(amount: bigint, decimals = NATIVE_DECIMALS): bigint {
  return decimals >= API_DECIMALS ? amount / 10n ** BigInt(decimals - API_DECIMALS) : amount * 10n ** BigInt(API_DECIMALS - decimals);
}

/** Base units of an API amount: what a lockup must hold exactly for a swap of `apiAmount`. */
export function fromApiUnits(apiAmount: bigint, decimals = NATIVE_DECIMALS): bigint {
  return decimals >= API_DECIMALS ? apiAmount * 10n ** BigInt(decimals - API_DECIMALS) : apiAmount / 10n ** BigInt(API_DECIMALS - decimals);
}

/** wei → GWEI as a JSON number; a nonzero price never rounds to 0 (a client would take it for "free"). */
export function toGwei(wei: bigint): number {
  const gwei = Number(formatUnits(wei, 'gwei'));
  return wei > 0n && gwei === 0 ? 1e-9 : gwei;
}
