// What the chain watcher tells about a submarine swap: its lockup (checked and classified) and spends of it.
import type { LockupEvent, SpendEvent } from '../../chains/events.ts';
import type { SwapRecord } from '../../db/index.ts';
import { hex } from '@scure/base';
import { classifySubmarineLockup, lockupReplaceable } from '../../swaps/lockup.ts';
import { SwapStatus as S } from '../../swaps/status.ts';
import { parseTransaction, signalsRbf } from '../chain-tools.ts';
import type { EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import { submarineData } from '../data.ts';

/** Share of the current fee estimate an unconfirmed lockup must pay to be accepted (REFERENCE: 80%). */
const ZERO_CONF_FEE_SHARE = 0.8;

export async function onSubmarineLockup(ctx: EngineContext, swap: SwapRecord, event: LockupEvent): Promise<void> {
  const value = Number(event.value);
  let feeRate: number | undefined;
  let minZeroConfFeeRate = Infinity;
  if (event.confirmations === 0 && value <= submarineData(swap).pricing.maximalZeroConf) {
    // Anything unknown here only makes Ferry wait for a confirmation, never accept more.
    try {
      feeRate = await ctx.chain.mempoolFeeRate(event.txid);
      minZeroConfFeeRate = ZERO_CONF_FEE_SHARE * (await ctx.chain.feeRate());
    } catch (error) {
      ctx.logger.warn('could not judge a lockup for 0-conf', { swap: swap.id, error: String(error) });
    }
  }
  const seen = {
    txid: event.txid,
    vout: event.vout,
    value,
    hex: event.txHex,
    confirmations: event.confirmations,
    feeRate,
    signalsRbf: signalsRbf(parseTransaction(event.txHex)),
  };
  // Classified on the row as it is under the lock: an invoice set meanwhile must be checked against this lockup.
  await ctx.swaps.locks.run(swap.id, async () => {
    const fresh = await ctx.swaps.require(swap.id);
    const data = submarineData(fresh);
    const classified = classifySubmarineLockup(
      data,
      seen,
      {
        maximalZeroConf: data.pricing.maximalZeroConf,
        minZeroConfFeeRate,
        overpaymentTolerancePercent: ctx.settings.overpaymentTolerancePercent,
      },
      await replacesRecorded(ctx, fresh, seen),
    );
    if (classified === undefined) return;
    const result = await ctx.swaps.applyLocked(swap.id, classified);
    if (!result.applied) return;
    ctx.watching.outpoint(swap.id, event.txid, event.vout);
    crashPoint('submarine.lockup-seen');
  });
}

/**
 * Whether a lockup transaction other than the recorded one takes its place: the user fee-bumped it (the new one
 * spends one of the same coins) or the recorded one left the mempool unconfirmed. Two unrelated payments to the
 * address are not a replacement: the first keeps counting.
 */
async function replacesRecorded(ctx: EngineContext, swap: SwapRecord, seen: { txid: string; hex: string }): Promise<boolean> {
  const recorded = submarineData(swap).lockup;
  if (recorded === undefined || recorded.txid === seen.txid || !lockupReplaceable(swap.status, recorded)) return false;
  if (spendsSameCoin(recorded.hex, seen.hex)) return true;
  return (await ctx.chain.unspentConfirmations(recorded.txid, recorded.vout)) === undefined;
}

function spendsSameCoin(aHex: string, bHex: string): boolean {
  const outpoints = (txHex: string): string[] => {
    const tx = parseTransaction(txHex);
    return Array.from({ length: tx.inputsLength }, (_, i) => {
      const input = tx.getInput(i);
      return `${hex.encode(input.txid!)}:${input.index!}`;
    });
  };
  const spent = new Set(outpoints(aHex));
  return outpoints(bHex).some((outpoint) => spent.has(outpoint));
}

export async function onSubmarineSpend(ctx: EngineContext, swap: SwapRecord, event: SpendEvent): Promise<void> {
  const refundLeaf = submarineData(swap).swapTree.refundLeaf.output;
  if (event.witness.includes(refundLeaf)) {
    // The user's refund after the timeout. Harmless in a failed swap; a loss if Ferry had paid and not yet claimed.
    const log = swap.status === S.TransactionClaimPending ? ctx.logger.error : ctx.logger.info;
    log.call(ctx.logger, 'submarine lockup refunded by the user', { swap: swap.id, status: swap.status, txid: event.txid });
    return;
  }
  if (swap.status === S.TransactionClaimPending) {
    await ctx.swaps.dispatch(swap.id, { type: 'lockup.spent', data: { claimTransaction: { txid: event.txid, hex: event.txHex } } });
    return;
  }
  ctx.logger.info('submarine lockup spent', { swap: swap.id, status: swap.status, txid: event.txid });
}
