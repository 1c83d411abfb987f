// v2 swap status polling: one swap, or up to 64 at once.
import type { SwapService, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { requireSwapId } from '../http/validate.ts';
import { requireStatus } from './swap-errors.ts';

export const maxStatusIds = 64;

/**
 * GET /v2/swap/{id} answers only paths no fixed-segment route answers (the router prefers fixed segments), so every
 * GET /v2/swap/<word> of the reference needs its own route, or it is read as a swap id: test/api/route-shadowing.test.ts.
 */
export function swapStatusRoutes(router: Router, swaps: SwapService): void {
  // Like the reference, one unknown id fails the whole request with 404: a client asking about a swap it
  // believes exists should learn that it does not, not get a silently shorter answer.
  router.get('/v2/swap/status', async ({ query }) => {
    const given = query.getAll('ids');
    if (given.length === 0) throw badRequest('undefined parameter: ids');
    if (given.length > maxStatusIds) throw badRequest(`too many ids: ${given.length} (at most ${maxStatusIds})`);
    if (given.some((id) => id === '')) throw badRequest('invalid parameter: ids');
    const ids = [...new Set(given)].map((id) => requireSwapId(id, 'ids'));
    const statuses = await Promise.all(ids.map((id) => requireStatus(swaps, id)));
    const body: Record<string, SwapStatusBody> = {};
    ids.forEach((id, i) => (body[id] = statuses[i]));
    return { body };
  });

  router.get('/v2/swap/{id}', async ({ params }) => ({ body: await requireStatus(swaps, requireSwapId(params.id)) }));
}
