// The chain swap (chain → chain) as data: a user lockup on the `from` chain and a server lockup on the `to` chain.
// Once the user's lockup is confirmed (or accepted unconfirmed), Ferry locks on the other chain; the preimage the
// user reveals to claim Ferry's lockup (given to Ferry, or seen in the claim's witness) lets Ferry claim the user's.
// Ferry's lockup times out first: without the preimage Ferry takes it back then, and the user refunds theirs —
// cooperatively only while Ferry's lockup cannot be claimed any more (never locked, or refunded in a block).
//
// Events are named by their leg: `lockup.*` the user's lockup (as in a submarine swap), `server.*` Ferry's. The
// legs keep the user's lockup under `lockup` and Ferry's under `serverLockup` (src/engine/legs/lockup-leg.ts).
import type { LockupRecord, SwapOutputData } from './lockup.ts';
import type { MachineDefinition, SwapData } from './machine.ts';
import type { ReverseLockup } from './reverse-machine.ts';
import type { LockupLoss, StoredTransaction } from './submarine-machine.ts';
import { SwapStatus as S, TIMED_OUT_REASON } from './status.ts';

/** One side of a chain swap: its own chain, output and timeout. */
export interface ChainSide extends SwapOutputData {
  chain: string;
  address: string;
  timeoutBlockHeight: number;
  amount: number;
  /** The chain's height when the swap was created: the side's window runs from here to its timeout. */
  startHeight: number;
}

/** What a chain swap keeps in its row's `data` (the guards below read some of it). */
export interface ChainSwapData {
  [key: string]: unknown;
  user: ChainSide;
  server: ChainSide;
  /** The user's lockup, judged as a submarine lockup is. */
  lockup?: LockupRecord;
  /** A user lockup that left the chain before Ferry locked, kept to tell a later double spend of its coins. */
  vanishedLockup?: LockupRecord;
  serverLockupRequested?: boolean;
  serverLockup?: ReverseLockup;
  /** A new server amount the client accepted for a lockup of another amount. */
  quotedAmount?: number;
  preimage?: string;
  claimPendingSince?: number;
  claimTransaction?: StoredTransaction;
  /** Ferry's claim is in a block. */
  claimConfirmed?: boolean;
  /** Ferry's claim is SETTLED_DEPTH deep: the swap is no longer followed on chain. */
  claimSettled?: boolean;
  refundRequested?: boolean;
  refundTransaction?: StoredTransaction;
  refundConfirmed?: boolean;
  refundSigned?: boolean;
  failureReason?: string;
  /** The user's lockup left the chain after Ferry locked against it. */
  lockupLost?: LockupLoss;
}

export const CHAIN_STATUSES = [
  S.Created,
  S.TransactionMempool,
  S.TransactionConfirmed,
  S.TransactionServerMempool,
  S.TransactionServerConfirmed,
  S.TransactionClaimPending,
  S.TransactionClaimed,
  S.TransactionLockupFailed,
  S.TransactionFailed,
  S.Expired,
  S.TransactionRefunded,
] as const;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];

