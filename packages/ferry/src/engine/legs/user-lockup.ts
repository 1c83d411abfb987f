// The user lockup leg: coins the client locks to a swap output. Ferry watches for them and judges them (amount,
// 0-conf), claims them with the preimage (cooperatively through the key path with the client's MuSig2 signature,
// or alone through the claim leaf when the client stays silent), and co-signs the client's refund (cosign.ts).
import { hex } from '@scure/base';
import { signalsRbf, TransactionRejected } from '@ferry/sdk/chains/backend.js';
import type { LockupEvent, SpendEvent } from '@ferry/sdk/chains/events.js';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { InvalidNonce, InvalidPartialSignature } from '@ferry/sdk/keys/index.js';
import {
  invalid,
  invalidParameter,
  invalidPartialSignature,
  noCooperativeLegacySpend,
  notEligibleForClaim,
  type PartialSignatureBody,
  type SubmarineClaimDetailsBody,
} from '@ferry/sdk/protocol/index.js';
import { classifySubmarineLockup, lockupReplaceable, type LockupObservation } from '@ferry/sdk/swaps/lockup.js';
import type { ContractClaimEvent, ContractLockupEvent, ContractRefundEvent } from '@ferry/sdk/chains/contract-chain.js';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import type { LockupRecord } from '../data.ts';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import { Defer, PermanentEffectError } from '../effects.ts';
import { hexBytes } from '../input.ts';
import { isRefundSpend, legChain, legContractChain, lockupOutput, signerOf, userLockupOf } from './lockup-leg.ts';
import { clearUserLockupReorged, onLostContractLockup, userLockupReorged } from './contract-reorg.ts';
import { lockupConfirmationsFor } from './lockup-depth.ts';
import { loseUserLockup, recheckUserLockup } from './lockup-reorg.ts';

/** Share of the current fee estimate an unconfirmed lockup must pay to be accepted (REFERENCE: 80%). */
const ZERO_CONF_FEE_SHARE = 0.8;
/** The signing session of the cooperative claim. */
const CLAIM_SESSION = 'claim';

/** What claiming a user lockup reads, wherever the swap type learned it (a paid invoice, the client's claim). */
const claimFacts = (swap: SwapRecord) => swap.data as { preimage?: string; claimPendingSince?: number };

/** Statuses in which Ferry is claiming: those its claim broadcast leaves. */
const claiming = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'claim.broadcast').includes(swap.status);

