// Whether a lockup is still in the contract: the contracts keep no swap records, only `swaps(hash) → bool` keyed by
// the hash of the lockup's values, so the key is computed by the contract's own hashValues (the encoding changed
// between contract versions; asking the deployed contract keeps Ferry right for the one it serves). Claimed and
// refunded swaps read false, like never-locked ones: the events tell which.
import type { BlockTag, Contract } from 'ethers';
import type { EvmLockupEvent } from './events.ts';

export type LockupValues = Pick<EvmLockupEvent, 'preimageHash' | 'amount' | 'tokenAddress' | 'claimAddress' | 'refundAddress' | 'timelock'>;

export interface SwapState {
  /** The key of the swap in the contract's `swaps` mapping. */
  hash: string;
  /** true while the values are locked: neither claimed nor refunded (nor never locked). */
  locked: boolean;
}

/** The swap's state in `contract` (EtherSwap, or ERC20Swap for values with a tokenAddress), at `blockTag` (default latest). */
export async function swapState(contract: Contract, values: LockupValues, blockTag?: BlockTag): Promise<SwapState> {
  const { preimageHash, amount, tokenAddress, claimAddress, refundAddress, timelock } = values;
  const fields = tokenAddress === undefined
    ? [preimageHash, amount, claimAddress, refundAddress, timelock]
    : [preimageHash, amount, tokenAddress, claimAddress, refundAddress, timelock];
  const overrides = blockTag === undefined ? {} : { blockTag };
  const hash = (await contract.getFunction('hashValues')(...fields, overrides)) as string;
  const locked = (await contract.getFunction('swaps')(hash, overrides)) as boolean;
  return { hash, locked };
}
