// The server lockup leg: coins Ferry locks from the operator wallet to a swap output, sent at most once; the client
// claims them with the preimage (Ferry co-signs a key-path claim through cosign.ts), or Ferry takes them back
// through the refund leaf after the timeout. What must hold before locking or refunding (e.g. a held Lightning
// payment) is the swap type's, passed in as hooks.
//
// Sending: lockups from one wallet go one at a time; before sending, a marker is committed, and a lockup whose
// marker exists (a send that may have happened before a crash) is first looked for on chain: the watcher is synced,
// which reports any transaction paying the lockup script (mempool included) and moves the swap on. Only a swap
// still without its lockup after that is sent again.
//
// After a restore from a backup, Ferry may have sent a lockup the restored database knows nothing of (no marker): the
// first send of a process therefore waits until the watcher has caught up with the node once (the restored
// checkpoint is before the backup, so the blocks since are read again), and a full payment to a lockup address seen
// before Ferry asked for its lockup is remembered and taken as that lockup instead of sending another.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { WalletRefused } from '@ferry/sdk/chains/backend.js';
import {
  ContractCallRefused,
  type ContractChain,
  type ContractClaimEvent,
  type ContractLockupEvent,
  type ContractLockupValues,
  type ContractRefundEvent,
} from '@ferry/sdk/chains/contract-chain.js';
import type { LockupEvent, SpendEvent } from '@ferry/sdk/chains/events.js';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { machineFor, statusesWith } from '../../swaps/index.ts';
import { swapLightning, type EngineContext } from '../context.ts';
import { crashPoint } from '../crash-points.ts';
import type { ReverseLockup } from '../data.ts';
import { isRefundSpend, legChain, legContractChain, lockupOutput, serverLockupOf, signerOf, type LockupLeg } from './lockup-leg.ts';

export interface ServerLockupHooks {
  /** Why Ferry must not lock now (checked before any coin moves); undefined when locking is safe. */
  lockRefusal(ctx: EngineContext, swap: SwapRecord): Promise<string | undefined>;
  /** Throws while refunding would take both sides (e.g. the preimage is known and the payment can still settle). */
  beforeRefund(ctx: EngineContext, swap: SwapRecord): Promise<void>;
}

const markerKey = (swapId: string): string => `reverse.lockup.started:${swapId}`;
/** A full payment to the swap's lockup address seen before Ferry asked for its lockup (the JSON of a ReverseLockup). */
const sightingKey = (swapId: string): string => `reverse.lockup.seen:${swapId}`;

/** The first sync of each watcher in this process: read every block since the checkpoint before a first send. */
const caughtUp = new WeakMap<object, Promise<void>>();
function caughtUpOnce(watch: { sync(): Promise<void> }): Promise<void> {
  let done = caughtUp.get(watch);
  if (done === undefined) {
    done = watch.sync();
    caughtUp.set(watch, done);
    done.catch(() => caughtUp.delete(watch));
  }
  return done;
}

/** Whether a send of Ferry's lockup began and is not recorded yet (it may be on chain after a crash). */
export const serverLockupStarted = async (ctx: EngineContext, swapId: string): Promise<boolean> => (await ctx.storage.kv.get(markerKey(swapId))) !== undefined;

/** Statuses in which Ferry's lockup is out: those its refund broadcast leaves. */
const locked = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'refund.broadcast').includes(swap.status);

/** Statuses in which Ferry's lockup, once decided, is still to be seen: those its broadcast leaves. */
const awaitingLockup = (swap: SwapRecord): boolean => statusesWith(machineFor(swap.type), 'server.sent').includes(swap.status);

const stillToLock = (swap: SwapRecord): boolean => {
  const leg = serverLockupOf(swap);
  return awaitingLockup(swap) && leg.requested === true && leg.lockup === undefined;
};

/** The event data recording Ferry's lockup where the swap type keeps it. */
const lockupData = (leg: LockupLeg, lockup: ReverseLockup) => ({ [leg.lockupKey]: lockup });

