// The engine reports refusals as SwapError(kind, text, extra); the API answers them verbatim with the kind's status. Any other
// exception is a bug and stays a 500 through the HTTP server's catch-all.
import { SwapError, type SwapService, type SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { fromSwapError, notFound } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { requireSwapId, swapNotFound } from '../http/validate.ts';

export async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SwapError) throw fromSwapError(error);
    throw error;
  }
}

/** The status of a swap, or the reference's 404. */
export async function requireStatus(swaps: SwapService, id: string): Promise<SwapStatusBody> {
  const status = await engineCall(() => swaps.status(id));
  if (!status) throw notFound(swapNotFound(id));
  return status;
}

/** A GET route that reads one swap by id: the id is validated, the engine's answer is the body. */
export function getById(router: Router, path: string, read: (id: string) => Promise<unknown>): void {
  router.get(path, async ({ params }) => {
    const id = requireSwapId(params.id);
    return { body: await engineCall(() => read(id)) };
  });
}