export async function onUserLockup(ctx: EngineContext, swap: SwapRecord, event: LockupEvent): Promise<void> {
  const leg = userLockupOf(swap);
  const chain = legChain(ctx, leg);
  const value = Number(event.value);
  let feeRate: number | undefined;
  let minZeroConfFeeRate = Infinity;
  if (event.confirmations === 0 && value <= (leg.maximalZeroConf ?? 0)) {
    // Anything unknown here only makes Ferry wait for a confirmation, never accept more.
    try {
      feeRate = await chain.mempoolFeeRate(event.txid);
      minZeroConfFeeRate = ZERO_CONF_FEE_SHARE * (await chain.feeRate());
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
    signalsRbf: signalsRbf(chain, event),
    minZeroConfFeeRate,
    ...((event.refusal ?? leg.amountRefusal?.(value)) !== undefined && { refusal: event.refusal ?? leg.amountRefusal!(value)! }),
  };
  await judgeUserLockup(ctx, swap, seen, () => ctx.watching.outpoint(leg.chain, event.txid, event.vout, { swapId: swap.id, leg: 'userLockup' }));
}

/**
 * A contract chain's lockup (the user's `lock`, seen as a Lockup event of the preimage hash): it counts only if it
 * names Ferry's claim address, the swap's timeout as timelock (a commitment: one at or after it, commitments.ts)
 * and a whole number of API units; then it is judged like an output (amount, as in classifySubmarineLockup). An
 * event is delivered once `evm.confirmations` deep, so there is no 0-conf here; its depth is then weighed against
 * what its amount needs, like an output's.
 */
export async function onUserContractLockup(ctx: EngineContext, swap: SwapRecord, event: ContractLockupEvent): Promise<void> {
  const leg = userLockupOf(swap);
  const chain = legContractChain(ctx, leg);
  // The lock of a lost lockup seen again brings the swap back (contract-reorg.ts); no other lock counts meanwhile.
  if (await onLostContractLockup(ctx, chain, swap, event)) return;
  const value = chain.toApiUnits(BigInt(event.amount));
  const { preimageHash, amount, claimAddress, refundAddress, timelock, commitment } = event;
  // A commitment's timelock was chosen before the swap existed: it must only outlast the swap's.
  const timelockFits = commitment === undefined ? timelock === leg.timeoutBlockHeight : timelock >= leg.timeoutBlockHeight;
  const refusal =
    event.refusal ??
    (value === undefined ? `locked ${event.amount} is not a whole number of 10^-8 ${chain.symbol}` : undefined) ??
    (claimAddress.toLowerCase() !== leg.contract!.claimAddress.toLowerCase() ? `invalid claim address ${claimAddress}` : undefined) ??
    (timelockFits ? undefined : `invalid timelock ${timelock}: the swap times out at ${leg.timeoutBlockHeight}`) ??
    leg.amountRefusal?.(value!);
  const seen = {
    txid: event.txHash,
    vout: event.logIndex,
    value: value ?? 0,
    hex: '',
    // Its depth below the tip: an amount that needs more blocks is followed at the chain's blocks (lockup-depth.ts).
    confirmations: Math.max(1, (await chain.height()) - event.blockHeight + 1),
    blockHeight: event.blockHeight,
    signalsRbf: false,
    contract: { preimageHash, amount, claimAddress, refundAddress, timelock, ...(commitment !== undefined && { commitment }) },
    ...(refusal !== undefined && { refusal }),
  };
  await judgeUserLockup(ctx, swap, seen, () => {});
}

/** Classifies a lockup seen for the swap on the row as it is under the lock, and records it. */
async function judgeUserLockup(ctx: EngineContext, swap: SwapRecord, seen: LockupObservation, watchSpends: () => void): Promise<void> {
  // Classified on the row as it is under the lock: an invoice set meanwhile must be checked against this lockup.
  await ctx.locks.run(swap.id, async () => {
    const fresh = await ctx.swaps.require(swap.id);
    const freshLeg = userLockupOf(fresh);
    const classified = classifySubmarineLockup(
      { lockup: freshLeg.lockup, expectedAmount: freshLeg.expectedAmount },
      seen,
      {
        maximalZeroConf: freshLeg.maximalZeroConf ?? 0,
        minZeroConfFeeRate: seen.feeRate === undefined ? Infinity : seen.minZeroConfFeeRate!,
        overpaymentTolerancePercent: ctx.settings.overpaymentTolerancePercent,
        // Blocks its amount needs before Ferry pays or locks against it (the pair's tiers or the chain's default).
        confirmations: lockupConfirmationsFor(ctx, freshLeg, seen.value),
      },
      freshLeg.contract === undefined && (await replacesRecorded(ctx, fresh, seen)),
    );
    if (classified === undefined) return;
    const result = await ctx.swaps.applyLocked(swap.id, classified);
    if (!result.applied) return;
    watchSpends();
    crashPoint('submarine.lockup-seen');
  });
}

/**
 * Whether a lockup transaction other than the recorded one takes its place: the user fee-bumped it (the new one
 * spends one of the same coins) or the recorded one left the mempool unconfirmed. Two unrelated payments to the
 * address are not a replacement: the first keeps counting.
 */
async function replacesRecorded(ctx: EngineContext, swap: SwapRecord, seen: { txid: string; hex: string }): Promise<boolean> {
  const leg = userLockupOf(swap);
  const recorded = leg.lockup as LockupRecord | undefined;
  if (recorded === undefined || recorded.txid === seen.txid || !lockupReplaceable(swap.status, recorded, machineFor(swap.type))) return false;
  const chain = legChain(ctx, leg);
  const outpoints = (txHex: string) => chain.transactionInputs(txHex).map((input) => `${input.txid}:${input.vout}`);
  const spent = new Set(outpoints(recorded.hex));
  if (outpoints(seen.hex).some((outpoint) => spent.has(outpoint))) return true;
  return (await chain.unspentConfirmations(recorded.txid, recorded.vout)) === undefined;
}

export async function onUserLockupSpend(ctx: EngineContext, swap: SwapRecord, event: SpendEvent): Promise<void> {
  const leg = userLockupOf(swap);
  if (isRefundSpend(leg, event.witness)) {
    // The user's refund after the timeout. Harmless in a failed swap; a loss if Ferry had paid and not yet claimed.
    const log = claiming(swap) ? ctx.logger.error : ctx.logger.info;
    log.call(ctx.logger, 'user lockup refunded by the user', { swap: swap.id, status: swap.status, txid: event.txid });
    return;
  }
  if (claiming(swap)) {
    await ctx.swaps.dispatch(swap.id, { type: 'lockup.spent', data: { claimTransaction: { txid: event.txid, hex: event.txHex } } });
    return;
  }
  ctx.logger.info('user lockup spent', { swap: swap.id, status: swap.status, txid: event.txid });
}

/** Ferry's claim recorded before the lockup was lost (a claim reorganised out with it), if any. */
const earlierClaim = (swap: SwapRecord): { txid: string; hex: string } | undefined => {
  const claim = swap.data.claimTransaction as { txid: string; hex: string } | undefined;
  return claim !== undefined && claim.hex !== '' ? claim : undefined;
};

/** How long a spent lockup waits for the watcher to name its spender; per process, since only a restart loses it. */
const SPEND_ATTRIBUTION_MS = 5_000;
const unattributedSpends = new Map<string, number>();

/** A contract chain's claim or refund of the user's lockup: Ferry's claim (seen again after a crash) ends the swap. */
export async function onUserContractSpend(ctx: EngineContext, swap: SwapRecord, event: ContractClaimEvent | ContractRefundEvent): Promise<void> {
  if (event.type === 'refund') {
    const log = claiming(swap) ? ctx.logger.error : ctx.logger.info;
    log.call(ctx.logger, 'user lockup refunded by the user', { swap: swap.id, status: swap.status, txid: event.txHash });
    return;
  }
  if (claiming(swap)) await ctx.swaps.dispatch(swap.id, { type: 'lockup.spent', data: { claimTransaction: { txid: event.txHash, hex: '' } } });
}

/** startClaim: the preimage is known; open the window for the client's cooperative signature. */
export async function startClaim(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  await ctx.swaps.dispatch(effect.swapId, { type: 'claim.start', data: { claimPendingSince: Date.now() } });
}

/**
 * claimWhenSilent: once the cooperative window is over, claim through the script path. If the lockup is already
 * spent (a cooperative claim broadcast just before a crash), that spend is the claim.
 */
export async function claimWhenSilent(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const first = await ctx.swaps.require(effect.swapId);
  if (!claiming(first)) return;
  if (userLockupOf(first).contract !== undefined) return claimFromContract(ctx, first.id);
  // A legacy output has no cooperative claim to wait for, nor does a lockup back on chain that Ferry claimed before.
  const delay = userLockupOf(first).legacy === undefined && earlierClaim(first) === undefined ? ctx.settings.claimDelayMs : 0;
  const due = (claimFacts(first).claimPendingSince ?? 0) + delay;
  if (Date.now() < due) throw new Defer(due);
  const unknown = await ctx.locks.run(first.id, async (): Promise<string | undefined> => {
    const swap = await ctx.swaps.require(first.id);
    if (!claiming(swap)) return undefined;
    const leg = userLockupOf(swap);
    const chain = legChain(ctx, leg);
    const lockup = leg.lockup!;
    if ((await chain.unspentConfirmations(lockup.txid, lockup.vout)) === undefined) {
      // A lockup the node no longer knows was double-spent or reorganised away: rechecked below, outside the lock.
      if (!(await chain.isKnown(lockup.txid))) return lockup.txid;
      // Spent: our claim broadcast before a crash, most likely. The watcher reports the spend with its transaction;
      // give it a moment to, so the claim is recorded, before settling for a claim without one.
      const waitUntil = unattributedSpends.get(swap.id) ?? Date.now() + SPEND_ATTRIBUTION_MS;
      unattributedSpends.set(swap.id, waitUntil);
      if (Date.now() < waitUntil) throw new Defer(waitUntil);
      unattributedSpends.delete(swap.id);
      ctx.logger.warn('user lockup spent by a transaction the watcher did not report: recorded as claimed without it', { swap: swap.id, lockup: lockup.txid });
      await ctx.swaps.applyLocked(swap.id, { type: 'lockup.spent' });
      return undefined;
    }
    // A lost lockup back on chain: Ferry's claim of it, reorganised out with it, is the claim again.
    const earlier = earlierClaim(swap);
    if (earlier !== undefined) {
      try {
        await chain.ensureBroadcast(earlier.hex);
        await ctx.swaps.applyLocked(swap.id, { type: 'claim.broadcast', data: { claimTransaction: earlier } });
        ctx.logger.info('user lockup claimed again with the claim a reorg took out', { swap: swap.id, txid: earlier.txid });
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionRejected)) throw error;
      }
    }
    const claim = await chain.scriptPathClaim(lockupOutput(leg), signerOf(ctx, leg), hex.decode(claimFacts(swap).preimage!));
    await chain.ensureBroadcast(claim.hex);
    crashPoint('user-lockup.claim-broadcast');
    await ctx.swaps.applyLocked(swap.id, { type: 'claim.broadcast', data: { claimTransaction: { txid: claim.txid, hex: claim.hex } } });
    ctx.logger.info('user lockup claimed through the script path', { swap: swap.id, txid: claim.txid });
    return undefined;
  });
  if (unknown === undefined) return;
  // Nothing to claim while it is gone, and no retry can change that: the recheck records the loss (a failed status,
  // still watched; lockup.found claims it again if it comes back) and the effect ends.
  const where = await recheckUserLockup(ctx, first.id);
  if (claiming(await ctx.swaps.require(first.id))) {
    throw new PermanentEffectError(`lockup ${unknown} is unknown to the node (${where ?? 'not rechecked'}): nothing to claim`);
  }
  ctx.logger.warn('not claiming: the user lockup is lost', { swap: first.id, lockup: unknown, where });
}

