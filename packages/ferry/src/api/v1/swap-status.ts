// v1 POST /swapstatus (deprecated API, kept for existing integrations).
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import type { Router } from '../http/router.ts';
import { bodyObject, requireString, requireSwapId } from '../http/validate.ts';
import { requireStatus } from '../v2/swap-errors.ts';

export function swapStatusRoutesV1(router: Router, swaps: SwapService): void {
  router.post('/swapstatus', async ({ body }) => {
    const id = requireSwapId(requireString(bodyObject(body), 'id'));
    return { body: await requireStatus(swaps, id) };
  });
}
