// v2 swap status polling: one swap, or up to 64 at once.
import type { SwapService, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { notFound } from '../http/errors.ts';
import { isSwapId, requireSwapId, swapNotFound } from '../http/validate.ts';
import { engineCall, requireStatus } from './swap-errors.ts';

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

  router.get('/v2/swap/{id}', async ({ params }) => {
    const id = requireSwapId(params.id);
    if (!swaps.statusText) return { body: await requireStatus(swaps, id) };
    const json = await engineCall(() => swaps.statusText!(id));
    if (json === undefined) throw notFound(swapNotFound(id));
    return { body: undefined, json };
  });
}

/**
 * GET /v2/swap/{id} answered from the kept status bodies before the request is routed at all, for a request target
 * that is exactly /v2/swap/<id of a swap whose body is kept>: such a target routes to the route above (no fixed
 * GET route under /v2/swap/ has that name), which would answer the same text. Anything else (a query, an encoded or
 * unknown id, a swap not read lately) goes the usual way.
 */
export function keptStatusReads(router: Router, swaps: SwapService): ((target: string) => string | undefined) | undefined {
  const kept = swaps.keptStatusText?.bind(swaps);
  if (kept === undefined) return undefined;
  const fixed = new Set(
    router
      .list()
      .filter(({ method, pattern }) => method === 'GET' && pattern.startsWith(statusPrefix))
      .map(({ pattern }) => pattern.slice(statusPrefix.length))
      .filter((rest) => !rest.includes('/')),
  );
  return (target) => {
    if (!target.startsWith(statusPrefix)) return undefined;
    const id = target.slice(statusPrefix.length);
    // Only what the route would take as a valid id is looked up (a query, an encoded character or junk is not).
    return fixed.has(id) || !isSwapId(id) ? undefined : kept(id);
  };
}

const statusPrefix = '/v2/swap/';
