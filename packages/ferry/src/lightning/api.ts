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

export interface NodeStatsBody {
  capacity: number;
  channels: number;
  peers: number;
  oldestChannel: number;
}

/** Per currency, the node's statistics under its kind (`LND` or `CLN`) and under `total`, as the reference sums them. */
export async function nodeStatsResponse(
  backends: Record<string, LightningBackend>,
  blockTime: BlockTime,
): Promise<Record<string, { total: NodeStatsBody } & Record<string, NodeStatsBody>>> {
  const out: Record<string, { total: NodeStatsBody } & Record<string, NodeStatsBody>> = {};
  for (const [symbol, backend] of Object.entries(backends)) {
    const stats = await backend.getStats();
    const body: NodeStatsBody = {
      capacity: Number(stats.capacitySat),
      channels: stats.channels,
      peers: stats.peers,
      oldestChannel: stats.oldestChannelHeight === undefined ? 0 : await blockTime(symbol, stats.oldestChannelHeight),
    };
    out[symbol] = { [backend.nodeType ?? 'LND']: body, total: body };
  }
  return out;
}
