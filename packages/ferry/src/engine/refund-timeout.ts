// Which swap timeout a transaction is waiting for: a refund broadcast too early is answered with the swap's
// timeoutBlockHeight and timeoutEta (REFERENCE.md), so the wallet knows when to try again.
import { etaOf } from './block-time.ts';
import type { EngineContext } from './context.ts';

export interface RefundTimeout {
  timeoutBlockHeight: number;
  timeoutEta: number; // UNIX seconds
}

/** The timeout of the swap whose lockup `txHex` spends on `currency` (every chain when omitted). */
export async function refundTimeoutOf(ctx: EngineContext, txHex: string, currency?: string): Promise<RefundTimeout | undefined> {
  const chains = currency === undefined ? [...ctx.chains.values()] : [ctx.chains.get(currency)].filter((chain) => chain !== undefined);
  for (const chain of chains) {
    let scripts: string[];
    try {
      scripts = await chain.spentScripts(txHex);
    } catch {
      continue; // not a transaction of this chain
    }
    for (const script of scripts) {
      let address: string;
      try {
        address = chain.addressOf(script);
      } catch {
        continue;
      }
      const swap = await ctx.storage.swaps.getByLockupAddress(address);
      if (swap?.timeoutBlockHeight == null) continue;
      const blocksLeft = Math.max(0, swap.timeoutBlockHeight - (await chain.height()));
      return {
        timeoutBlockHeight: swap.timeoutBlockHeight,
        timeoutEta: etaOf(chain, blocksLeft),
      };
    }
  }
  return undefined;
}
