// The bodies of Ferry's Lightning node endpoints (v2 GET /nodes and /nodes/stats; v1 GET /getnodes and
// /nodestats carry the same objects), built from the node behind the backend.
import type { LightningBackend } from './backend.ts';

export interface NodeEntry {
  publicKey: string;
  uris: string[];
}

/** Per currency, the node keyed by its kind as the reference names it: `LND` or `CLN`. */
export async function nodesResponse(backends: Record<string, LightningBackend>): Promise<Record<string, Record<string, NodeEntry>>> {
  const out: Record<string, Record<string, NodeEntry>> = {};
  for (const [symbol, backend] of Object.entries(backends)) {
    const info = await backend.getInfo();
    out[symbol] = { [backend.nodeType ?? 'LND']: { publicKey: info.publicKey, uris: info.uris } };
  }
  return out;
}

/** The spec's oldestChannel is a UNIX timestamp: the time of the block that confirmed the channel. */
export type BlockTime = (symbol: string, height: number) => Promise<number>;

export async function nodeStatsResponse(
  backends: Record<string, LightningBackend>,
  blockTime: BlockTime,
): Promise<Record<string, { total: { capacity: number; channels: number; peers: number; oldestChannel: number } }>> {
  const out: Record<string, { total: { capacity: number; channels: number; peers: number; oldestChannel: number } }> =
    {};
  for (const [symbol, backend] of Object.entries(backends)) {
    const stats = await backend.getStats();
    out[symbol] = {
      total: {
        capacity: Number(stats.capacitySat),
        channels: stats.channels,
        peers: stats.peers,
        oldestChannel: stats.oldestChannelHeight === undefined ? 0 : await blockTime(symbol, stats.oldestChannelHeight),
      },
    };
  }
  return out;
}