export const CHAIN_EVENTS = [
  'lockup.rejected', // the user's lockup has the wrong amount or asset
  'lockup.mempool', // the user's lockup, unconfirmed, not accepted for 0-conf
  'lockup.zeroConf', // the user's lockup, unconfirmed, accepted for 0-conf
  'lockup.confirmed', // the user's lockup is in a block
  'lockup.unconfirmed', // a reorg put the user's confirmed lockup back into the mempool
  'lockup.vanished', // a reorg (or the mempool) dropped the user's lockup, and nothing spent its coins
  'lockup.doubleSpent', // the user's lockup is gone and another transaction spent its coins
  'quote.accepted', // the client accepted Ferry's new amount for a lockup of another amount
  'server.sent', // Ferry's lockup is in the mempool
  'server.replaced', // Ferry's lockup, stuck unconfirmed, was replaced by the same payment at a higher fee
  'server.childPaid', // Ferry's lockup, stuck unconfirmed and not replaceable, got a child paying for it (CPFP)
  'server.confirmed', // Ferry's lockup is in a block
  'server.failed', // Ferry could not lock (nothing was sent)
  'preimage.learned', // from the client's claim request or from its claim of Ferry's lockup on chain
  'claim.start',
  'claim.broadcast', // Ferry broadcast its claim of the user's lockup
  'claim.confirmed', // Ferry's claim is in a block: no longer rebroadcast or bumped once that is old news
  'claim.replaced', // Ferry's claim, stuck unconfirmed, was replaced by one paying a higher fee
  'claim.settled', // Ferry's claim is buried deep enough (SETTLED_DEPTH) that the swap is no longer followed on chain
  'lockup.spent', // the user's lockup was seen spent while Ferry waited to claim: its own claim
  'timeout', // the `to` chain reached the timeout of Ferry's lockup
  'refund.broadcast', // Ferry broadcast its refund of its lockup
  'refund.confirmed', // Ferry's refund is in a block: the user can no longer claim it
  'refund.replaced', // Ferry's refund, stuck unconfirmed, was replaced by one paying a higher fee
  'refund.signed', // Ferry handed out a partial signature for the user's cooperative refund
  'lockup.lost', // the user's lockup Ferry locked against left the chain: vanished or double spent
  'lockup.found', // that lockup is on the chain again
] as const;
export type ChainEvent = (typeof CHAIN_EVENTS)[number];

export const CHAIN_EFFECTS = [
  'sendLockup', // lock the server amount on the `to` chain, at most once
  'refundLockup', // take Ferry's lockup back through the refund leaf (nLockTime = its timeout)
  'startClaim', // enter transaction.claim.pending
  'claimWhenSilent', // after the cooperative window, claim the user's lockup through the script path
] as const;
export type ChainEffect = (typeof CHAIN_EFFECTS)[number];

type ChainGuard = 'sent' | 'lost' | 'notLost' | 'lostClaimable' | 'lostServerConfirmed' | 'lostRefundable' | 'notLocked' | 'notSent' | 'locking' | 'quotable' | 'refundNotRequested' | 'claimableAfterRefund' | 'refundUnconfirmed' | 'claimUnconfirmed' | 'claimUnsettled' | 'unclaimable';

const locking = (data: SwapData): boolean => data.serverLockupRequested === true;
const lockupConfirmed = (data: SwapData): boolean => (data.lockup as { confirmed?: boolean } | undefined)?.confirmed === true;

const request = { serverLockupRequested: true };
const timedOut = { failureReason: TIMED_OUT_REASON };
const refunded = { refundSigned: true };
/**
 * A user lockup leaving the chain before Ferry locked takes back the decision to lock (the sendLockup effect then
 * finds nothing to do); the event data moves a vanished lockup to vanishedLockup, and the row clears the record.
 */
const unlock = { serverLockupRequested: false };
const noLockup = { ...unlock, lockup: undefined };
const doubleSpent = { ...unlock, failureReason: 'the lockup transaction was double spent' };

const lost = (data: SwapData): boolean => data.lockupLost !== undefined;
const preimageKnown = (data: SwapData): boolean => typeof data.preimage === 'string';
/** The lockup is back: the loss and its reason are cleared (Ferry's claim of it may have been reorged out). */
const found = { lockupLost: undefined, failureReason: undefined, claimConfirmed: undefined };

