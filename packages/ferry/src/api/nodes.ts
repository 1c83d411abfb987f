// Lightning node endpoints: v2 /nodes and /nodes/stats, v1 /getnodes and /nodestats (older field names).
import type { ChainRegistry } from '@ferry/sdk/chains/backend.js';
import type { LightningBackend } from '../lightning/backend.ts';
import { nodeStatsResponse, nodesResponse } from '../lightning/api.ts';
import { HttpError } from './http/errors.ts';
import type { Router } from './http/router.ts';

export function nodeRoutes(router: Router, lightning: Record<string, LightningBackend>, chains: ChainRegistry): void {
  const blockTime = async (symbol: string, height: number) => {
    const chain = chains.get(symbol);
    return chain ? chain.blockTime(height) : 0;
  };
  const backends = () => {
    if (Object.keys(lightning).length === 0) throw new HttpError(501, 'lightning is not configured');
    return lightning;
  };
  router.get('/v2/nodes', async () => ({ body: await nodesResponse(backends()) }));
  router.get('/v2/nodes/stats', async () => ({ body: await nodeStatsResponse(backends(), blockTime) }));
  router.get('/getnodes', async () => {
    const nodes = await nodesResponse(backends());
    const v1 = Object.fromEntries(
      Object.entries(nodes).map(([symbol, byType]) => {
        const [node] = Object.values(byType);
        return [symbol, { nodeKey: node.publicKey, uris: node.uris }];
      }),
    );
    return { body: { nodes: v1 } };
  });
  router.get('/nodestats', async () => {
    const stats = await nodeStatsResponse(backends(), blockTime);
    return { body: { nodes: Object.fromEntries(Object.entries(stats).map(([symbol, { total }]) => [symbol, total])) } };
  });
}
