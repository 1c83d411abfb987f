// What each swap type keeps in its row's `data` (the state machines read some of it through their guards).
import { hex } from '@scure/base';
import { SwapTreeSerializer, type Types } from 'boltz-core';
import type { SwapRecord } from '../db/index.ts';
import type { LockupRecord } from '../swaps/lockup.ts';
import type { SwapTreeJson } from './service.ts';

export type { LockupRecord };

export interface StoredTransaction {
  txid: string;
  hex: string;
}

/** Pricing fixed at creation, so later calls of the same swap agree with what the client was quoted. */
export interface SubmarinePricing {
  rate: number;
  percentage: number;
  minerFee: number;
  maximalZeroConf: number;
}

export interface SubmarineData {
  [key: string]: unknown;
  refundPublicKey: string; // the client's
  claimPublicKey: string; // Ferry's
  swapTree: SwapTreeJson;
  lockupScript: string;
  pricing: SubmarinePricing;
  /** The partner the swap was created through; fees of referred swaps are reported to it. */
  referralId?: string;
  invoice?: string;
  invoiceAmount?: number;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  minFinalCltvExpiry?: number;
  lockup?: LockupRecord;
  refundSigned?: boolean;
  preimage?: string;
  routingFeeMsat?: string;
  paymentFailure?: string;
  claimPendingSince?: number;
  claimTransaction?: StoredTransaction;
  failureReason?: string;
  failureDetails?: { expected: number; actual: number };
}

export interface ReverseLockup {
  txid: string;
  vout: number;
  value: number;
  hex: string;
  confirmed: boolean;
}

export interface ReverseData {
  [key: string]: unknown;
  claimPublicKey: string; // the client's
  refundPublicKey: string; // Ferry's
  swapTree: SwapTreeJson;
  lockupScript: string;
  invoiceAmount: number;
  onchainAmount: number;
  invoiceExpiresAt: number; // unix seconds
  /** The partner the swap was created through; fees of referred swaps are reported to it. */
  referralId?: string;
  /** What the percentage fee earned: the invoice at the rate, less the onchain amount and lockup fee estimate. */
  serviceFee?: number;
  lockupRequested?: boolean;
  lockup?: ReverseLockup;
  preimage?: string;
  refundRequested?: boolean;
  refundTransaction?: StoredTransaction;
  refundConfirmed?: boolean;
  failureReason?: string;
}

export const submarineData = (record: SwapRecord): SubmarineData => record.data as SubmarineData;
export const reverseData = (record: SwapRecord): ReverseData => record.data as ReverseData;

export function serializeTree(tree: Types.SwapTree): SwapTreeJson {
  const serialized = SwapTreeSerializer.serializeSwapTree(tree);
  return { claimLeaf: serialized.claimLeaf, refundLeaf: serialized.refundLeaf };
}

export function deserializeTree(tree: SwapTreeJson): Types.SwapTree {
  return SwapTreeSerializer.deserializeSwapTree(tree) as Types.SwapTree;
}

export const bytes = (value: string): Uint8Array => hex.decode(value);
