// Which swap timeout a transaction is waiting for: a refund broadcast too early is answered with the swap's
// timeoutBlockHeight and timeoutEta (REFERENCE.md), so the wallet knows when to try again.
import { hex } from '@scure/base';
import type { EngineContext } from './context.ts';
import { parseTransaction } from './chain-tools.ts';

/** Regtest and mainnet alike: the interface's ETAs assume ten-minute blocks. */
const BLOCK_SECONDS = 600;

export interface RefundTimeout {
  timeoutBlockHeight: number;
  timeoutEta: number; // UNIX seconds
}

export async function refundTimeoutOf(ctx: EngineContext, txHex: string): Promise<RefundTimeout | undefined> {
  let tx;
  try {
    tx = parseTransaction(txHex);
  } catch {
    return undefined;
  }
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (input.txid === undefined || input.index === undefined) continue;
    let previous;
    try {
      previous = parseTransaction(await ctx.rpc.getRawTransactionHex(hex.encode(input.txid)));
    } catch {
      continue; // an input the node does not know cannot be a swap lockup Ferry knows
    }
    const script = previous.getOutput(input.index)?.script;
    if (script === undefined) continue;
    let address: string;
    try {
      address = ctx.chain.addressOf(script);
    } catch {
      continue;
    }
    const swap = await ctx.storage.swaps.getByLockupAddress(address);
    if (swap?.timeoutBlockHeight == null) continue;
    const blocksLeft = Math.max(0, swap.timeoutBlockHeight - (await ctx.chain.height()));
    return {
      timeoutBlockHeight: swap.timeoutBlockHeight,
      timeoutEta: Math.floor(Date.now() / 1000) + blocksLeft * BLOCK_SECONDS,
    };
  }
  return undefined;
}
