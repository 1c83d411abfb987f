// What the contract event follower tells its subscribers: the swap contracts' Lockup, Claim and Refund logs,
// decoded and typed, each with where it was read (block, transaction, log index) so a reorg can name what it took
// back. Addresses are checksummed; hashes and the preimage are 0x-prefixed lowercase hex.
import type { BlockRef } from '@ferry/sdk/chains/events.js';
import type { SwapContractName } from './abi.ts';
import type { SubscriberOf } from '../subscribers.ts';

/** Where a log was read; (txHash, logIndex) identifies it, also when a reorg replays it in another block. */
export interface EventPlacement {
  chain: string;
  contract: SwapContractName;
  contractAddress: string;
  txHash: string;
  logIndex: number;
  block: BlockRef;
}

export interface EvmLockupEvent extends EventPlacement {
  type: 'lockup';
  preimageHash: string;
  /** Base units: wei for EtherSwap, the token's smallest unit for ERC20Swap. */
  amount: bigint;
  /** amount in API units (10^-8; wei / 10^10 for RBTC), floored. */
  apiAmount: bigint;
  /** ERC20Swap only: the token locked. */
  tokenAddress?: string;
  claimAddress: string;
  refundAddress: string;
  /** Block height from which the refund is allowed. */
  timelock: number;
}

export interface EvmClaimEvent extends EventPlacement {
  type: 'claim';
  preimageHash: string;
  preimage: string;
}

export interface EvmRefundEvent extends EventPlacement {
  type: 'refund';
  preimageHash: string;
}

export type EvmSwapEvent = EvmLockupEvent | EvmClaimEvent | EvmRefundEvent;

/** Blocks above forkHeight left the chain; `removed` lists the events delivered from them (newest first). */
export interface EvmReorgEvent {
  chain: string;
  forkHeight: number;
  disconnected: BlockRef[];
  removed: EvmSwapEvent[];
  /**
   * False when the follower no longer remembered the blocks it left (a restart, or a reorg deeper than its
   * window): events may have been removed without being listed, so subscribers must recheck contract state.
   */
  complete: boolean;
}

export interface EvmFollowerEvents {
  event: EvmSwapEvent;
  reorg: EvmReorgEvent;
  /** Every event of the blocks up to here was delivered, and the checkpoint is saved. */
  block: BlockRef & { chain: string };
}

/** Handlers may be async: the follower awaits them before it saves the checkpoint past their block. */
export type EvmFollowerSubscriber = SubscriberOf<EvmFollowerEvents>;
