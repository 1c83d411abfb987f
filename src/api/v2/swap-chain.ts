// v2 Chain Swap endpoints (chain -> chain). Ferry has no chain swaps yet, only the pair list, which clients fetch
// together with the submarine and reverse lists (boltz-client's GetPairs, the web app's getPairs) and which is
// empty; the other Chain Swap calls are not served (404; 405 for POST /v2/swap/chain).
import type { SwapService } from '../../protocol/index.ts';
import type { Router } from '../http/router.ts';
import { engineCall } from './swap-errors.ts';

export function chainSwapRoutes(router: Router, swaps: SwapService): void {
  router.get('/v2/swap/chain', async () => ({ body: await engineCall(() => swaps.chainPairs()) }));
}
