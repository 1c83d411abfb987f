// Restore and rescue (POST /v2/swap/restore, /rescue, /restore/index): the swaps a wallet's keys created, found
// through the client key index — or, for restore, those naming its proven EVM address, through the address index —
// as the answers a wallet rebuilds its store from.
import type { SwapRecord } from '../../db/index.ts';
import { SwapError } from '@ferry/sdk/protocol/errors.js';
import type { EvmRestoreRequest, RescuableSwapBody, RescueRequest, RestorableSwapBody, RestoreIndexBody, RestoreRequest } from '@ferry/sdk/protocol/wire.js';
import type { EngineContext } from '../context.ts';
import { searchKeys, type KeySearch } from './key-search.ts';
import { UsedProofs, verifyEvmRestoreProof } from './evm-proof.ts';
import { rescuableSwap, restorableSwap } from './restorable.ts';

/** Per engine: proofs of restore by EVM address already answered. */
const usedProofs = new WeakMap<EngineContext, UsedProofs>();

const isAddressSearch = (request: RestoreRequest | EvmRestoreRequest): request is EvmRestoreRequest => 'address' in request;

/** The reference answers an address given to the key-only calls so: a 422. */
const keysOnly = () => new SwapError('unprocessable', 'address lookup is only supported for restore');

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

export async function restoreSwaps(ctx: EngineContext, request: RestoreRequest): Promise<RestorableSwapBody[]> {
  if (isAddressSearch(request)) {
    if (!usedProofs.has(ctx)) usedProofs.set(ctx, new UsedProofs());
    const address = verifyEvmRestoreProof(request, usedProofs.get(ctx)!);
    const swaps = await ctx.storage.swaps.findByClientAddress(address);
    return swaps.flatMap((swap) => restorableSwap(swap, undefined, metadataOf(swap)) ?? []);
  }
  const result = await search(ctx, request);
  return bySwap(result).flatMap(({ swap, index }) => restorableSwap(swap, { indexOf: result.indexOf, fallbackIndex: index }, metadataOf(swap)) ?? []);
}

export async function rescueSwaps(ctx: EngineContext, request: RescueRequest): Promise<RescuableSwapBody[]> {
  if (isAddressSearch(request)) throw keysOnly();
  const result = await search(ctx, request);
  return bySwap(result).flatMap(({ swap, index }) => rescuableSwap(swap, result.indexOf, index) ?? []);
}

export async function restoreIndex(ctx: EngineContext, request: RescueRequest): Promise<RestoreIndexBody> {
  if (isAddressSearch(request)) throw keysOnly();
  const result = await search(ctx, request);
  return { index: result.matches.reduce((highest, match) => Math.max(highest, match.index), -1) };
}
