// The submarine swap (chain → Lightning) as data. The user locks coins to the swap address; once the lockup is
// confirmed (or accepted unconfirmed), Ferry pays the invoice, learns the preimage and claims the lockup.
import type { LockupRecord, SwapOutputData } from './lockup.ts';
import type { MachineDefinition, SwapData } from './machine.ts';
import { SwapStatus as S, TIMED_OUT_REASON } from './status.ts';

/** What a submarine swap keeps in its row's `data` (the guards below read some of it). */
/** A transaction Ferry broadcast. */
export interface StoredTransaction {
  txid: string;
  hex: string;
}

/** Pricing fixed at creation, so later calls of the same swap agree with what the client was quoted. */
export interface SubmarinePricing {
  rate: number;
  percentage: number;
  minerFee: number;
  maximalZeroConf: number;
}

export interface SubmarineData extends SwapOutputData {
  pricing: SubmarinePricing;
  invoice?: string;
  invoiceAmount?: number;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  minFinalCltvExpiry?: number;
  lockup?: LockupRecord;
  /** A lockup that left the chain before Ferry acted on it, kept to tell a later double spend of its coins. */
  vanishedLockup?: LockupRecord;
  refundSigned?: boolean;
  routingFeeMsat?: string;
  paymentFailure?: string;
  claimPendingSince?: number;
  claimTransaction?: StoredTransaction;
  failureDetails?: { expected: number; actual: number };
  /** The recorded lockup left the chain after Ferry paid (or started paying) against it. */
  lockupLost?: LockupLoss;
}

/**
 * A user lockup that left the chain after Ferry acted on it (paid the invoice, or locked its own coins): the swap
 * is failed while this is set, and Ferry keeps watching for the lockup to come back (lockup.found).
 */
export interface LockupLoss {
  txid: string;
  vout: number;
  /** Gone from the node (a reorg that nothing put back), or its coins spent by another transaction. */
  reason: 'vanished' | 'doubleSpent';
  /** The status the swap was in when the lockup was found lost. */
  status: string;
  /** ms since the epoch. */
  at: number;
}

/** The failureReason of a swap whose lockup was lost after Ferry acted. */
export const lockupLossReason = (reason: LockupLoss['reason']): string =>
  reason === 'doubleSpent' ? 'the lockup transaction was double spent after Ferry acted on it' : 'the lockup transaction left the chain after Ferry acted on it';

export const SUBMARINE_STATUSES = [
  S.Created,
  S.InvoiceSet,
  S.TransactionMempool,
  S.TransactionConfirmed,
  S.TransactionLockupFailed,
  S.InvoicePending,
  S.InvoicePaid,
  S.TransactionClaimPending,
  S.TransactionClaimed,
  S.InvoiceFailedToPay,
  S.Expired,
] as const;
export type SubmarineStatus = (typeof SUBMARINE_STATUSES)[number];

export const SUBMARINE_EVENTS = [
  'invoice.provided', // the client set the invoice (at creation it is created in invoice.set instead)
  'lockup.rejected', // a lockup with the wrong amount, or of the wrong asset
  'lockup.mempool', // an unconfirmed lockup not accepted for 0-conf
  'lockup.zeroConf', // an unconfirmed lockup accepted for 0-conf
  'lockup.confirmed',
  'payment.start', // the decision to pay, taken atomically with the refund check
  'payment.succeeded',
  'payment.failed',
  'claim.start',
  'claim.broadcast', // Ferry broadcast its claim (cooperative key path or script path)
  'claim.replaced', // Ferry's claim, stuck unconfirmed, was replaced by one paying a higher fee
  'claim.settled', // Ferry's claim is buried deep enough (SETTLED_DEPTH) that the swap is no longer followed on chain
  'claim.confirmed', // Ferry's claim is in a block: no longer rebroadcast or bumped once that is old news
  'lockup.spent', // the lockup was seen spent while Ferry waited to claim: its own claim
  'lockup.unconfirmed', // a reorg put the confirmed lockup back into the mempool
  'lockup.vanished', // a reorg (or the mempool) dropped the lockup, and nothing spent its coins
  'lockup.doubleSpent', // the lockup is gone and another transaction spent its coins
  'timeout', // the chain reached the swap's timeout block
  'refund.signed', // Ferry handed out a partial signature for a cooperative refund
  'lockup.lost', // the lockup Ferry paid (or is paying) against left the chain: vanished or double spent
  'lockup.found', // that lockup is on the chain again
] as const;
export type SubmarineEvent = (typeof SUBMARINE_EVENTS)[number];