/**
 * A contract chain has no cooperative claim to wait for: Ferry claims at once with the preimage, batched with the
 * other claims due (the chain's claimBatch). A lockup no longer locked was claimed before a crash (or refunded by
 * the user after the timeout, which the follower's event reports) — unless a reorg took it back (contract-reorg.ts):
 * then the lockup is lost, not claimed.
 */
function claimFromContract(ctx: EngineContext, id: string): Promise<void> {
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id);
    if (!claiming(swap)) return;
    const leg = userLockupOf(swap);
    const chain = legContractChain(ctx, leg);
    const values = leg.lockup!.contract!;
    const reorged = await userLockupReorged(ctx, swap.id);
    if (!(await chain.isLocked(values))) {
      // Taken back by a reorg: not claimed, only gone for now. The loss is recorded (a failed status) and the claim
      // ends; the lock seen again (lockup.found) claims it then.
      if (reorged) {
        await loseUserLockup(ctx, swap, leg.lockup!, 'vanished');
        return;
      }
      await ctx.swaps.applyLocked(swap.id, { type: 'lockup.spent' });
      return;
    }
    if (reorged) await clearUserLockupReorged(ctx, swap.id);
    const claim = await chain.claim(values, claimFacts(swap).preimage!);
    crashPoint('user-lockup.claim-broadcast');
    await ctx.swaps.applyLocked(swap.id, { type: 'claim.broadcast', data: { claimTransaction: { txid: claim.txHash, hex: '' } } });
    ctx.logger.info('user lockup claimed from the contract', { swap: swap.id, txHash: claim.txHash });
  });
}

