// The server lockup leg: coins Ferry locks from the operator wallet to a swap output, sent at most once; the client
// claims them with the preimage (Ferry co-signs a key-path claim through cosign.ts), or Ferry takes them back
// through the refund leaf after the timeout. What must hold before locking or refunding (e.g. a held Lightning
// payment) is the swap type's, passed in as hooks.
//
// Sending: lockups from one wallet go one at a time; before sending, a marker is committed, and a lockup whose
// marker exists (a send that may have happened before a crash) is first looked for on chain: the watcher is synced,
// which reports any transaction paying the lockup script (mempool included) and moves the swap on. Only a swap
// still without its lockup after that is sent again.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { WalletRefused } from '../../chains/backend.ts';
import type { LockupEvent, SpendEvent } from '../../chains/events.ts';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { SwapStatus as S } from '../../swaps/status.ts';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import { reverseData, type ReverseLockup } from '../data.ts';
import { legChain, lockupOutput, serverLockupOf, signerOf } from './lockup-leg.ts';

export interface ServerLockupHooks {
  /** Why Ferry must not lock now (checked before any coin moves); undefined when locking is safe. */
  lockRefusal(ctx: EngineContext, swap: SwapRecord): Promise<string | undefined>;
  /** Throws while refunding would take both sides (e.g. the preimage is known and the payment can still settle). */
  beforeRefund(ctx: EngineContext, swap: SwapRecord): Promise<void>;
}

const markerKey = (swapId: string): string => `reverse.lockup.started:${swapId}`;

/** Statuses in which Ferry's lockup is out: those its refund broadcast leaves. */
const locked = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'refund.broadcast').includes(swap.status);

const stillToLock = (swap: SwapRecord): boolean =>
  swap.status === S.Created && reverseData(swap).lockupRequested === true && reverseData(swap).lockup === undefined;

export function sendServerLockup(ctx: EngineContext, effect: EffectRecord, hooks: ServerLockupHooks): Promise<void> {
  return ctx.swaps.require(effect.swapId).then((first) => {
    const leg = serverLockupOf(first);
    const chain = legChain(ctx, leg);
    return ctx.locks.run(`wallet:${leg.chain}`, async () => {
      let swap = await ctx.swaps.require(effect.swapId);
      if (!stillToLock(swap)) return;
      crashPoint('reverse.invoice-accepted');
      const marker = markerKey(swap.id);
      if ((await ctx.storage.kv.get(marker)) !== undefined) {
        await chain.watcher.sync();
        swap = await ctx.swaps.require(swap.id);
        if (!stillToLock(swap)) return;
        ctx.logger.warn('server lockup marked as started but not found on chain: sending it', { swap: swap.id });
      }
      const reason = await hooks.lockRefusal(ctx, swap);
      if (reason !== undefined) {
        ctx.logger.warn('not locking for swap', { swap: swap.id, reason });
        await ctx.swaps.dispatch(swap.id, { type: 'lockup.failed', data: { failureReason: reason } });
        return;
      }

      const data = reverseData(swap);
      await ctx.storage.kv.set(marker, String(Date.now()));
      let sent;
      try {
        sent = await chain.sendToLockup({ address: leg.address, script: leg.script }, data.onchainAmount);
      } catch (error) {
        if (error instanceof WalletRefused) {
          ctx.logger.error('server lockup refused by the wallet', { swap: swap.id, error: error.message });
          await ctx.storage.kv.delete(marker);
          await ctx.swaps.dispatch(swap.id, { type: 'lockup.failed', data: { failureReason: 'onchain coins could not be sent' } });
          return;
        }
        // A timeout or a dropped connection may still have sent it: the marker makes the retry look first.
        throw error;
      }
      crashPoint('reverse.lockup-broadcast');
      await recordLockup(ctx, swap.id, leg.chain, { txid: sent.txid, vout: sent.vout, value: sent.value, hex: sent.hex, confirmed: false });
      ctx.logger.info('server lockup sent', { swap: swap.id, txid: sent.txid, amount: sent.value });
    });
  });
}