export const SUBMARINE_EFFECTS = [
  'startPayment', // decide to pay (payment.start) if the invoice, the lockup and the timeout allow it
  'payInvoice', // pay once; after a crash the Lightning node follows the payment already made
  'startClaim', // enter transaction.claim.pending
  'claimWhenSilent', // after the cooperative window, claim through the script path with the preimage
] as const;
export type SubmarineEffect = (typeof SUBMARINE_EFFECTS)[number];

type SubmarineGuard = 'hasInvoice' | 'lockupPayable' | 'readyToPay' | 'claimUnconfirmed' | 'claimUnsettled' | 'lost' | 'notLost' | 'lostPaid' | 'lostPaying' | 'lostUnpaid' | 'refundable';

interface LockupFacts {
  confirmed?: boolean;
  zeroConf?: boolean;
}

const lockupOf = (data: SwapData): LockupFacts | undefined => data.lockup as LockupFacts | undefined;
const hasInvoice = (data: SwapData): boolean => typeof data.invoice === 'string';
const lockupPayable = (data: SwapData): boolean => {
  const lockup = lockupOf(data);
  return lockup !== undefined && (lockup.confirmed === true || lockup.zeroConf === true);
};

const timedOut = { failureReason: TIMED_OUT_REASON };
const refunded = { refundSigned: true };
/** The lockup's event data moves it to vanishedLockup; the row clears the record so nothing can pay for it. */
const noLockup = { lockup: undefined };
const doubleSpent = { failureReason: 'the lockup transaction was double spent' };

const lost = (data: SwapData): boolean => data.lockupLost !== undefined;
const paid = (data: SwapData): boolean => typeof data.preimage === 'string';
const paymentFailed = (data: SwapData): boolean => typeof data.paymentFailure === 'string';
/** The lockup is back: the loss and its reason are cleared (a claim of the old lockup may have been reorged out). */
const found = { lockupLost: undefined, failureReason: undefined, claimConfirmed: undefined };

