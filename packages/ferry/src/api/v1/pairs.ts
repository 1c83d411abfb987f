// v1 GET /getpairs and GET /timeouts (deprecated API, kept for existing integrations).
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import type { Router } from '../http/router.ts';
import { v1Unsupported } from './answers.ts';

export function pairRoutesV1(router: Router, swaps: SwapService): void {
  router.get('/getpairs', async () => {
    if (!swaps.v1Pairs) throw v1Unsupported();
    // Reverse swaps are always enabled: no `reverse.swaps.disabled` warning.
    return { body: { info: swaps.v1PairsInfo?.() ?? [], warnings: [], pairs: await swaps.v1Pairs() } };
  });
  router.get('/timeouts', async () => {
    if (!swaps.v1Timeouts) throw v1Unsupported();
    return { body: { timeouts: await swaps.v1Timeouts() } };
  });
}
