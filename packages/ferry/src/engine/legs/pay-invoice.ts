// The pay invoice leg: decide to pay (atomically with the refund check), pay the swap's invoice exactly once from
// the operator's Lightning node, and hand the preimage the payment revealed to the lockup leg that claims with it.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { eventApplies, machineFor, statusesWith } from '../../swaps/index.ts';
import { SwapStatus as S } from '@ferry/sdk/swaps/status.js';
import { chainBlocksFor, lightningBlocksWithin } from '../block-time.ts';
import { swapLightning, type EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import { submarineData } from '../data.ts';
import { PermanentEffectError } from '../effects.ts';
import { recheckUserLockup } from './lockup-reorg.ts';
import { legAnyChain, legChain, legContractChain, userLockupOf, type LockupLeg } from './lockup-leg.ts';
import { lockupConfirmationsFor } from './lockup-depth.ts';

/** Statuses the decision to pay can leave. */
const payable = (status: string, type: string): boolean => statusesWith(machineFor(type), 'payment.start').includes(status);

/**
 * startPayment: goes to invoice.pending unless too few blocks remain before the timeout (paying that late would
 * let the user refund on chain while the payment is still in flight; the swap then just expires), and only while
 * the node still has the lockup as it was recorded (a reorganisation or double spend may have taken it away).
 * The invoice's final CLTV delta and the safety margin count Lightning (Bitcoin) blocks, the timeout the lockup
 * chain's: they are compared in the chain's blocks, as when the invoice was accepted.
 */
export async function startPayment(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  if (!payable(swap.status, swap.type)) return;
  const data = submarineData(swap);
  const leg = userLockupOf(swap);
  const chain = legAnyChain(ctx, leg);
  const blocksLeft = swap.timeoutBlockHeight! - (await chain.height());
  if (blocksLeft <= chainBlocksFor(chain, (data.minFinalCltvExpiry ?? 0) + ctx.settings.paymentSafetyBlocks)) {
    ctx.logger.warn('not paying: too close to the swap timeout', { swap: swap.id, blocksLeft });
    return;
  }
  const gone = data.lockup === undefined ? undefined : await lockupLost(ctx, leg);
  if (gone !== undefined && (await paymentBegun(ctx, swap))) {
    // The node paid (or is paying) this invoice already: a Ferry restored from a backup taken before it paid, whose
    // claim then spent the lockup. The payment is followed to its preimage, never sent again (payInvoice).
    ctx.logger.warn('the node holds a payment of this invoice from before a restore or crash: following it', { swap: swap.id, reason: gone });
  } else if (gone !== undefined) {
    ctx.logger.warn('not paying: the lockup is not on chain as recorded', { swap: swap.id, reason: gone });
    // A lockup that vanished, was double spent or went back to the mempool moves the swap back (lockup-reorg.ts):
    // nothing to pay now, and the lockup seen again asks for the payment again through its rows.
    await recheckUserLockup(ctx, swap.id);
    const now = await ctx.swaps.require(swap.id);
    const lockup = submarineData(now).lockup;
    if (!payable(now.status, now.type) || lockup === undefined || !(lockup.confirmed || lockup.zeroConf)) return;
    // Still recorded as payable (e.g. the node is catching up): retried with backoff, a bounded number of times.
    throw new Error(`lockup not payable: ${gone}`);
  }
  await ctx.swaps.dispatch(swap.id, { type: 'payment.start' });
}

/** Whether the node holds a payment of the swap's invoice that succeeded or is in flight. */
async function paymentBegun(ctx: EngineContext, swap: SwapRecord): Promise<boolean> {
  const payment = await swapLightning(ctx, swap).lookupPayment(swap.preimageHash);
  return payment !== undefined && payment.status !== 'FAILED';
}

/**
 * The swap recorded its lockup when the watcher saw it, but a reorganisation or a double spend may have taken it
 * away since: asked of the node right before deciding to pay. Says why the lockup is no longer payable, if so.
 */
async function lockupLost(ctx: EngineContext, leg: LockupLeg): Promise<string | undefined> {
  const lockup = submarineData(leg.swap).lockup!;
  if (leg.contract !== undefined) {
    return (await legContractChain(ctx, leg).isLocked(lockup.contract!)) ? undefined : 'the lockup is no longer in the contract';
  }
  const confirmations = await legChain(ctx, leg).unspentConfirmations(lockup.txid, lockup.vout);
  if (confirmations === undefined) return 'the lockup output is spent or no longer exists';
  if (confirmations === 0 && !lockup.zeroConf) return 'the lockup is no longer confirmed';
  // Mined again in a later block after a reorg: paid for once it is as deep as its amount needs again.
  if (confirmations < lockupConfirmationsFor(ctx, leg, lockup.value) && !lockup.zeroConf) return `the lockup is only ${confirmations} blocks deep`;
  return undefined;
}

/** payInvoice: one payment per swap. After a crash the backend follows the payment it already started. */
export async function payInvoice(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const swap = await ctx.swaps.require(effect.swapId);
  // A lockup lost while the payment is in flight: the payment is still followed to its end and recorded (the
  // preimage claims the lockup if it comes back); only a payment already started is ever followed there.
  const lostPaying = swap.status === S.TransactionLockupFailed && eventApplies(machineFor(swap.type), swap.status, swap.data, 'payment.succeeded');
  if (swap.status !== S.InvoicePending && !lostPaying) return;
  if (lostPaying) {
    const payment = await swapLightning(ctx, swap).lookupPayment(swap.preimageHash);
    if (payment === undefined || payment.status === 'FAILED') {
      // Never begun (or failed): no payment is started for a lockup that is gone.
      ctx.logger.warn('not paying: the lockup was lost before the payment began', { swap: swap.id });
      await ctx.swaps.dispatch(swap.id, { type: 'payment.failed', data: { paymentFailure: payment === undefined ? 'not paid: the lockup was lost' : 'payment failed' } });
      return;
    }
  }
  const data = submarineData(swap);
  // The state machine already makes this impossible; a refund signature and a payment must never both exist.
  if (data.refundSigned === true) throw new PermanentEffectError('refusing to pay: a cooperative refund was signed');
  const invoice = data.invoice!;
  if (await expiredUnpaid(ctx, swap, invoice)) {
    // The node refuses an expired invoice before any payment exists: retrying could never pay it. Failing the
    // swap now opens the cooperative refund instead of leaving the client waiting for the on-chain timeout.
    ctx.logger.warn('invoice expired before it could be paid', { swap: swap.id });
    await ctx.swaps.dispatch(swap.id, {
      type: 'payment.failed',
      data: { failureReason: 'invoice could not be paid', paymentFailure: 'invoice expired' },
    });
    return;
  }
  const invoiceMsat = BigInt(data.invoiceAmount!) * 1000n;
  const feeLimitMsat = [
    (invoiceMsat * BigInt(ctx.settings.routingFeeLimitPpm) + 999_999n) / 1_000_000n,
    BigInt(ctx.settings.minRoutingFeeSat) * 1000n,
  ].reduce((a, b) => (a > b ? a : b));
  ctx.logger.info('paying invoice', { swap: swap.id, amount: data.invoiceAmount, feeLimitMsat });
  // The payment's HTLCs must resolve before the user can refund on chain: cap their time lock, in Lightning blocks,
  // below the time left until the timeout (Liquid's blocks come ten times as often). Past that point no route
  // qualifies and a new payment fails (a refundable swap); a payment already in flight after a crash is followed,
  // not resent, whatever the limit.
  const chain = legAnyChain(ctx, userLockupOf(swap));
  const blocksLeft = swap.timeoutBlockHeight! - (await chain.height());
  const cltvLimit = Math.max(1, lightningBlocksWithin(chain, blocksLeft) - ctx.settings.paymentSafetyBlocks);
  const result = await swapLightning(ctx, swap).payInvoice({
    paymentRequest: invoice,
    feeLimitMsat,
    cltvLimit,
    timeoutSeconds: ctx.settings.paymentTimeoutSeconds,
    onUpdate: (update) => {
      if (update.status === 'IN_FLIGHT') crashPoint('submarine.payment-in-flight');
    },
  });
  if (result.status === 'SUCCEEDED') {
    const preimage = result.preimage;
    if (preimage === undefined || hex.encode(sha256(hex.decode(preimage))) !== swap.preimageHash) {
      throw new PermanentEffectError('the node reported a payment without the matching preimage');
    }
    await ctx.swaps.dispatch(swap.id, {
      type: 'payment.succeeded',
      data: { preimage, routingFeeMsat: result.feeMsat.toString() },
    });
    return;
  }
  if (result.status === 'FAILED') {
    ctx.logger.warn('invoice payment failed', { swap: swap.id, reason: result.failureReason });
    await ctx.swaps.dispatch(swap.id, {
      type: 'payment.failed',
      data: { failureReason: 'invoice could not be paid', paymentFailure: result.failureReason ?? 'unknown' },
    });
    return;
  }
  // Still in flight when the backend gave up following it: try again, which follows the same payment.
  throw new Error('payment still in flight');
}

/** Whether the invoice is past its expiry and the node holds no payment for it that is in flight or succeeded. */
async function expiredUnpaid(ctx: EngineContext, swap: SwapRecord, invoice: string): Promise<boolean> {
  const lightning = swapLightning(ctx, swap);
  const decoded = await lightning.decodeInvoice(invoice);
  if (decoded.timestamp + decoded.expiry > Date.now() / 1000) return false;
  const payment = await lightning.lookupPayment(swap.preimageHash);
  return payment === undefined || payment.status === 'FAILED';
}
