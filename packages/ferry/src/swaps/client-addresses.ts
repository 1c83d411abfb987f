// Which EVM addresses of a contract swap are the client's, by swap type: what restore by EVM address searches by
// (POST /v2/swap/restore with {address, timestamp, signature}). Ferry's own account is never one of them: it is in
// every swap. The same fields the database migration 4 reads to fill the index for swaps stored before it.
import type { SwapData } from '@ferry/sdk/swaps/machine.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const object = (value: unknown) => (typeof value === 'object' && value !== null ? (value as SwapData) : {});

/** The refund address the user's own `lock` named: known only once its Lockup event was seen (lockup.contract). */
const lockupRefundAddress = (data: SwapData) => text(object(object(data.lockup).contract).refundAddress);

/**
 * The client's addresses of a swap, lower case, each once: a submarine swap's refund address (of the user's lock),
 * a reverse swap's claim address, a chain swap's claim address on an EVM server side and refund address on an EVM
 * user side. Empty for a swap without a contract side.
 */
export function clientAddressesOf(type: string, data: SwapData): string[] {
  const addresses =
    type === SwapType.Submarine
      ? [object(data.contract).claimAddress !== undefined ? lockupRefundAddress(data) : undefined]
      : type === SwapType.Reverse
        ? [text(object(data.contract).claimAddress)]
        : type === SwapType.Chain
          ? [
              object(object(data.user).contract).address !== undefined ? lockupRefundAddress(data) : undefined,
              text(object(object(data.server).contract).claimAddress),
            ]
          : [];
  return [...new Set(addresses.filter((address): address is string => address !== undefined).map((address) => address.toLowerCase()))];
}