async function recordLockup(ctx: EngineContext, swapId: string, chain: string, lockup: ReverseLockup): Promise<void> {
  const result = await ctx.swaps.dispatch(swapId, { type: lockup.confirmed ? 'lockup.confirmed' : 'lockup.sent', data: { lockup } });
  if (result.applied) {
    ctx.watching.outpoint(chain, lockup.txid, lockup.vout, { swapId, leg: 'serverLockup' });
    await ctx.storage.kv.delete(markerKey(swapId));
  }
}

export async function onServerLockup(ctx: EngineContext, swap: SwapRecord, event: LockupEvent): Promise<void> {
  const leg = serverLockupOf(swap);
  const data = reverseData(swap);
  const value = Number(event.value);
  const seen: ReverseLockup = { txid: event.txid, vout: event.vout, value, hex: event.txHex, confirmed: event.confirmations > 0 };
  if (swap.status === S.Created) {
    // Only a lockup Ferry asked for counts, and only if it locks the full amount.
    if (data.lockupRequested !== true || value < data.onchainAmount) {
      ctx.logger.warn('unexpected payment to a server lockup address', { swap: swap.id, txid: event.txid, value });
      return;
    }
    await recordLockup(ctx, swap.id, leg.chain, seen);
    return;
  }
  const known = data.lockup;
  if (swap.status === S.TransactionMempool && known?.txid === event.txid && event.confirmations > 0) {
    await ctx.swaps.dispatch(swap.id, { type: 'lockup.confirmed', data: { lockup: { ...known, confirmed: true } } });
  }
}

/** After the timeout: Ferry takes an unclaimed lockup back through the refund leaf (nLockTime = timeout). */
export function refundServerLockup(ctx: EngineContext, effect: EffectRecord, hooks: ServerLockupHooks): Promise<void> {
  return ctx.locks.run(effect.swapId, async () => {
    const swap = await ctx.swaps.require(effect.swapId);
    if (!locked(swap)) return;
    await hooks.beforeRefund(ctx, swap);
    const leg = serverLockupOf(swap);
    const chain = legChain(ctx, leg);
    const lockup = leg.lockup!;
    // Spent already: by the user's claim (the spend handler settles) or by a refund broadcast before a crash.
    if ((await chain.unspentConfirmations(lockup.txid, lockup.vout)) === undefined) return;
    const refund = await chain.scriptPathRefund(lockupOutput(leg), signerOf(ctx, leg), leg.timeoutBlockHeight);
    await chain.ensureBroadcast(refund.hex);
    await ctx.swaps.applyLocked(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: refund.txid, hex: refund.hex } } });
    ctx.logger.info('server lockup refunded', { swap: swap.id, txid: refund.txid });
  });
}

/** A 32-byte witness item hashing to the swap's preimage hash. */
export function preimageInWitness(witness: readonly string[], preimageHash: string): string | undefined {
  return witness.find((item) => item.length === 64 && hex.encode(sha256(hex.decode(item))) === preimageHash);
}

export async function onServerLockupSpend(ctx: EngineContext, swap: SwapRecord, event: SpendEvent): Promise<void> {
  const preimage = preimageInWitness(event.witness, swap.preimageHash);
  if (preimage !== undefined) {
    ctx.logger.info('server lockup claimed on chain', { swap: swap.id, txid: event.txid });
    await ctx.swaps.dispatch(swap.id, { type: 'preimage.learned', data: { preimage } });
    return;
  }
  // No preimage: a key-path claim Ferry co-signed after settling, or Ferry's own refund.
  const data = reverseData(swap);
  if (locked(swap) && data.refundRequested === true) {
    await ctx.swaps.dispatch(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: event.txid, hex: event.txHex } } });
  }
  if (event.confirmations > 0) {
    const current = await ctx.swaps.require(swap.id);
    if (current.status === S.TransactionRefunded && reverseData(current).refundTransaction?.txid === event.txid) {
      await ctx.swaps.dispatch(swap.id, { type: 'refund.confirmed' });
    }
  }
}
