// The UTXO transactions Ferry itself broadcast for its swaps — its lockups, its claims of user lockups, its refunds
// of its lockups — listed in one place, so one pass can look after all of them at each block: a transaction that
// left the node (a reorg, or eviction from the mempool) is broadcast again (the same one, so nothing is ever sent
// twice), and one stuck unconfirmed is fee-bumped (fee-bump.ts). A claim or refund is followed until a block has it
// (claimConfirmed / refundConfirmed), however old, and for RECENT_MS after its swap last changed (a reorg may take a
// confirmed one out); past that it is not looked at, so the work per block is the unconfirmed ones plus the recent
// ones, not every swap ever claimed. A lockup of Ferry's the client may have claimed (the preimage is out: a settled
// reverse swap, a claimed chain swap) is followed for RECENT_MS too: a reorg that drops it drops the client's claim,
// which can only be broadcast again once Ferry's lockup is back. One whose input another transaction spent moves its swap on (the watcher) or
// waits (restoreOwnTransaction) at two node calls a block.
import { TransactionNotFound, TransactionRejected, type ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { SwapRecord } from '../../db/index.ts';
import { MACHINES, machineFor, statusesAfter, statusesReachedBy, statusesWith } from '../../swaps/index.ts';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from '../context.ts';
import type { StoredTransaction } from '../data.ts';
import { legChain, serverLockupOf, userLockupOf, type LockupLeg } from './lockup-leg.ts';

export type OwnTransactionKind = 'lockup' | 'claim' | 'refund';

/**
 * One transaction of Ferry's, with the swap output it spends (a lockup spends wallet coins instead) and the
 * versions a fee bump replaced, oldest first: until one confirms, whichever the node knows is the swap's.
 */
export interface OwnTransaction {
  kind: OwnTransactionKind;
  swap: SwapRecord;
  leg: LockupLeg;
  tx: StoredTransaction;
  spends?: { txid: string; vout: number };
  earlier: StoredTransaction[];
}

/**
 * Where a swap keeps its claim or refund, the versions a bump replaced, the row that records a replacement, and
 * the row and flag that record it in a block.
 */
export const SPEND_RECORDS = {
  claim: { current: 'claimTransaction', earlier: 'claimReplaced', event: 'claim.replaced', confirmed: 'claim.confirmed', confirmedFlag: 'claimConfirmed' },
  refund: { current: 'refundTransaction', earlier: 'refundReplaced', event: 'refund.replaced', confirmed: 'refund.confirmed', confirmedFlag: 'refundConfirmed' },
} as const;

const earlierOf = (swap: SwapRecord, kind: 'claim' | 'refund'): StoredTransaction[] =>
  (swap.data[SPEND_RECORDS[kind].earlier] as StoredTransaction[] | undefined) ?? [];

const RECENT_MS = 24 * 3600_000;
const unique = (statuses: string[]): string[] => [...new Set(statuses)];
const reachedBy = (event: string): string[] => unique(Object.values(MACHINES).flatMap((machine) => statusesReachedBy(machine, event)));
const reachedIn = (swap: SwapRecord, event: string): boolean => statusesReachedBy(machine(swap), event).includes(swap.status);
const machine = (swap: SwapRecord) => machineFor(swap.type);

/** Statuses Ferry's claim of a user lockup leads to. */
const CLAIMED = reachedBy('claim.broadcast');
/** Statuses Ferry's refund of its lockup leads to. */
const REFUNDED = reachedBy('refund.broadcast');
/** Statuses in which Ferry's lockup is out and unspent by Ferry: those its refund broadcast leaves. */
const LOCKED = unique(Object.values(MACHINES).flatMap((m) => statusesWith(m, 'refund.broadcast')));
/**
 * Statuses once the client has the preimage, so it may have claimed Ferry's lockup (a reverse swap's settled
 * invoice, a chain swap's claims): a reorg taking out a claimed lockup takes the claim with it, and the claim can
 * only be broadcast again once the lockup is back, so Ferry keeps its lockup on the chain while the swap is recent.
 */
const PREIMAGE_OUT = unique(Object.values(MACHINES).flatMap((m) => statusesAfter(m, 'preimage.learned')));

const utxoLeg = (leg: LockupLeg, chain: string): boolean => leg.chain === chain && leg.contract === undefined && leg.lockup !== undefined;
const stored = (value: unknown): StoredTransaction | undefined => {
  const tx = value as StoredTransaction | undefined;
  return tx !== undefined && tx.hex !== '' ? tx : undefined;
};

/** Ferry's transactions on `chain` that may still need looking after: lockups first, as refunds spend them. */
export async function ownTransactionsOn(ctx: EngineContext, chain: string): Promise<OwnTransaction[]> {
  const found: OwnTransaction[] = [];
  const since = Date.now() - RECENT_MS;
  const followed = (swap: SwapRecord, confirmed: string) => swap.data[confirmed] !== true || swap.updatedAt >= since;
  // A refund recorded in a block may still be taken out by a reorg: followed while recent.
  const refunding = (swap: SwapRecord) => reachedIn(swap, 'refund.broadcast') && followed(swap, SPEND_RECORDS.refund.confirmedFlag);
  for (const swap of await ctx.storage.swaps.listByStatus(unique([...LOCKED, ...REFUNDED, ...PREIMAGE_OUT]))) {
    if (swap.type === SwapType.Submarine) continue;
    const leg = serverLockupOf(swap);
    const locked = statusesWith(machine(swap), 'refund.broadcast').includes(swap.status);
    const claimable = statusesAfter(machine(swap), 'preimage.learned').includes(swap.status) && swap.updatedAt >= since;
    if (!utxoLeg(leg, chain) || !(locked || refunding(swap) || claimable) || leg.lockup!.hex === '') continue;
    found.push({ kind: 'lockup', swap, leg, tx: { txid: leg.lockup!.txid, hex: leg.lockup!.hex }, earlier: [] });
  }
  for (const swap of await ctx.storage.swaps.listByStatus(REFUNDED)) {
    const leg = swap.type === SwapType.Submarine ? undefined : serverLockupOf(swap);
    const refund = stored(swap.data.refundTransaction);
    if (leg === undefined || refund === undefined || !utxoLeg(leg, chain) || !refunding(swap)) continue;
    found.push({ kind: 'refund', swap, leg, tx: refund, spends: { txid: leg.lockup!.txid, vout: leg.lockup!.vout }, earlier: earlierOf(swap, 'refund') });
  }
  for (const swap of await ctx.storage.swaps.listByStatus(CLAIMED)) {
    // A claim not yet settled deep is looked at however old (once, if it is), so its swap can stop being followed.
    const claimFollowed = followed(swap, SPEND_RECORDS.claim.confirmedFlag) || swap.data.claimSettled !== true;
    if (swap.type === SwapType.Reverse || !claimFollowed || !reachedIn(swap, 'claim.broadcast')) continue;
    const leg = userLockupOf(swap);
    const claim = stored(swap.data.claimTransaction);
    if (claim === undefined || !utxoLeg(leg, chain)) continue;
    found.push({ kind: 'claim', swap, leg, tx: claim, spends: { txid: leg.lockup!.txid, vout: leg.lockup!.vout }, earlier: earlierOf(swap, 'claim') });
  }
  return found;
}

/**
 * Where one of Ferry's transactions is after `restore`: in a block (with its confirmations), in the mempool, sent
 * again, or unsendable for now.
 */
export type Restored = { where: 'confirmed'; confirmations: number } | { where: 'mempool' | 'sent' | 'waiting' };

/** Confirmations of a transaction the node knows (0: in the mempool), or undefined. */
async function confirmationsOf(chain: ChainBackend, txid: string): Promise<number | undefined> {
  try {
    return (await chain.getTransaction(txid)).confirmations ?? 0;
  } catch (error) {
    if (error instanceof TransactionNotFound) return undefined;
    throw error;
  }
}

const known = (confirmations: number): Restored => (confirmations > 0 ? { where: 'confirmed', confirmations } : { where: 'mempool' });

/**
 * Broadcasts again a transaction of Ferry's the node no longer knows. A claim or refund waits while the output it
 * spends is not back (or is spent by another transaction); a transaction the node refuses (e.g. not final on the
 * shorter chain) waits for a later block.
 */
export async function restoreOwnTransaction(ctx: EngineContext, own: OwnTransaction): Promise<Restored> {
  const chain = legChain(ctx, own.leg);
  const confirmations = await confirmationsOf(chain, own.tx.txid);
  if (confirmations !== undefined) return known(confirmations);
  // A replacement recorded but never sent (a crash, or a refusal): the version the node has is the swap's again.
  for (const earlier of [...own.earlier].reverse()) {
    const found = await confirmationsOf(chain, earlier.txid);
    if (found !== undefined) {
      await recordVersion(ctx, own, earlier);
      return known(found);
    }
  }
  if (own.spends !== undefined && (await chain.unspentConfirmations(own.spends.txid, own.spends.vout)) === undefined) return { where: 'waiting' };
  try {
    await chain.ensureBroadcast(own.tx.hex);
  } catch (error) {
    if (!(error instanceof TransactionRejected)) throw error;
    ctx.logger.warn(`Ferry's ${own.kind} left the node and is refused for now`, { swap: own.swap.id, txid: own.tx.txid, error: error.message });
    return { where: 'waiting' };
  }
  ctx.logger.warn(`Ferry's ${own.kind} left the node (reorg or eviction): broadcast again`, { swap: own.swap.id, txid: own.tx.txid });
  return { where: 'sent' };
}

/** Records `version` of a claim or refund as the swap's (no new status), if the swap still names `own.tx`. */
export async function recordVersion(ctx: EngineContext, own: OwnTransaction, version: StoredTransaction, earlier?: StoredTransaction[]): Promise<boolean> {
  const kind = own.kind;
  if (kind === 'lockup') return false;
  const records = SPEND_RECORDS[kind];
  return ctx.locks.run(own.swap.id, async () => {
    const swap = await ctx.swaps.require(own.swap.id);
    if ((swap.data[records.current] as StoredTransaction | undefined)?.txid !== own.tx.txid) return false;
    const data = { [records.current]: { txid: version.txid, hex: version.hex }, [records.earlier]: earlier ?? earlierOf(swap, kind).filter((tx) => tx.txid !== version.txid) };
    return (await ctx.swaps.applyLocked(swap.id, { type: records.event, data })).applied;
  });
}
