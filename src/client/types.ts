// The service's v2 answers as the client reads them (REFERENCE.md and spec/swap-service-interface.md).

export interface SerializedLeaf {
  version: number;
  output: string; // hex script
}

export interface SerializedSwapTree {
  claimLeaf: SerializedLeaf;
  refundLeaf: SerializedLeaf;
}

export interface SubmarinePair {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number; maximalZeroConf: number };
  fees: { percentage: number; minerFees: number };
}

export interface ReversePair {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number };
  fees: { percentage: number; minerFees: { lockup: number; claim: number } };
}

export interface SubmarineCreated {
  id: string;
  address: string;
  swapTree: SerializedSwapTree;
  claimPublicKey: string;
  timeoutBlockHeight: number;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

export interface ReverseCreated {
  id: string;
  invoice: string;
  swapTree: SerializedSwapTree;
  lockupAddress: string;
  refundPublicKey: string;
  timeoutBlockHeight: number;
  onchainAmount: number;
}

/** A status object: GET /v2/swap/{id}, and each `update` of the swap.update channel (with `id`). */
export interface StatusUpdate {
  id: string;
  status: string;
  transaction?: { id: string; hex?: string; eta?: number };
  zeroConfRejected?: boolean;
  failureReason?: string;
  failureDetails?: { expected: number; actual: number };
}

export interface PartialSignature {
  pubNonce: string;
  partialSignature: string;
}

export interface SubmarineClaimDetails {
  preimage: string;
  pubNonce: string;
  publicKey: string;
  transactionHash: string;
}

export interface LockupTransaction {
  id: string;
  hex: string;
  timeoutBlockHeight: number;
  timeoutEta?: number;
}

export type SwapType = 'submarine' | 'reverse';

/** Statuses after which nothing more happens to a swap, per type, and which of them are successes. */
export const FINAL_STATUSES: Record<SwapType, { success: readonly string[]; failure: readonly string[] }> = {
  submarine: { success: ['transaction.claimed'], failure: ['invoice.failedToPay', 'transaction.lockupFailed', 'swap.expired'] },
  reverse: {
    success: ['invoice.settled'],
    failure: ['transaction.failed', 'transaction.refunded', 'swap.expired', 'invoice.expired'],
  },
};

