// Restore and rescue (POST /v2/swap/restore, /rescue, /restore/index): the swaps a wallet's keys created, found
// through the client key index, as the answers a wallet rebuilds its store from.
import type { SwapRecord } from '../../db/index.ts';
import type { RescuableSwapBody, RescueRequest, RestorableSwapBody, RestoreIndexBody } from '../../protocol/wire.ts';
import type { EngineContext } from '../context.ts';
import { searchKeys, type KeySearch } from './key-search.ts';
import { rescuableSwap, restorableSwap } from './restorable.ts';

async function search(ctx: EngineContext, request: RescueRequest): Promise<KeySearch<SwapRecord>> {
  return searchKeys(request, async (keys) =>
    (await ctx.storage.swaps.findByClientKeys(keys)).map(({ swap, publicKey }) => ({ publicKey, found: swap })),
  );
}

/** Each swap once (a chain swap can match by both its keys), oldest first, with the lowest index that matched it. */
function bySwap(result: KeySearch<SwapRecord>): { swap: SwapRecord; index: number }[] {
  const seen = new Map<string, { swap: SwapRecord; index: number }>();
  for (const match of result.matches) {
    const known = seen.get(match.found.id);
    if (known === undefined || match.index < known.index) seen.set(match.found.id, { swap: match.found, index: match.index });
  }
  return [...seen.values()].sort((a, b) => a.swap.createdAt - b.swap.createdAt || a.swap.id.localeCompare(b.swap.id));
}

const metadataOf = (swap: SwapRecord) => (typeof swap.data.metadata === 'string' ? swap.data.metadata : undefined);

export async function restoreSwaps(ctx: EngineContext, request: RescueRequest): Promise<RestorableSwapBody[]> {
  const result = await search(ctx, request);
  return bySwap(result).flatMap(({ swap, index }) => restorableSwap(swap, result.indexOf, index, metadataOf(swap)) ?? []);
}

export async function rescueSwaps(ctx: EngineContext, request: RescueRequest): Promise<RescuableSwapBody[]> {
  const result = await search(ctx, request);
  return bySwap(result).flatMap(({ swap, index }) => rescuableSwap(swap, result.indexOf, index) ?? []);
}

export async function restoreIndex(ctx: EngineContext, request: RescueRequest): Promise<RestoreIndexBody> {
  const result = await search(ctx, request);
  return { index: result.matches.reduce((highest, match) => Math.max(highest, match.index), -1) };
}