/**
 * The cooperative claim: the client signs Ferry's key-path sweep of its lockup once Ferry knows the preimage (a
 * submarine swap's paid invoice, a chain swap's claim of Ferry's lockup).
 */
export class CooperativeClaims {
  constructor(private readonly ctx: EngineContext) {}

  /** GET /swap/{type}/{id}/claim: the same nonce and transaction until they are used. */
  details(id: string, type: SwapType = SwapType.Submarine, eligible: (swap: SwapRecord) => boolean = claiming): Promise<SubmarineClaimDetailsBody> {
    return this.ctx.locks.run(id, async () => {
      const swap = await this.ctx.swaps.require(id, type);
      if (!eligible(swap)) throw notEligibleForClaim();
      const leg = userLockupOf(swap);
      if (leg.contract !== undefined) throw notEligibleForClaim();
      if (leg.legacy !== undefined) throw noCooperativeLegacySpend();
      const chain = legChain(this.ctx, leg);
      const signer = signerOf(this.ctx, leg);
      let session = (await this.ctx.sessions.find(id, CLAIM_SESSION, chain, signer))?.session;
      if (session === undefined) {
        const sweep = await chain.keyPathSweep(lockupOutput(leg));
        session = await this.ctx.sessions.open(id, CLAIM_SESSION, chain, signer, sweep.sighash, sweep.hex);
      }
      return {
        preimage: claimFacts(swap).preimage!,
        pubNonce: hex.encode(session.pubNonce),
        publicKey: hex.encode(signer.servicePublicKey),
        transactionHash: hex.encode(session.message),
      };
    });
  }