export function sendServerLockup(ctx: EngineContext, effect: EffectRecord, hooks: ServerLockupHooks): Promise<void> {
  return ctx.swaps.require(effect.swapId).then((first) => {
    const leg = serverLockupOf(first);
    // A contract chain's lockup is a `lock` call, seen again through its follower; a UTXO chain's a wallet payment.
    const contract = leg.contract === undefined ? undefined : legContractChain(ctx, leg);
    const chain = contract === undefined ? legChain(ctx, leg) : undefined;
    const watch = contract ?? chain!.watcher;
    const marker = markerKey(first.id);
    // Caught up before the wallet's lock is taken: a watcher round may itself wait for that lock (a claim it
    // sends), and a round queued behind it would then wait for this send forever. A send begun before a crash (the
    // marker) is looked for on chain by one more round, for the same reason also before the lock.
    const caughtUp = async (): Promise<void> => {
      if (!stillToLock(first)) return;
      await caughtUpOnce(watch);
      if ((await ctx.storage.kv.get(marker)) !== undefined) await watch.sync();
    };
    return caughtUp().then(() => ctx.locks.run(`wallet:${leg.chain}`, async () => {
      const swap = await ctx.swaps.require(effect.swapId);
      if (!stillToLock(swap)) return;
      crashPoint('reverse.invoice-accepted');
      const sighted = await ctx.storage.kv.get(sightingKey(swap.id));
      const seen = sighted === undefined ? undefined : (JSON.parse(sighted) as ReverseLockup);
      // Still the full amount now (a chain swap's may have been quoted again since).
      if (seen !== undefined && seen.value >= serverLockupOf(swap).amount!) {
        ctx.logger.warn('a full payment to the lockup address was seen before the lockup was asked for (sent before a restore): taken as the lockup', { swap: swap.id, txid: seen.txid });
        await recordLockup(ctx, swap.id, serverLockupOf(swap), seen);
        return;
      }
      if ((await ctx.storage.kv.get(marker)) !== undefined) {
        ctx.logger.warn('server lockup marked as started but not found on chain: sending it', { swap: swap.id });
      }
      const reason = await hooks.lockRefusal(ctx, swap);
      if (reason !== undefined) {
        ctx.logger.warn('not locking for swap', { swap: swap.id, reason });
        await ctx.swaps.dispatch(swap.id, { type: 'server.failed', data: { failureReason: reason } });
        return;
      }

      await ctx.storage.kv.set(marker, String(Date.now()));
      let sent;
      try {
        sent = contract === undefined
          ? await chain!.sendToLockup({ address: leg.address, script: leg.script }, serverLockupOf(swap).amount!)
          : await lockOnContract(contract, serverLockupOf(swap));
      } catch (error) {
        if (error instanceof WalletRefused || error instanceof ContractCallRefused) {
          ctx.logger.error('server lockup refused by the wallet', { swap: swap.id, error: error.message });
          await ctx.storage.kv.delete(marker);
          await ctx.swaps.dispatch(swap.id, { type: 'server.failed', data: { failureReason: 'onchain coins could not be sent' } });
          return;
        }
        // A timeout or a dropped connection may still have sent it: the marker makes the retry look first.
        throw error;
      }
      crashPoint('reverse.lockup-broadcast');
      await recordLockup(ctx, swap.id, leg, 'contract' in sent ? sent : { txid: sent.txid, vout: sent.vout, value: sent.value, hex: sent.hex, confirmed: false });
      ctx.logger.info('server lockup sent', { swap: swap.id, txid: sent.txid, amount: sent.value });
    }));
  });
}

/** The values of Ferry's lock for a contract leg: the client's claim address, Ferry's refund address, the timeout. */
function contractValues(contract: ContractChain, leg: LockupLeg): ContractLockupValues {
  return {
    preimageHash: leg.swap.preimageHash,
    amount: contract.toBaseUnits(leg.amount!).toString(),
    claimAddress: leg.contract!.claimAddress,
    refundAddress: contract.serviceAddress,
    timelock: leg.timeoutBlockHeight,
  };
}