export const chainMachine: MachineDefinition<ChainStatus, ChainEvent, ChainEffect, ChainGuard> = {
  name: 'Chain swap',
  initial: [S.Created],
  final: [S.TransactionClaimed, S.TransactionFailed, S.Expired, S.TransactionRefunded],
  succeeded: [S.TransactionClaimed],
  failed: [S.TransactionLockupFailed, S.TransactionFailed, S.Expired, S.TransactionRefunded],
  chainEvents: [
    'lockup.rejected',
    'lockup.mempool',
    'lockup.zeroConf',
    'lockup.confirmed',
    'lockup.unconfirmed',
    'lockup.vanished',
    'lockup.doubleSpent',
    'server.sent',
    'server.confirmed',
    'preimage.learned',
    'lockup.spent',
    'refund.broadcast',
    'refund.confirmed',
    'lockup.lost',
    'lockup.found',
  ],
  effectLegs: { sendLockup: 'serverLockup', refundLockup: 'serverLockup', startClaim: 'userLockup', claimWhenSilent: 'userLockup' },
  statuses: CHAIN_STATUSES,
  events: CHAIN_EVENTS,
  effects: CHAIN_EFFECTS,
  guards: {
    sent: { label: 'server lockup sent', test: (data) => data.serverLockup !== undefined },
    lost: { label: 'user lockup lost after Ferry locked', test: lost },
    notLost: { label: 'no user lockup lost after Ferry locked', test: (data) => !lost(data) },
    lostClaimable: { label: 'lockup lost, preimage known', test: (data) => lost(data) && preimageKnown(data) },
    lostServerConfirmed: {
      label: 'lockup lost, server lockup confirmed',
      test: (data) => lost(data) && (data.serverLockup as { confirmed?: boolean } | undefined)?.confirmed === true,
    },
    // Ferry's own lockup is all it can still take back: at its timeout, unless the user claimed it (the preimage).
    lostRefundable: {
      label: 'lockup lost, preimage unknown, no refund requested',
      test: (data) => lost(data) && !preimageKnown(data) && data.refundRequested !== true,
    },
    notLocked: { label: 'no server lockup requested', test: (data) => !locking(data) },
    // Decided but not sent: the engine rechecks under the wallet's lock, so a lockup being sent is recorded first.
    notSent: { label: 'no server lockup sent', test: (data) => data.serverLockup === undefined },
    locking: { label: 'server lockup requested', test: locking },
    // A refund signed for the user's lockup rules out locking for it: both would hand the user the coins twice.
    quotable: {
      label: 'lockup confirmed, no server lockup, no refund signed',
      test: (data) => lockupConfirmed(data) && !locking(data) && data.refundSigned !== true,
    },
    refundNotRequested: { label: 'no refund requested', test: (data) => data.refundRequested !== true },
    // The user's claim can beat Ferry's refund into a block: then Ferry must claim the user's lockup in turn.
    claimableAfterRefund: {
      label: 'preimage unknown, refund not in a block',
      test: (data) => typeof data.preimage !== 'string' && data.refundConfirmed !== true,
    },
    refundUnconfirmed: { label: 'refund not in a block', test: (data) => data.refundConfirmed !== true },
    claimUnconfirmed: { label: 'claim not in a block', test: (data) => data.claimConfirmed !== true },
    // Deep enough, Ferry's claim is the end of the swap: no reorg of its lockup is looked for any more.
    claimUnsettled: { label: 'claim not settled deep', test: (data) => data.claimSettled !== true },
    // The user's refund may be co-signed only while nothing of Ferry's can still be claimed with the preimage.
    unclaimable: {
      label: 'no server lockup, or its refund in a block',
      test: (data) => (!locking(data) || data.refundConfirmed === true) && typeof data.preimage !== 'string',
    },
  },
  rows: [
    { from: S.Created, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
    { from: S.Created, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
    { from: S.Created, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['sendLockup'], guard: 'notLocked', set: request },
    { from: S.Created, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['sendLockup'], guard: 'notLocked', set: request },
    { from: S.Created, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // A vanished lockup (see below) whose coins another transaction spent.
    { from: S.Created, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    // A replacement of the user's lockup (a fee bump) is judged afresh, but only before Ferry locks.
    { from: S.TransactionMempool, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [], guard: 'notLocked' },
    { from: S.TransactionMempool, event: 'lockup.mempool', to: S.TransactionMempool, effects: [], guard: 'notLocked' },
    { from: S.TransactionMempool, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['sendLockup'], guard: 'notLocked', set: request },
    { from: S.TransactionMempool, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['sendLockup'], guard: 'notLocked', set: request },
    { from: S.TransactionMempool, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: [] },
    { from: S.TransactionMempool, event: 'server.sent', to: S.TransactionServerMempool, effects: [], guard: 'locking' },
    { from: S.TransactionMempool, event: 'server.confirmed', to: S.TransactionServerConfirmed, effects: [], guard: 'locking' },
    { from: S.TransactionMempool, event: 'server.failed', to: S.TransactionFailed, effects: [], guard: 'locking' },
    { from: S.TransactionMempool, event: 'timeout', to: S.Expired, effects: [], guard: 'notLocked', set: timedOut },
    // The user's lockup leaving the chain before Ferry locked: back to the status before it, or failed.
    { from: S.TransactionMempool, event: 'lockup.vanished', to: S.Created, effects: [], guard: 'notSent', set: noLockup },
    { from: S.TransactionMempool, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], guard: 'notSent', set: doubleSpent },

    { from: S.TransactionConfirmed, event: 'server.sent', to: S.TransactionServerMempool, effects: [], guard: 'locking' },
    { from: S.TransactionConfirmed, event: 'server.confirmed', to: S.TransactionServerConfirmed, effects: [], guard: 'locking' },
    { from: S.TransactionConfirmed, event: 'server.failed', to: S.TransactionFailed, effects: [], guard: 'locking' },
    { from: S.TransactionConfirmed, event: 'timeout', to: S.Expired, effects: [], guard: 'notLocked', set: timedOut },
    { from: S.TransactionConfirmed, event: 'lockup.unconfirmed', to: S.TransactionMempool, effects: [], guard: 'notSent', set: unlock },
    { from: S.TransactionConfirmed, event: 'lockup.vanished', to: S.Created, effects: [], guard: 'notSent', set: noLockup },
    { from: S.TransactionConfirmed, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], guard: 'notSent', set: doubleSpent },

    // The refused lockup confirming is what makes a quote for it acceptable.
    { from: S.TransactionLockupFailed, event: 'lockup.confirmed', to: S.TransactionLockupFailed, effects: [] },
    { from: S.TransactionLockupFailed, event: 'quote.accepted', to: S.TransactionConfirmed, effects: ['sendLockup'], guard: 'quotable', set: request },
    { from: S.TransactionLockupFailed, event: 'refund.signed', to: S.TransactionLockupFailed, effects: [], set: refunded },
    { from: S.TransactionLockupFailed, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // A refused lockup leaving its block is no longer one a quote can be accepted for (quotable needs it confirmed).
    { from: S.TransactionLockupFailed, event: 'lockup.unconfirmed', to: S.TransactionLockupFailed, effects: [] },
    { from: S.TransactionLockupFailed, event: 'lockup.vanished', to: S.TransactionLockupFailed, effects: [], set: noLockup },
    { from: S.TransactionLockupFailed, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    { from: S.TransactionServerMempool, event: 'server.confirmed', to: S.TransactionServerConfirmed, effects: [] },
    // Fee bumps keep the status and record the replacement, the transaction that can still confirm.
    { from: S.TransactionServerMempool, event: 'server.replaced', to: S.TransactionServerMempool, effects: [] },
    { from: S.TransactionServerMempool, event: 'server.childPaid', to: S.TransactionServerMempool, effects: [] },
    { from: S.TransactionServerMempool, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'] },
    { from: S.TransactionServerMempool, event: 'timeout', to: S.TransactionServerMempool, effects: ['refundLockup'], guard: 'refundNotRequested', set: { refundRequested: true } },
    { from: S.TransactionServerMempool, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

    { from: S.TransactionServerConfirmed, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'] },
    { from: S.TransactionServerConfirmed, event: 'timeout', to: S.TransactionServerConfirmed, effects: ['refundLockup'], guard: 'refundNotRequested', set: { refundRequested: true } },
    { from: S.TransactionServerConfirmed, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

    { from: S.TransactionClaimPending, event: 'claim.start', to: S.TransactionClaimPending, effects: ['claimWhenSilent'] },
    { from: S.TransactionClaimPending, event: 'claim.broadcast', to: S.TransactionClaimed, effects: [] },
    { from: S.TransactionClaimPending, event: 'lockup.spent', to: S.TransactionClaimed, effects: [] },
    { from: S.TransactionClaimed, event: 'claim.replaced', to: S.TransactionClaimed, effects: [], guard: 'claimUnsettled' },
    { from: S.TransactionClaimed, event: 'claim.confirmed', to: S.TransactionClaimed, effects: [], guard: 'claimUnconfirmed', set: { claimConfirmed: true } },
    { from: S.TransactionClaimed, event: 'claim.settled', to: S.TransactionClaimed, effects: [], guard: 'claimUnsettled', set: { claimConfirmed: true, claimSettled: true } },

    // While the lockup is lost, Ferry's lockup is out: no refund of the user's is co-signed (it may come back).
    { from: S.TransactionFailed, event: 'refund.signed', to: S.TransactionFailed, effects: [], guard: 'notLost', set: refunded },

    // The user's lockup left the chain after Ferry locked (lockupLost in the event's data): failed, still watched.
    { from: S.TransactionMempool, event: 'lockup.lost', to: S.TransactionFailed, effects: [], guard: 'sent' },
    { from: S.TransactionConfirmed, event: 'lockup.lost', to: S.TransactionFailed, effects: [], guard: 'sent' },
    { from: S.TransactionServerMempool, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
    { from: S.TransactionServerConfirmed, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
    { from: S.TransactionClaimPending, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
    // Ferry's claim left the chain with the lockup it spent (a claim settled deep is the end of the swap).
    { from: S.TransactionClaimed, event: 'lockup.lost', to: S.TransactionFailed, effects: [], guard: 'claimUnsettled' },
    { from: S.TransactionFailed, event: 'lockup.lost', to: S.TransactionFailed, effects: [], guard: 'lost' },
    // The user claimed Ferry's lockup while theirs is lost: the preimage is kept for the lockup coming back.
    { from: S.TransactionFailed, event: 'preimage.learned', to: S.TransactionFailed, effects: [], guard: 'lost' },
    // Ferry's lockup is still followed: confirmed, fee-bumped, and refunded at its timeout.
    { from: S.TransactionFailed, event: 'server.confirmed', to: S.TransactionFailed, effects: [], guard: 'lost' },
    { from: S.TransactionFailed, event: 'server.replaced', to: S.TransactionFailed, effects: [], guard: 'lost' },
    { from: S.TransactionFailed, event: 'timeout', to: S.TransactionFailed, effects: ['refundLockup'], guard: 'lostRefundable', set: { refundRequested: true } },
    { from: S.TransactionFailed, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [], guard: 'lost' },
    // The lockup is back: claimed with the preimage, or the swap goes on from Ferry's lockup.
    { from: S.TransactionFailed, event: 'lockup.found', to: S.TransactionClaimPending, effects: ['startClaim'], guard: 'lostClaimable', set: found },
    { from: S.TransactionFailed, event: 'lockup.found', to: S.TransactionServerConfirmed, effects: [], guard: 'lostServerConfirmed', set: found },
    { from: S.TransactionFailed, event: 'lockup.found', to: S.TransactionServerMempool, effects: [], guard: 'lost', set: found },
    { from: S.Expired, event: 'refund.signed', to: S.Expired, effects: [], guard: 'unclaimable', set: refunded },

    { from: S.TransactionRefunded, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'], guard: 'claimableAfterRefund' },
    { from: S.TransactionRefunded, event: 'refund.confirmed', to: S.TransactionRefunded, effects: [], guard: 'refundUnconfirmed', set: { refundConfirmed: true } },
    { from: S.TransactionRefunded, event: 'refund.replaced', to: S.TransactionRefunded, effects: [], guard: 'refundUnconfirmed' },
    { from: S.TransactionRefunded, event: 'refund.signed', to: S.TransactionRefunded, effects: [], guard: 'unclaimable', set: refunded },
  ],
};
