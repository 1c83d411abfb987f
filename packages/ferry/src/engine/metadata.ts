// What the client keeps next to a swap on the service (PATCH /v2/swap/{id}/metadata): an opaque hex string, handed
// back by restore. Written under the swap's lock, guarded by its version, so it never overwrites a transition's data.
import type { EngineContext } from './context.ts';

const RETRIES = 5;

export async function setMetadata(ctx: EngineContext, id: string, metadata: string): Promise<Record<string, never>> {
  return ctx.locks.run(id, async () => {
    for (let attempt = 0; ; attempt++) {
      const swap = await ctx.swaps.require(id);
      const updated = await ctx.storage.swaps.update({
        id,
        expectedStatus: swap.status,
        expectedVersion: swap.version,
        data: { ...swap.data, metadata },
      });
      ctx.swaps.statusCache.drop(id);
      if (updated) return {};
      // Another instance changed the row between the read and the write: read it again.
      if (attempt >= RETRIES) throw new Error(`swap ${id} keeps changing`);
    }
  });
}

/** Reverse invoice expiry range per pair, keyed as the reverse pair list: Ferry's hold invoices have one fixed expiry. */
export function reverseInvoiceExpiry(ctx: EngineContext): Record<string, Record<string, { min: number; max: number }>> {
  const out: Record<string, Record<string, { min: number; max: number }>> = {};
  const seconds = ctx.settings.invoiceExpirySeconds;
  for (const pair of ctx.settings.pairs.values()) (out[pair.quote] ??= {})[pair.base] = { min: seconds, max: seconds };
  return out;
}