/** Ferry's `lock` of the amount (with a gasless swap's gas for the claim address), mined (so confirmed) when it resolves. */
async function lockOnContract(contract: ContractChain, leg: LockupLeg): Promise<ReverseLockup> {
  const values = contractValues(contract, leg);
  const sent = await contract.lock(values, leg.prepayAmount === undefined ? undefined : contract.toBaseUnits(leg.prepayAmount));
  return { txid: sent.txHash, vout: 0, value: leg.amount!, hex: '', confirmed: true, contract: values };
}

async function recordLockup(ctx: EngineContext, swapId: string, leg: LockupLeg, lockup: ReverseLockup): Promise<void> {
  const result = await ctx.swaps.dispatch(swapId, { type: lockup.confirmed ? 'server.confirmed' : 'server.sent', data: lockupData(leg, lockup) });
  if (result.applied) {
    if (leg.contract === undefined) ctx.watching.outpoint(leg.chain, lockup.txid, lockup.vout, { swapId, leg: 'serverLockup' });
    await ctx.storage.kv.delete(markerKey(swapId));
    await ctx.storage.kv.delete(sightingKey(swapId));
  }
}

export async function onServerLockup(ctx: EngineContext, swap: SwapRecord, event: LockupEvent): Promise<void> {
  const leg = serverLockupOf(swap);
  const value = Number(event.value);
  const seen: ReverseLockup = { txid: event.txid, vout: event.vout, value, hex: event.txHex, confirmed: event.confirmations > 0 };
  if (awaitingLockup(swap) && leg.lockup === undefined) {
    // Only a lockup Ferry asked for counts, and only if it locks the full amount in the chain's own coin.
    if (leg.requested !== true || value < leg.amount! || event.refusal !== undefined) {
      ctx.logger.warn('unexpected payment to a server lockup address', { swap: swap.id, txid: event.txid, value, refusal: event.refusal });
      if (leg.requested !== true && value >= leg.amount! && event.refusal === undefined) await ctx.storage.kv.set(sightingKey(swap.id), JSON.stringify(seen));
      return;
    }
    await recordLockup(ctx, swap.id, leg, seen);
    return;
  }
  const known = leg.lockup;
  const confirmable = statusesWith(machineFor(swap.type), 'server.confirmed').includes(swap.status);
  if (confirmable && known?.txid === event.txid && known.confirmed !== true && event.confirmations > 0) {
    await ctx.swaps.dispatch(swap.id, { type: 'server.confirmed', data: lockupData(leg, { ...(known as ReverseLockup), confirmed: true }) });
    return;
  }
  // A fee bump of Ferry's lockup (the same wallet payment at a higher fee, so it spends the same coins) replaces
  // the recorded one, even one not recorded yet because of a crash: its confirmation is the swap's.
  if (confirmable && known !== undefined && known.txid !== event.txid && known.hex !== '' && value >= leg.amount! && event.refusal === undefined) {
    const chain = legChain(ctx, leg);
    const coins = new Set(chain.transactionInputs(known.hex).map((input) => `${input.txid}:${input.vout}`));
    if (!chain.transactionInputs(event.txHex).some((input) => coins.has(`${input.txid}:${input.vout}`))) return;
    const replaced = await ctx.swaps.dispatch(swap.id, { type: seen.confirmed ? 'server.confirmed' : 'server.replaced', data: lockupData(leg, seen) });
    if (replaced.applied) {
      ctx.watching.outpoint(leg.chain, seen.txid, seen.vout, { swapId: swap.id, leg: 'serverLockup' });
      ctx.logger.info("Ferry's lockup replaced by a fee bump", { swap: swap.id, from: known.txid, to: seen.txid });
    }
  }
}

/**
 * A contract chain's Lockup event for a swap whose lockup is Ferry's: its own `lock` (seen again after a crash
 * between sending and recording it) counts when its values are exactly those Ferry locks with.
 */
