// Fee bumping of Ferry's own transactions that stay unconfirmed: once one has waited `feeBumpAfterBlocks` blocks
// in the mempool, it is replaced (BIP125) by the same spend at a higher fee rate — a claim or refund rebuilt and
// signed again through its leaf (Ferry alone can; a cooperative key-path claim is replaced by Ferry's script-path
// claim), a lockup through the wallet's bumpfee, or where the wallet cannot, by a child paying for it (CPFP,
// lockup-child.ts). The swap records the replacement without a new status (a
// `*.replaced` row), so what confirms is what the swap names; a replacement can only ever displace the original,
// never pay a second time, since it spends the same coins.
import { hex } from '@scure/base';
import { TransactionRejected } from '@ferry/sdk/chains/backend.js';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import type { StoredTransaction } from '../data.ts';
import { payForLockup } from './lockup-child.ts';
import { legChain, lockupOutput, serverLockupOf, signerOf, userLockupOf } from './lockup-leg.ts';
import { recordVersion, SPEND_RECORDS, type OwnTransaction } from './own-transactions.ts';

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

/** Replaced versions of a claim or refund kept in the swap: the node may still have any of them. */
const KEPT_VERSIONS = 8;

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
    const replacement = own.kind === 'lockup' ? await ctx.locks.run(own.swap.id, () => unstickLockup(ctx, own, feeRate)) : await replaceSpend(ctx, own, feeRate);
    if (replacement !== undefined) ctx.logger.warn(`Ferry's ${own.kind} was stuck unconfirmed: fee-bumped`, { ...fields, ...replacement });
  } catch (error) {
    // Refused by the node or the wallet, or no fee left in the output: tried again at the next block.
    ctx.logger.warn(`Ferry's ${own.kind} is stuck unconfirmed and could not be fee-bumped`, { ...fields, error: String(error) });
  }
}

/** Ferry's lockup replaced through the wallet's bumpfee, or where that is refused, paid for by a child. */
async function unstickLockup(ctx: EngineContext, own: OwnTransaction, feeRate: number): Promise<{ replacement?: string; child?: string } | undefined> {
  let replacement;
  try {
    replacement = await replaceLockup(ctx, own, feeRate);
  } catch (error) {
    if (!(error instanceof TransactionRejected)) throw error;
    ctx.logger.info("The wallet cannot replace Ferry's stuck lockup: a child pays for it", { swap: own.swap.id, txid: own.tx.txid, error: error.message });
    const child = await payForLockup(ctx, own, feeRate);
    return child === undefined ? undefined : { child };
  }
  return replacement === undefined ? undefined : { replacement };
}

/** The wallet's bumpfee of Ferry's lockup, still unspent and what the swap names; the replacement's txid. */
async function replaceLockup(ctx: EngineContext, own: OwnTransaction, feeRate: number): Promise<string | undefined> {
  const swap = await ctx.swaps.require(own.swap.id);
  const chain = legChain(ctx, own.leg);
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

/**
 * A claim or refund rebuilt through its leaf at `feeRate`, recorded before it is broadcast (the replaced version
 * kept beside it), so a crash in between leaves the swap naming a version the node will be asked about; a refusal
 * records the old one again. The replacement's txid.
 */
async function replaceSpend(ctx: EngineContext, own: OwnTransaction, feeRate: number): Promise<{ replacement: string } | undefined> {
  const swap = await ctx.swaps.require(own.swap.id);
  const records = SPEND_RECORDS[own.kind as 'claim' | 'refund'];
  const current = swap.data[records.current] as StoredTransaction | undefined;
  if (current?.txid !== own.tx.txid || !statusesWith(machineFor(swap.type), records.event).includes(swap.status)) return undefined;
  const chain = legChain(ctx, own.leg);
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
  const replacement = { txid: built.txid, hex: built.hex };
  if (!(await recordVersion(ctx, own, replacement, [...own.earlier, own.tx].slice(-KEPT_VERSIONS)))) return undefined;
  crashPoint('fee-bump.replacement-recorded');
  try {
    await chain.broadcast(built.hex);
  } catch (error) {
    await recordVersion(ctx, { ...own, tx: replacement }, own.tx, own.earlier);
    throw error;
  }
  return { replacement: built.txid };
}