  /** POST /swap/{type}/{id}/claim: verify the client's partial signature, aggregate, broadcast. */
  sign(id: string, body: PartialSignatureBody, type: SwapType = SwapType.Submarine): Promise<Record<string, never>> {
    return this.ctx.locks.run(id, async () => {
      const swap = await this.ctx.swaps.require(id, type);
      if (!claiming(swap)) throw notEligibleForClaim();
      const leg = userLockupOf(swap);
      if (leg.contract !== undefined) throw notEligibleForClaim();
      if (leg.legacy !== undefined) throw noCooperativeLegacySpend();
      const chain = legChain(this.ctx, leg);
      const open = await this.ctx.sessions.find(id, CLAIM_SESSION, chain, signerOf(this.ctx, leg));
      if (open === undefined) throw invalid('no claim details were requested for this swap');
      const clientNonce = hexBytes(body.pubNonce, 'pubNonce');
      const clientPartial = hexBytes(body.partialSignature, 'partialSignature');
      try {
        open.session.verify(clientNonce, clientPartial);
      } catch (error) {
        throw refusalOf(error);
      }
      // Only one caller, on any instance, gets to sign with this nonce.
      if (!(await this.ctx.sessions.claimForSigning(open.record))) throw invalid('no claim details were requested for this swap');
      let signature: Uint8Array;
      try {
        signature = open.session.complete(clientNonce, clientPartial);
      } catch (error) {
        throw refusalOf(error);
      }
      const claim = chain.withKeyPathSignature(open.record.transactionHex, signature);
      try {
        await chain.ensureBroadcast(claim.hex);
      } catch (error) {
        // The node refused the claim (e.g. the lockup is spent already): the swap stays claim.pending, new claim
        // details can be requested, and Ferry's own script-path claim still follows after the delay.
        if (error instanceof TransactionRejected) throw invalid(`could not broadcast the claim: ${error.message}`);
        throw error;
      }
      await this.ctx.swaps.applyLocked(id, { type: 'claim.broadcast', data: { claimTransaction: { txid: claim.txid, hex: claim.hex } } });
      this.ctx.logger.info('user lockup claimed cooperatively', { swap: id, txid: claim.txid });
      return {};
    });
  }
}

function refusalOf(error: unknown): unknown {
  if (error instanceof InvalidPartialSignature) return invalidPartialSignature();
  if (error instanceof InvalidNonce) return invalidParameter('pubNonce');
  return error;
}

