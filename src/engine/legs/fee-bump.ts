// Fee bumping of Ferry's own transactions that stay unconfirmed: once one has waited `feeBumpAfterBlocks` blocks
// in the mempool, it is replaced (BIP125) by the same spend at a higher fee rate — a claim or refund rebuilt and
// signed again through its leaf (Ferry alone can; a cooperative key-path claim is replaced by Ferry's script-path
// claim), a lockup through the wallet's bumpfee. The swap records the replacement without a new status (a
// `*.replaced` row), so what confirms is what the swap names; a replacement can only ever displace the original,
// never pay a second time, since it spends the same coins.
import { hex } from '@scure/base';
import type { SwapRecord } from '../../db/index.ts';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import type { StoredTransaction } from '../data.ts';
import { legChain, lockupOutput, serverLockupOf, signerOf, userLockupOf } from './lockup-leg.ts';
import type { OwnTransaction } from './own-transactions.ts';

/** A bump pays at least this much more per vbyte than the transaction it replaces (BIP125's relay increment). */
const MIN_STEP_SAT_PER_VBYTE = 1;
/** ... and a quarter more, as long as that stays within twice today's estimate. */
const STEP_FACTOR = 1.25;
const ESTIMATE_CAP_FACTOR = 2;

/**
 * The fee rate of a replacement: today's estimate, or a quarter above what is stuck (capped at twice the estimate,
 * so a transaction stuck for another reason does not compound its fee block after block), and always at least
 * 1 sat/vbyte above what is stuck, as a replacement must be.
 */
export const bumpedFeeRate = (stuck: number, estimate: number): number =>
  Math.max(estimate, Math.min(stuck * STEP_FACTOR, estimate * ESTIMATE_CAP_FACTOR), stuck + MIN_STEP_SAT_PER_VBYTE);

const recorded = (swap: SwapRecord, key: string): StoredTransaction | undefined => swap.data[key] as StoredTransaction | undefined;

/** Bumps `own` if it has waited in the mempool for the configured number of blocks by `height`. */
export async function bumpIfStuck(ctx: EngineContext, own: OwnTransaction, height: number): Promise<void> {
  const after = ctx.settings.feeBumpAfterBlocks;
  if (after <= 0) return;
  const chain = legChain(ctx, own.leg);
  const entry = await chain.mempoolEntry(own.tx.txid);
  if (entry === undefined || height - entry.height < after) return;
  const feeRate = bumpedFeeRate(entry.feeRate, await chain.feeRate());
  const fields = { swap: own.swap.id, kind: own.kind, txid: own.tx.txid, waited: height - entry.height, from: entry.feeRate, to: feeRate };
  try {
    const replacement = await ctx.locks.run(own.swap.id, () => replace(ctx, own, feeRate));
    if (replacement !== undefined) ctx.logger.warn(`Ferry's ${own.kind} was stuck unconfirmed: replaced at a higher fee`, { ...fields, replacement });
  } catch (error) {
    // Refused by the node or the wallet, or no fee left in the output: tried again at the next block.
    ctx.logger.warn(`Ferry's ${own.kind} is stuck unconfirmed and could not be fee-bumped`, { ...fields, error: String(error) });
  }
}

/** Builds, broadcasts and records the replacement, if `own` is still what the swap names; its txid. */
async function replace(ctx: EngineContext, own: OwnTransaction, feeRate: number): Promise<string | undefined> {
  const swap = await ctx.swaps.require(own.swap.id);
  const chain = legChain(ctx, own.leg);
  if (own.kind === 'lockup') {
    const leg = serverLockupOf(swap);
    const lockup = leg.lockup;
    if (lockup?.txid !== own.tx.txid || !statusesWith(machineFor(swap.type), 'server.replaced').includes(swap.status)) return undefined;
    // Spent already (the client's claim in the mempool): replacing the lockup would take the claim away.
    if ((await chain.unspentConfirmations(lockup.txid, lockup.vout)) !== 0) return undefined;
    const bumped = await chain.bumpLockup(lockupOutput(leg), feeRate);
    const data = { [leg.lockupKey]: { txid: bumped.txid, vout: bumped.vout, value: lockup.value, hex: bumped.hex, confirmed: false } };
    await ctx.swaps.applyLocked(swap.id, { type: 'server.replaced', data });
    ctx.watching.outpoint(leg.chain, bumped.txid, bumped.vout, { swapId: swap.id, leg: 'serverLockup' });
    return bumped.txid;
  }
  const key = own.kind === 'claim' ? 'claimTransaction' : 'refundTransaction';
  const event = own.kind === 'claim' ? 'claim.replaced' : 'refund.replaced';
  if (recorded(swap, key)?.txid !== own.tx.txid || !statusesWith(machineFor(swap.type), event).includes(swap.status)) return undefined;
  let built;
  if (own.kind === 'claim') {
    const preimage = swap.data.preimage as string | undefined;
    if (preimage === undefined) return undefined;
    const leg = userLockupOf(swap);
    built = await chain.scriptPathClaim(lockupOutput(leg), signerOf(ctx, leg), hex.decode(preimage), feeRate);
  } else {
    const leg = serverLockupOf(swap);
    built = await chain.scriptPathRefund(lockupOutput(leg), signerOf(ctx, leg), leg.timeoutBlockHeight, feeRate);
  }
  await chain.broadcast(built.hex);
  await ctx.swaps.applyLocked(swap.id, { type: event, data: { [key]: { txid: built.txid, hex: built.hex } } });
  return built.txid;
}