export const submarineMachine: MachineDefinition<SubmarineStatus, SubmarineEvent, SubmarineEffect, SubmarineGuard> = {
  name: 'Submarine swap',
  initial: [S.Created, S.InvoiceSet],
  final: [S.TransactionClaimed, S.InvoiceFailedToPay, S.Expired],
  succeeded: [S.TransactionClaimed],
  failed: [S.TransactionLockupFailed, S.InvoiceFailedToPay, S.Expired],
  chainEvents: [
    'lockup.rejected',
    'lockup.mempool',
    'lockup.zeroConf',
    'lockup.confirmed',
    'lockup.spent',
    'lockup.unconfirmed',
    'lockup.vanished',
    'lockup.doubleSpent',
    'lockup.lost',
    'lockup.found',
  ],
  effectLegs: { startPayment: 'payInvoice', payInvoice: 'payInvoice', startClaim: 'userLockup', claimWhenSilent: 'userLockup' },
  statuses: SUBMARINE_STATUSES,
  events: SUBMARINE_EVENTS,
  effects: SUBMARINE_EFFECTS,
  guards: {
    hasInvoice: { label: 'invoice set', test: hasInvoice },
    claimUnconfirmed: { label: 'claim not in a block', test: (data) => data.claimConfirmed !== true },
    // Deep enough, Ferry's claim is the end of the swap: no reorg of its lockup is looked for any more.
    claimUnsettled: { label: 'claim not settled deep', test: (data) => data.claimSettled !== true },
    lockupPayable: { label: 'lockup confirmed or 0-conf', test: lockupPayable },
    // The refund check is what makes "never pay after a signed refund" hold: both decisions are transitions,
    // serialised on the swap row, and refund.signed exists only in failed statuses that payment.start never leaves from.
    readyToPay: {
      label: 'invoice, payable lockup, no refund signed',
      test: (data) => hasInvoice(data) && lockupPayable(data) && data.refundSigned !== true,
    },
    lost: { label: 'lockup lost after Ferry acted', test: lost },
    notLost: { label: 'no lockup lost after Ferry acted', test: (data) => !lost(data) },
    lostPaid: { label: 'lockup lost, invoice paid', test: (data) => lost(data) && paid(data) },
    // (A refund is never signed while the payment may be in flight: the refundable guard; checked here again.)
    lostPaying: {
      label: 'lockup lost, payment in flight',
      test: (data) => lost(data) && !paid(data) && !paymentFailed(data) && data.refundSigned !== true,
    },
    lostUnpaid: { label: 'lockup lost, payment failed', test: (data) => lost(data) && !paid(data) && paymentFailed(data) },
    // A lockup lost after the payment started may come back: its refund is signed only if Ferry paid nothing.
    refundable: { label: 'no lockup lost after paying', test: (data) => !lost(data) || (!paid(data) && paymentFailed(data)) },
  },
  rows: [
    { from: S.Created, event: 'invoice.provided', to: S.InvoiceSet, effects: [] },
    { from: S.Created, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
    { from: S.Created, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: [] },
    { from: S.Created, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: [] },
    { from: S.Created, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // A lockup that cannot count whatever the invoice (Liquid: another asset).
    { from: S.Created, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
    // The coins of a lockup that vanished earlier were spent elsewhere.
    { from: S.Created, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    { from: S.InvoiceSet, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
    { from: S.InvoiceSet, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
    { from: S.InvoiceSet, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['startPayment'] },
    { from: S.InvoiceSet, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['startPayment'] },
    { from: S.InvoiceSet, event: 'payment.start', to: S.InvoicePending, effects: ['payInvoice'], guard: 'readyToPay' },
    { from: S.InvoiceSet, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // Reorgs of a lockup recorded before the invoice was set (payment not started: payment.start leaves this status).
    { from: S.InvoiceSet, event: 'lockup.unconfirmed', to: S.TransactionMempool, effects: [] },
    { from: S.InvoiceSet, event: 'lockup.vanished', to: S.InvoiceSet, effects: [], set: noLockup },
    { from: S.InvoiceSet, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    { from: S.TransactionMempool, event: 'invoice.provided', to: S.InvoiceSet, effects: ['startPayment'], guard: 'lockupPayable' },
    { from: S.TransactionMempool, event: 'invoice.provided', to: S.InvoiceSet, effects: [] },
    { from: S.TransactionMempool, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['startPayment'], guard: 'hasInvoice' },
    { from: S.TransactionMempool, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: [] },
    // A replacement of the recorded lockup (a fee bump) is judged like a first lockup.
    { from: S.TransactionMempool, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
    { from: S.TransactionMempool, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionMempool, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['startPayment'], guard: 'hasInvoice' },
    { from: S.TransactionMempool, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionMempool, event: 'payment.start', to: S.InvoicePending, effects: ['payInvoice'], guard: 'readyToPay' },
    { from: S.TransactionMempool, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // The lockup left the mempool before the payment started: back to the status before it was seen.
    { from: S.TransactionMempool, event: 'lockup.vanished', to: S.InvoiceSet, effects: [], guard: 'hasInvoice', set: noLockup },
    { from: S.TransactionMempool, event: 'lockup.vanished', to: S.Created, effects: [], set: noLockup },
    { from: S.TransactionMempool, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    { from: S.TransactionConfirmed, event: 'invoice.provided', to: S.InvoiceSet, effects: ['startPayment'] },
    // Replacements of a lockup reorganised out before the payment started.
    { from: S.TransactionConfirmed, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
    { from: S.TransactionConfirmed, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionConfirmed, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['startPayment'], guard: 'hasInvoice' },
    { from: S.TransactionConfirmed, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionConfirmed, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['startPayment'], guard: 'hasInvoice' },
    { from: S.TransactionConfirmed, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: [] },
    { from: S.TransactionConfirmed, event: 'payment.start', to: S.InvoicePending, effects: ['payInvoice'], guard: 'readyToPay' },
    { from: S.TransactionConfirmed, event: 'timeout', to: S.Expired, effects: [], set: timedOut },
    // A reorg took the confirmed lockup's block before the payment started (after it, no row: Ferry paid).
    { from: S.TransactionConfirmed, event: 'lockup.unconfirmed', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionConfirmed, event: 'lockup.vanished', to: S.InvoiceSet, effects: [], guard: 'hasInvoice', set: noLockup },
    { from: S.TransactionConfirmed, event: 'lockup.vanished', to: S.Created, effects: [], set: noLockup },
    { from: S.TransactionConfirmed, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], set: doubleSpent },

    { from: S.TransactionLockupFailed, event: 'refund.signed', to: S.TransactionLockupFailed, effects: [], guard: 'refundable', set: refunded },
    // A lost lockup stays lost past the timeout: the swap is not expired into a refundable status while Ferry paid.
    { from: S.TransactionLockupFailed, event: 'timeout', to: S.Expired, effects: [], guard: 'notLost', set: timedOut },

    // The lockup Ferry paid against left the chain (lockupLost in the event's data): failed, and still watched.
    { from: S.InvoicePending, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
    { from: S.InvoicePaid, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
    { from: S.TransactionClaimPending, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
    // Ferry's claim left the chain with the lockup it spent (a claim settled deep is the end of the swap).
    { from: S.TransactionClaimed, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [], guard: 'claimUnsettled' },
    // A vanished lockup found double spent later: the reason is updated.
    { from: S.TransactionLockupFailed, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [], guard: 'lost' },
    // A payment in flight when the lockup was lost is still recorded: the preimage claims the lockup if it comes back.
    { from: S.TransactionLockupFailed, event: 'payment.succeeded', to: S.TransactionLockupFailed, effects: [], guard: 'lostPaying' },
    { from: S.TransactionLockupFailed, event: 'payment.failed', to: S.TransactionLockupFailed, effects: [], guard: 'lostPaying' },
    // The lockup is back: claimed with the preimage, or the payment followed on, or failed to pay as it did.
    { from: S.TransactionLockupFailed, event: 'lockup.found', to: S.InvoicePaid, effects: ['startClaim'], guard: 'lostPaid', set: found },
    { from: S.TransactionLockupFailed, event: 'lockup.found', to: S.InvoicePending, effects: ['payInvoice'], guard: 'lostPaying', set: found },
    { from: S.TransactionLockupFailed, event: 'lockup.found', to: S.InvoiceFailedToPay, effects: [], guard: 'lostUnpaid', set: { ...found, failureReason: 'invoice could not be paid' } },

    { from: S.InvoicePending, event: 'payment.succeeded', to: S.InvoicePaid, effects: ['startClaim'] },
    { from: S.InvoicePending, event: 'payment.failed', to: S.InvoiceFailedToPay, effects: [] },

    { from: S.InvoicePaid, event: 'claim.start', to: S.TransactionClaimPending, effects: ['claimWhenSilent'] },

    { from: S.TransactionClaimPending, event: 'claim.broadcast', to: S.TransactionClaimed, effects: [] },
    { from: S.TransactionClaimPending, event: 'lockup.spent', to: S.TransactionClaimed, effects: [] },
    // A fee bump: the swap keeps its status and records the replacement, the claim that can still confirm.
    { from: S.TransactionClaimed, event: 'claim.replaced', to: S.TransactionClaimed, effects: [], guard: 'claimUnsettled' },
    { from: S.TransactionClaimed, event: 'claim.confirmed', to: S.TransactionClaimed, effects: [], guard: 'claimUnconfirmed', set: { claimConfirmed: true } },
    { from: S.TransactionClaimed, event: 'claim.settled', to: S.TransactionClaimed, effects: [], guard: 'claimUnsettled', set: { claimConfirmed: true, claimSettled: true } },

    { from: S.InvoiceFailedToPay, event: 'refund.signed', to: S.InvoiceFailedToPay, effects: [], set: refunded },
    { from: S.Expired, event: 'refund.signed', to: S.Expired, effects: [], set: refunded },
  ],
};
