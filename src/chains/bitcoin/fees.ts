// The fee estimate of a Bitcoin Core node in sat/vbyte: the one code path the service and the client both use.
import type { CoreRpcClient } from '../core-rpc.ts';

/** Used when the node has no estimate yet (fresh regtest); Core's minimum relay fee rate is 1 sat/vB. */
export const FALLBACK_SAT_PER_VBYTE = 2;

/** sat/vbyte for confirmation within two blocks, at least 1, to a thousandth. */
export async function estimateFeeRate(rpc: CoreRpcClient, fallback = FALLBACK_SAT_PER_VBYTE): Promise<number> {
  const estimate = await rpc.estimateSmartFee(2);
  if (estimate.feerate === undefined) return fallback;
  // BTC per 1000 vbytes → sat per vbyte.
  return Math.max(1, Math.round(((estimate.feerate * 1e8) / 1000) * 1000) / 1000);
}
