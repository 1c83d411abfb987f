// The fee estimate of a node of Bitcoin Core's family in sat/vbyte: the one code path the service and the client
// both use, for Bitcoin (relay floor 1 sat/vB) and Liquid (0.1 sat/vB).
import type { CoreRpcClient } from './core-rpc.ts';

/** Used when a Bitcoin node has no estimate yet (fresh regtest); Core's minimum relay fee rate is 1 sat/vB. */
export const FALLBACK_SAT_PER_VBYTE = 2;

export interface FeeFloor {
  /** Used when the node has no estimate. */
  fallback: number;
  /** The chain's relay floor: no estimate goes below it. */
  minimum: number;
}

export const BITCOIN_FEES: FeeFloor = { fallback: FALLBACK_SAT_PER_VBYTE, minimum: 1 };

/** Liquid's relay floor, 0.1 sat/vB, is also the estimate while the node has none. */
export const LIQUID_FEES: FeeFloor = { fallback: 0.1, minimum: 0.1 };

/** sat/vbyte for confirmation within two blocks, at least the floor's minimum, to a thousandth. */
export async function estimateFeeRate(rpc: CoreRpcClient, floor: FeeFloor = BITCOIN_FEES): Promise<number> {
  const estimate = await rpc.estimateSmartFee(2);
  if (estimate.feerate === undefined) return floor.fallback;
  // BTC per 1000 vbytes → sat per vbyte.
  return Math.max(floor.minimum, Math.round(((estimate.feerate * 1e8) / 1000) * 1000) / 1000);
}