export async function onServerContractLockup(ctx: EngineContext, swap: SwapRecord, event: ContractLockupEvent): Promise<void> {
  const leg = serverLockupOf(swap);
  if (!awaitingLockup(swap) || leg.lockup !== undefined || leg.requested !== true) return;
  const expected = contractValues(legContractChain(ctx, leg), leg);
  const { preimageHash, amount, claimAddress, refundAddress, timelock } = event;
  const seen = { preimageHash, amount, claimAddress, refundAddress, timelock };
  if (event.refusal !== undefined || JSON.stringify(seen).toLowerCase() !== JSON.stringify(expected).toLowerCase()) {
    ctx.logger.warn('a lock for a server lockup with other values', { swap: swap.id, txHash: event.txHash });
    return;
  }
  await recordLockup(ctx, swap.id, leg, { txid: event.txHash, vout: event.logIndex, value: leg.amount!, hex: '', confirmed: true, contract: expected });
}

/** The client's claim of Ferry's lock reveals the preimage; Ferry's refund ends the swap once it is mined. */
export async function onServerContractSpend(ctx: EngineContext, swap: SwapRecord, event: ContractClaimEvent | ContractRefundEvent): Promise<void> {
  if (event.type === 'claim') {
    ctx.logger.info('server lockup claimed from the contract', { swap: swap.id, txHash: event.txHash });
    await ctx.swaps.dispatch(swap.id, { type: 'preimage.learned', data: { preimage: event.preimage } });
    crashPoint('server-lockup.preimage-seen');
    return;
  }
  if (locked(swap) && swap.data.refundRequested === true) {
    await ctx.swaps.dispatch(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: event.txHash, hex: '' } } });
  }
  await ctx.swaps.dispatch(swap.id, { type: 'refund.confirmed' });
}

/** After the timeout: Ferry takes an unclaimed lockup back through the refund leaf (nLockTime = timeout). */
export function refundServerLockup(ctx: EngineContext, effect: EffectRecord, hooks: ServerLockupHooks): Promise<void> {
  return ctx.locks.run(effect.swapId, async () => {
    const swap = await ctx.swaps.require(effect.swapId);
    if (!locked(swap)) return;
    await hooks.beforeRefund(ctx, swap);
    const leg = serverLockupOf(swap);
    if (leg.contract !== undefined) {
      // Claimed (the claim event sets the preimage) or refunded before a crash: nothing left to take back.
      const contract = legContractChain(ctx, leg);
      const values = leg.lockup!.contract!;
      if (!(await contract.isLocked(values))) return;
      const refund = await contract.refund(values);
      await ctx.swaps.applyLocked(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: refund.txHash, hex: '' } } });
      ctx.logger.info('server lockup refunded from the contract', { swap: swap.id, txHash: refund.txHash });
      return;
    }
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
    crashPoint('server-lockup.preimage-seen');
    return;
  }
  // No preimage: a key-path claim Ferry co-signed after settling, or Ferry's own refund.
  if (locked(swap) && swap.data.refundRequested === true) {
    await ctx.swaps.dispatch(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: event.txid, hex: event.txHex } } });
  } else if (swap.type === 'reverse' && statusesWith(machineFor(swap.type), 'settlement.done').includes(swap.status) && !isRefundSpend(serverLockupOf(swap), event.witness)) {
    // A key-path claim Ferry co-signed, and settled for, after the backup it was restored from: the node's
    // invoice says so (the preimage is in the node alone, not on chain).
    if ((await swapLightning(ctx, swap).lookupInvoice(swap.preimageHash))?.state === 'SETTLED') {
      ctx.logger.warn('server lockup claimed by a key-path spend with the invoice settled at the node (before a restore): settled', { swap: swap.id, txid: event.txid });
      await ctx.swaps.dispatch(swap.id, { type: 'settlement.done' });
    }
  }
  if (event.confirmations > 0) {
    const current = await ctx.swaps.require(swap.id);
    const refund = current.data.refundTransaction as { txid?: string } | undefined;
    // Only Ferry signs the refund leaf: a refund that confirms is Ferry's, the recorded one or a fee bump of it.
    const refunded = refund?.txid === event.txid || isRefundSpend(serverLockupOf(current), event.witness);
    if (statusesWith(machineFor(current.type), 'refund.confirmed').includes(current.status) && refunded) {
      await ctx.swaps.dispatch(swap.id, { type: 'refund.confirmed', data: { refundTransaction: { txid: event.txid, hex: event.txHex } } });
    }
  }
}
