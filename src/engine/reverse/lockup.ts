// Ferry's lockup for a reverse swap, sent at most once. Lockups are serialised; before sending, a marker is
// committed, and a lockup whose marker exists (a send that may have happened before a crash) is first looked for
// on chain: the watcher is synced, which reports any transaction paying the lockup script (mempool included)
// and moves the swap on. Only a swap still without its lockup after that is sent again.
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { RpcError, satToBtc } from '../../chains/bitcoin-rpc.ts';
import type { LockupEvent } from '../../chains/events.ts';
import { SwapStatus as S } from '../../swaps/status.ts';
import { parseTransaction } from '../chain-tools.ts';
import type { EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import { reverseData, type ReverseLockup } from '../data.ts';

const markerKey = (swapId: string): string => `reverse.lockup.started:${swapId}`;

/** Wallet answers that mean nothing was sent (Core: insufficient funds, wallet error, bad amount or address). */
const REFUSED_CODES = new Set([-6, -4, -3, -5, -8]);

const stillToLock = (swap: SwapRecord): boolean =>
  swap.status === S.Created && reverseData(swap).lockupRequested === true && reverseData(swap).lockup === undefined;

/** Reasons not to lock at all, checked before any coin moves; undefined when locking is safe. */
async function refusal(ctx: EngineContext, swap: SwapRecord): Promise<string | undefined> {
  const invoice = await ctx.lightning.lookupInvoice(swap.preimageHash);
  if (invoice?.state !== 'ACCEPTED') return `hold invoice is ${invoice?.state ?? 'unknown'}, not accepted`;
  const timeout = swap.timeoutBlockHeight!;
  const lowestExpiry = Math.min(...invoice.htlcExpiryHeights);
  if (invoice.htlcExpiryHeights.length === 0 || lowestExpiry < timeout + ctx.settings.minHtlcMarginBlocks) {
    return 'the held payment expires too close to the swap timeout';
  }
  const pair = ctx.settings.pairs.get(swap.pair)!;
  const minBlocks = ctx.settings.minReverseLockupBlocks ?? Math.ceil(pair.timeouts.reverse / 2);
  if (timeout - (await ctx.chain.height()) < minBlocks) return 'too close to the swap timeout to lock';
  return undefined;
}

export function sendLockup(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  return ctx.lockups.run(async () => {
    let swap = await ctx.swaps.require(effect.swapId);
    if (!stillToLock(swap)) return;
    crashPoint('reverse.invoice-accepted');
    const marker = markerKey(swap.id);
    if ((await ctx.storage.kv.get(marker)) !== undefined) {
      await ctx.watcher.sync();
      swap = await ctx.swaps.require(swap.id);
      if (!stillToLock(swap)) return;
      ctx.logger.warn('reverse lockup marked as started but not found on chain: sending it', { swap: swap.id });
    }
    const reason = await refusal(ctx, swap);
    if (reason !== undefined) {
      ctx.logger.warn('not locking for reverse swap', { swap: swap.id, reason });
      await ctx.swaps.dispatch(swap.id, { type: 'lockup.failed', data: { failureReason: reason } });
      return;
    }

    const data = reverseData(swap);
    await ctx.storage.kv.set(marker, String(Date.now()));
    let txid: string;
    try {
      txid = await ctx.rpc.sendToAddress(swap.lockupAddress!, satToBtc(data.onchainAmount));
    } catch (error) {
      if (error instanceof RpcError && REFUSED_CODES.has(error.code)) {
        ctx.logger.error('reverse lockup refused by the wallet', { swap: swap.id, error: error.message });
        await ctx.storage.kv.delete(marker);
        await ctx.swaps.dispatch(swap.id, { type: 'lockup.failed', data: { failureReason: 'onchain coins could not be sent' } });
        return;
      }
      // A timeout or a dropped connection may still have sent it: the marker makes the retry look first.
      throw error;
    }
    crashPoint('reverse.lockup-broadcast');
    const txHex = await ctx.rpc.getRawTransactionHex(txid);
    const tx = parseTransaction(txHex);
    let vout = -1;
    for (let i = 0; i < tx.outputsLength; i++) {
      const script = tx.getOutput(i).script;
      if (script !== undefined && Buffer.from(script).toString('hex') === data.lockupScript) vout = i;
    }
    if (vout < 0) throw new Error(`lockup transaction ${txid} does not pay the lockup script`);
    await recordLockup(ctx, swap.id, { txid, vout, value: data.onchainAmount, hex: txHex, confirmed: false });
    ctx.logger.info('reverse lockup sent', { swap: swap.id, txid, amount: data.onchainAmount });
  });
}

async function recordLockup(ctx: EngineContext, swapId: string, lockup: ReverseLockup): Promise<void> {
  const result = await ctx.swaps.dispatch(swapId, { type: lockup.confirmed ? 'lockup.confirmed' : 'lockup.sent', data: { lockup } });
  if (result.applied) {
    ctx.watching.outpoint(swapId, lockup.txid, lockup.vout);
    await ctx.storage.kv.delete(markerKey(swapId));
  }
}

export async function onReverseLockup(ctx: EngineContext, swap: SwapRecord, event: LockupEvent): Promise<void> {
  const data = reverseData(swap);
  const value = Number(event.value);
  const seen: ReverseLockup = { txid: event.txid, vout: event.vout, value, hex: event.txHex, confirmed: event.confirmations > 0 };
  if (swap.status === S.Created) {
    // Only a lockup Ferry asked for counts, and only if it locks the full amount.
    if (data.lockupRequested !== true || value < data.onchainAmount) {
      ctx.logger.warn('unexpected payment to a reverse lockup address', { swap: swap.id, txid: event.txid, value });
      return;
    }
    await recordLockup(ctx, swap.id, seen);
    return;
  }
  const known = data.lockup;
  if (swap.status === S.TransactionMempool && known?.txid === event.txid && event.confirmations > 0) {
    await ctx.swaps.dispatch(swap.id, { type: 'lockup.confirmed', data: { lockup: { ...known, confirmed: true } } });
  }
}
