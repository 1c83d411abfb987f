// Every (status, event) pair of both swap machines: the allowed ones (listed here by hand, independently of the
// tables) give the right next status, effects and data; every other pair is refused and changes nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REFUNDABLE_STATUSES,
  SwapStatus as S,
  checkMachine,
  chainMachine,
  reverseMachine,
  submarineMachine,
  transition,
  type AnyMachine,
  type SwapData,
} from '../../src/swaps/index.ts';

interface Case {
  from: string;
  event: string;
  data?: SwapData;
  /** undefined: refused */
  to?: string;
  effects?: string[];
  sets?: SwapData;
}

const INVOICE = { invoice: 'lnbcrt1...' };
const CONFIRMED = { lockup: { confirmed: true, zeroConf: false } };
/** A user lockup lost after Ferry acted (its data once lockup.lost applied). */
const LOST = { lockupLost: { txid: 'aa', vout: 0, reason: 'vanished', status: 'invoice.pending', at: 1 } };
/** What lockup.found clears. */
const FOUND = { lockupLost: undefined, failureReason: undefined, claimConfirmed: undefined };
const ZERO_CONF = { lockup: { confirmed: false, zeroConf: true } };
const UNCONFIRMED = { lockup: { confirmed: false, zeroConf: false } };
const TIMED_OUT = { failureReason: 'onchain HTLC timed out' };
const DOUBLE_SPENT = { failureReason: 'the lockup transaction was double spent' };
const NO_LOCKUP = { lockup: undefined };
/** Ferry's claim buried deep enough: the end of the swap on chain (claim.settled). */
const SETTLED = { claimConfirmed: true, claimSettled: true };

const submarineCases: Case[] = [
  { from: S.Created, event: 'invoice.provided', to: S.InvoiceSet, effects: [] },
  { from: S.Created, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
  { from: S.Created, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: [] },
  { from: S.Created, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: [] },
  { from: S.Created, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.Created, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
  { from: S.Created, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], sets: DOUBLE_SPENT },

  { from: S.InvoiceSet, event: 'lockup.unconfirmed', data: { ...INVOICE, ...CONFIRMED }, to: S.TransactionMempool, effects: [] },
  { from: S.InvoiceSet, event: 'lockup.vanished', data: { ...INVOICE, ...CONFIRMED }, to: S.InvoiceSet, effects: [], sets: NO_LOCKUP },
  { from: S.InvoiceSet, event: 'lockup.doubleSpent', data: INVOICE, to: S.TransactionLockupFailed, effects: [], sets: DOUBLE_SPENT },
  { from: S.InvoiceSet, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
  { from: S.InvoiceSet, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
  { from: S.InvoiceSet, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['startPayment'] },
  { from: S.InvoiceSet, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['startPayment'] },
  { from: S.InvoiceSet, event: 'payment.start', data: { ...INVOICE, ...CONFIRMED }, to: S.InvoicePending, effects: ['payInvoice'] },
  { from: S.InvoiceSet, event: 'payment.start', data: { ...INVOICE, ...ZERO_CONF }, to: S.InvoicePending, effects: ['payInvoice'] },
  { from: S.InvoiceSet, event: 'payment.start', data: { ...INVOICE, ...UNCONFIRMED } },
  { from: S.InvoiceSet, event: 'payment.start', data: INVOICE },
  { from: S.InvoiceSet, event: 'payment.start', data: { ...INVOICE, ...CONFIRMED, refundSigned: true } },
  { from: S.InvoiceSet, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },

  { from: S.TransactionMempool, event: 'invoice.provided', data: ZERO_CONF, to: S.InvoiceSet, effects: ['startPayment'] },
  { from: S.TransactionMempool, event: 'invoice.provided', data: UNCONFIRMED, to: S.InvoiceSet, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.confirmed', data: { ...INVOICE, ...UNCONFIRMED }, to: S.TransactionConfirmed, effects: ['startPayment'] },
  { from: S.TransactionMempool, event: 'lockup.confirmed', data: UNCONFIRMED, to: S.TransactionConfirmed, effects: [] },
  // A replacement lockup (fee bump) is judged afresh.
  { from: S.TransactionMempool, event: 'lockup.rejected', data: INVOICE, to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.mempool', data: INVOICE, to: S.TransactionMempool, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.zeroConf', data: { ...INVOICE, ...UNCONFIRMED }, to: S.TransactionMempool, effects: ['startPayment'] },
  { from: S.TransactionMempool, event: 'lockup.zeroConf', data: UNCONFIRMED, to: S.TransactionMempool, effects: [] },
  { from: S.TransactionMempool, event: 'payment.start', data: { ...INVOICE, ...ZERO_CONF }, to: S.InvoicePending, effects: ['payInvoice'] },
  { from: S.TransactionMempool, event: 'payment.start', data: { ...INVOICE, ...UNCONFIRMED } },
  { from: S.TransactionMempool, event: 'payment.start', data: ZERO_CONF },
  { from: S.TransactionMempool, event: 'payment.start', data: { ...INVOICE, ...ZERO_CONF, refundSigned: true } },
  { from: S.TransactionMempool, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.TransactionMempool, event: 'lockup.vanished', data: { ...INVOICE, ...ZERO_CONF }, to: S.InvoiceSet, effects: [], sets: NO_LOCKUP },
  { from: S.TransactionMempool, event: 'lockup.vanished', data: UNCONFIRMED, to: S.Created, effects: [], sets: NO_LOCKUP },
  { from: S.TransactionMempool, event: 'lockup.doubleSpent', data: INVOICE, to: S.TransactionLockupFailed, effects: [], sets: DOUBLE_SPENT },

  { from: S.TransactionConfirmed, event: 'invoice.provided', data: CONFIRMED, to: S.InvoiceSet, effects: ['startPayment'] },
  { from: S.TransactionConfirmed, event: 'lockup.rejected', data: INVOICE, to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionConfirmed, event: 'lockup.mempool', data: INVOICE, to: S.TransactionMempool, effects: [] },
  { from: S.TransactionConfirmed, event: 'lockup.zeroConf', data: { ...INVOICE, ...CONFIRMED }, to: S.TransactionMempool, effects: ['startPayment'] },
  { from: S.TransactionConfirmed, event: 'lockup.zeroConf', data: CONFIRMED, to: S.TransactionMempool, effects: [] },
  { from: S.TransactionConfirmed, event: 'lockup.confirmed', data: { ...INVOICE, ...CONFIRMED }, to: S.TransactionConfirmed, effects: ['startPayment'] },
  { from: S.TransactionConfirmed, event: 'lockup.confirmed', data: CONFIRMED, to: S.TransactionConfirmed, effects: [] },
  { from: S.TransactionConfirmed, event: 'payment.start', data: { ...INVOICE, ...CONFIRMED }, to: S.InvoicePending, effects: ['payInvoice'] },
  { from: S.TransactionConfirmed, event: 'payment.start', data: CONFIRMED },
  { from: S.TransactionConfirmed, event: 'payment.start', data: { ...INVOICE, ...CONFIRMED, refundSigned: true } },
  { from: S.TransactionConfirmed, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  // A reorg before the payment started; no status after payment.start has these rows.
  { from: S.TransactionConfirmed, event: 'lockup.unconfirmed', data: { ...INVOICE, ...CONFIRMED }, to: S.TransactionMempool, effects: [] },
  { from: S.TransactionConfirmed, event: 'lockup.vanished', data: { ...INVOICE, ...CONFIRMED }, to: S.InvoiceSet, effects: [], sets: NO_LOCKUP },
  { from: S.TransactionConfirmed, event: 'lockup.vanished', data: CONFIRMED, to: S.Created, effects: [], sets: NO_LOCKUP },
  { from: S.TransactionConfirmed, event: 'lockup.doubleSpent', data: CONFIRMED, to: S.TransactionLockupFailed, effects: [], sets: DOUBLE_SPENT },

  { from: S.TransactionLockupFailed, event: 'refund.signed', to: S.TransactionLockupFailed, effects: [], sets: { refundSigned: true } },
  { from: S.TransactionLockupFailed, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },

  // The lockup lost after Ferry started paying: failed, still watched, never refunded while Ferry may have paid.
  { from: S.InvoicePending, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
  { from: S.InvoicePaid, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionClaimPending, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionClaimed, event: 'lockup.lost', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionClaimed, event: 'lockup.lost', data: SETTLED },
  { from: S.TransactionLockupFailed, event: 'lockup.lost', data: LOST, to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionLockupFailed, event: 'lockup.lost' },
  { from: S.TransactionLockupFailed, event: 'refund.signed', data: LOST },
  { from: S.TransactionLockupFailed, event: 'refund.signed', data: { ...LOST, preimage: 'ab' } },
  { from: S.TransactionLockupFailed, event: 'refund.signed', data: { ...LOST, paymentFailure: 'no route' }, to: S.TransactionLockupFailed, effects: [], sets: { refundSigned: true } },
  { from: S.TransactionLockupFailed, event: 'timeout', data: LOST },
  { from: S.TransactionLockupFailed, event: 'payment.succeeded', data: LOST, to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionLockupFailed, event: 'payment.succeeded', data: { ...LOST, preimage: 'ab' } },
  { from: S.TransactionLockupFailed, event: 'payment.succeeded' },
  { from: S.TransactionLockupFailed, event: 'payment.failed', data: LOST, to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionLockupFailed, event: 'payment.failed', data: { ...LOST, refundSigned: true } },
  { from: S.TransactionLockupFailed, event: 'lockup.found', data: { ...LOST, preimage: 'ab' }, to: S.InvoicePaid, effects: ['startClaim'], sets: FOUND },
  { from: S.TransactionLockupFailed, event: 'lockup.found', data: LOST, to: S.InvoicePending, effects: ['payInvoice'], sets: FOUND },
  { from: S.TransactionLockupFailed, event: 'lockup.found', data: { ...LOST, paymentFailure: 'no route' }, to: S.InvoiceFailedToPay, effects: [], sets: { ...FOUND, failureReason: 'invoice could not be paid' } },
  { from: S.TransactionLockupFailed, event: 'lockup.found' },

  { from: S.InvoicePending, event: 'payment.succeeded', to: S.InvoicePaid, effects: ['startClaim'] },
  { from: S.InvoicePending, event: 'payment.failed', to: S.InvoiceFailedToPay, effects: [] },

  { from: S.InvoicePaid, event: 'claim.start', to: S.TransactionClaimPending, effects: ['claimWhenSilent'] },

  { from: S.TransactionClaimPending, event: 'claim.broadcast', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimPending, event: 'lockup.spent', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimed, event: 'claim.replaced', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimed, event: 'claim.replaced', data: SETTLED },
  { from: S.TransactionClaimed, event: 'claim.confirmed', to: S.TransactionClaimed, effects: [], sets: { claimConfirmed: true } },
  { from: S.TransactionClaimed, event: 'claim.confirmed', data: { claimConfirmed: true } },
  { from: S.TransactionClaimed, event: 'claim.settled', data: { claimConfirmed: true }, to: S.TransactionClaimed, effects: [], sets: SETTLED },
  { from: S.TransactionClaimed, event: 'claim.settled', data: SETTLED },

  { from: S.InvoiceFailedToPay, event: 'refund.signed', to: S.InvoiceFailedToPay, effects: [], sets: { refundSigned: true } },
  { from: S.Expired, event: 'refund.signed', to: S.Expired, effects: [], sets: { refundSigned: true } },
];

/** A gasless reverse swap: its gas invoice, not yet held. */
const GAS = { gas: { invoice: 'lnbcrt1', preimageHash: 'cd', preimage: 'ef', invoiceAmount: 1, amount: 1, requestedAs: 'gasless' } };
const reverseCases: Case[] = [
  { from: S.Created, event: 'invoice.accepted', to: S.Created, effects: ['sendLockup'], sets: { lockupRequested: true } },
  { from: S.Created, event: 'invoice.accepted', data: { lockupRequested: true } },
  { from: S.Created, event: 'server.sent', data: { lockupRequested: true }, to: S.TransactionMempool, effects: [] },
  { from: S.Created, event: 'server.sent' },
  { from: S.Created, event: 'server.confirmed', data: { lockupRequested: true }, to: S.TransactionConfirmed, effects: [] },
  { from: S.Created, event: 'server.confirmed' },
  { from: S.Created, event: 'server.failed', data: { lockupRequested: true }, to: S.TransactionFailed, effects: ['cancelInvoice'] },
  { from: S.Created, event: 'invoice.expired', to: S.InvoiceExpired, effects: ['cancelInvoice'] },
  { from: S.Created, event: 'invoice.expired', data: { lockupRequested: true } },
  { from: S.Created, event: 'timeout', to: S.Expired, effects: ['cancelInvoice'], sets: TIMED_OUT },
  { from: S.Created, event: 'timeout', data: { lockupRequested: true } },

  // Gasless: Ferry locks once both the invoice and the gas invoice are held, whichever comes second.
  { from: S.Created, event: 'invoice.accepted', data: GAS, to: S.Created, effects: [], sets: { invoiceHeld: true } },
  { from: S.Created, event: 'gas.accepted', data: GAS, to: S.MinerFeePaid, effects: [], sets: { gasHeld: true } },
  { from: S.Created, event: 'gas.accepted', data: { ...GAS, invoiceHeld: true }, to: S.MinerFeePaid, effects: ['sendLockup'], sets: { gasHeld: true, lockupRequested: true } },
  { from: S.Created, event: 'gas.accepted', data: { ...GAS, lockupRequested: true } },
  { from: S.MinerFeePaid, event: 'invoice.accepted', data: { ...GAS, gasHeld: true }, to: S.MinerFeePaid, effects: ['sendLockup'], sets: { lockupRequested: true } },
  { from: S.MinerFeePaid, event: 'invoice.accepted', data: { ...GAS, gasHeld: true, lockupRequested: true } },
  { from: S.MinerFeePaid, event: 'gas.accepted', data: { ...GAS, gasHeld: true } },
  { from: S.MinerFeePaid, event: 'server.sent', data: { lockupRequested: true }, to: S.TransactionMempool, effects: ['settleGasInvoice'] },
  { from: S.MinerFeePaid, event: 'server.sent' },
  { from: S.MinerFeePaid, event: 'server.confirmed', data: { lockupRequested: true }, to: S.TransactionConfirmed, effects: ['settleGasInvoice'] },
  { from: S.MinerFeePaid, event: 'server.failed', data: { lockupRequested: true }, to: S.TransactionFailed, effects: ['cancelInvoice'] },
  { from: S.MinerFeePaid, event: 'invoice.expired', to: S.InvoiceExpired, effects: ['cancelInvoice'] },
  { from: S.MinerFeePaid, event: 'invoice.expired', data: { lockupRequested: true } },
  { from: S.MinerFeePaid, event: 'timeout', to: S.Expired, effects: ['cancelInvoice'], sets: TIMED_OUT },
  { from: S.MinerFeePaid, event: 'timeout', data: { lockupRequested: true } },

  { from: S.TransactionMempool, event: 'server.confirmed', to: S.TransactionConfirmed, effects: [] },
  { from: S.TransactionMempool, event: 'server.replaced', to: S.TransactionMempool, effects: [] },
  { from: S.TransactionMempool, event: 'server.childPaid', to: S.TransactionMempool, effects: [] },
  { from: S.TransactionMempool, event: 'preimage.learned', to: S.TransactionMempool, effects: ['settleInvoice'] },
  { from: S.TransactionMempool, event: 'preimage.learned', data: { preimage: 'ab' } },
  { from: S.TransactionMempool, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
  { from: S.TransactionMempool, event: 'timeout', to: S.TransactionMempool, effects: ['refundLockup'], sets: { refundRequested: true } },
  { from: S.TransactionMempool, event: 'timeout', data: { refundRequested: true } },
  { from: S.TransactionMempool, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

  { from: S.TransactionConfirmed, event: 'preimage.learned', to: S.TransactionConfirmed, effects: ['settleInvoice'] },
  { from: S.TransactionConfirmed, event: 'preimage.learned', data: { preimage: 'ab' } },
  { from: S.TransactionConfirmed, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
  { from: S.TransactionConfirmed, event: 'timeout', to: S.TransactionConfirmed, effects: ['refundLockup'], sets: { refundRequested: true } },
  { from: S.TransactionConfirmed, event: 'timeout', data: { refundRequested: true } },
  { from: S.TransactionConfirmed, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

  { from: S.TransactionRefunded, event: 'preimage.learned', to: S.TransactionRefunded, effects: ['settleInvoice'] },
  { from: S.TransactionRefunded, event: 'preimage.learned', data: { preimage: 'ab' } },
  { from: S.TransactionRefunded, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
  { from: S.TransactionRefunded, event: 'refund.confirmed', to: S.TransactionRefunded, effects: ['cancelInvoice'], sets: { refundConfirmed: true } },
  { from: S.TransactionRefunded, event: 'refund.replaced', to: S.TransactionRefunded, effects: [] },
  { from: S.TransactionRefunded, event: 'refund.replaced', data: { refundConfirmed: true } },
];

const LOCKING = { serverLockupRequested: true };
const SENT = { ...LOCKING, serverLockup: { txid: 'ab', vout: 0 } };
const UNLOCK = { serverLockupRequested: false };
const ROLLED_BACK = { ...UNLOCK, lockup: undefined };
const CHAIN_DOUBLE_SPENT = { ...UNLOCK, ...DOUBLE_SPENT };
const chainCases: Case[] = [
  { from: S.Created, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
  { from: S.Created, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
  { from: S.Created, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['sendLockup'], sets: LOCKING },
  { from: S.Created, event: 'lockup.zeroConf', data: LOCKING },
  { from: S.Created, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['sendLockup'], sets: LOCKING },
  { from: S.Created, event: 'lockup.confirmed', data: LOCKING },
  { from: S.Created, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.Created, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], sets: CHAIN_DOUBLE_SPENT },

  { from: S.TransactionMempool, event: 'lockup.rejected', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.rejected', data: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.mempool', to: S.TransactionMempool, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.mempool', data: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.zeroConf', to: S.TransactionMempool, effects: ['sendLockup'], sets: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.zeroConf', data: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.confirmed', to: S.TransactionConfirmed, effects: ['sendLockup'], sets: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.confirmed', data: LOCKING, to: S.TransactionConfirmed, effects: [] },
  { from: S.TransactionMempool, event: 'server.sent', data: LOCKING, to: S.TransactionServerMempool, effects: [] },
  { from: S.TransactionMempool, event: 'server.sent' },
  { from: S.TransactionMempool, event: 'server.confirmed', data: LOCKING, to: S.TransactionServerConfirmed, effects: [] },
  { from: S.TransactionMempool, event: 'server.failed', data: LOCKING, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionMempool, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.TransactionMempool, event: 'timeout', data: LOCKING },
  { from: S.TransactionMempool, event: 'lockup.vanished', data: LOCKING, to: S.Created, effects: [], sets: ROLLED_BACK },
  { from: S.TransactionMempool, event: 'lockup.vanished', data: SENT },
  { from: S.TransactionMempool, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], sets: CHAIN_DOUBLE_SPENT },
  { from: S.TransactionMempool, event: 'lockup.doubleSpent', data: SENT },

  { from: S.TransactionConfirmed, event: 'lockup.unconfirmed', data: LOCKING, to: S.TransactionMempool, effects: [], sets: UNLOCK },
  { from: S.TransactionConfirmed, event: 'lockup.unconfirmed', data: SENT },
  { from: S.TransactionConfirmed, event: 'lockup.vanished', data: LOCKING, to: S.Created, effects: [], sets: ROLLED_BACK },
  { from: S.TransactionConfirmed, event: 'lockup.vanished', data: SENT },
  { from: S.TransactionConfirmed, event: 'lockup.doubleSpent', data: LOCKING, to: S.TransactionLockupFailed, effects: [], sets: CHAIN_DOUBLE_SPENT },
  { from: S.TransactionConfirmed, event: 'lockup.doubleSpent', data: SENT },
  { from: S.TransactionConfirmed, event: 'server.sent', data: LOCKING, to: S.TransactionServerMempool, effects: [] },
  { from: S.TransactionConfirmed, event: 'server.confirmed', data: LOCKING, to: S.TransactionServerConfirmed, effects: [] },
  { from: S.TransactionConfirmed, event: 'server.confirmed' },
  { from: S.TransactionConfirmed, event: 'server.failed', data: LOCKING, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionConfirmed, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.TransactionConfirmed, event: 'timeout', data: LOCKING },

  { from: S.TransactionLockupFailed, event: 'lockup.confirmed', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionLockupFailed, event: 'quote.accepted', data: CONFIRMED, to: S.TransactionConfirmed, effects: ['sendLockup'], sets: LOCKING },
  { from: S.TransactionLockupFailed, event: 'quote.accepted', data: UNCONFIRMED },
  { from: S.TransactionLockupFailed, event: 'quote.accepted', data: { ...CONFIRMED, refundSigned: true } },
  { from: S.TransactionLockupFailed, event: 'refund.signed', to: S.TransactionLockupFailed, effects: [], sets: { refundSigned: true } },
  { from: S.TransactionLockupFailed, event: 'timeout', to: S.Expired, effects: [], sets: TIMED_OUT },
  { from: S.TransactionLockupFailed, event: 'lockup.unconfirmed', to: S.TransactionLockupFailed, effects: [] },
  { from: S.TransactionLockupFailed, event: 'lockup.vanished', to: S.TransactionLockupFailed, effects: [], sets: ROLLED_BACK },
  { from: S.TransactionLockupFailed, event: 'lockup.doubleSpent', to: S.TransactionLockupFailed, effects: [], sets: CHAIN_DOUBLE_SPENT },

  { from: S.TransactionServerMempool, event: 'server.confirmed', to: S.TransactionServerConfirmed, effects: [] },
  { from: S.TransactionServerMempool, event: 'server.replaced', to: S.TransactionServerMempool, effects: [] },
  { from: S.TransactionServerMempool, event: 'server.childPaid', to: S.TransactionServerMempool, effects: [] },
  { from: S.TransactionServerMempool, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'] },
  { from: S.TransactionServerMempool, event: 'timeout', to: S.TransactionServerMempool, effects: ['refundLockup'], sets: { refundRequested: true } },
  { from: S.TransactionServerMempool, event: 'timeout', data: { refundRequested: true } },
  { from: S.TransactionServerMempool, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },
  { from: S.TransactionServerMempool, event: 'refund.signed', data: LOCKING },

  { from: S.TransactionServerConfirmed, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'] },
  { from: S.TransactionServerConfirmed, event: 'timeout', to: S.TransactionServerConfirmed, effects: ['refundLockup'], sets: { refundRequested: true } },
  { from: S.TransactionServerConfirmed, event: 'timeout', data: { refundRequested: true } },
  { from: S.TransactionServerConfirmed, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

  { from: S.TransactionClaimPending, event: 'claim.start', to: S.TransactionClaimPending, effects: ['claimWhenSilent'] },
  { from: S.TransactionClaimPending, event: 'claim.broadcast', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimPending, event: 'lockup.spent', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimPending, event: 'timeout' },
  { from: S.TransactionClaimPending, event: 'refund.signed' },
  { from: S.TransactionClaimed, event: 'claim.replaced', to: S.TransactionClaimed, effects: [] },
  { from: S.TransactionClaimed, event: 'claim.replaced', data: SETTLED },
  { from: S.TransactionClaimed, event: 'claim.confirmed', to: S.TransactionClaimed, effects: [], sets: { claimConfirmed: true } },
  { from: S.TransactionClaimed, event: 'claim.confirmed', data: { claimConfirmed: true } },
  { from: S.TransactionClaimed, event: 'claim.settled', data: { claimConfirmed: true }, to: S.TransactionClaimed, effects: [], sets: SETTLED },
  { from: S.TransactionClaimed, event: 'claim.settled', data: SETTLED },

  { from: S.TransactionFailed, event: 'refund.signed', to: S.TransactionFailed, effects: [], sets: { refundSigned: true } },
  { from: S.Expired, event: 'refund.signed', to: S.Expired, effects: [], sets: { refundSigned: true } },
  { from: S.Expired, event: 'refund.signed', data: { preimage: 'ab' } },

  // The user's lockup lost after Ferry locked: failed, Ferry's lockup still followed and refunded at its timeout.
  { from: S.TransactionMempool, event: 'lockup.lost', data: { serverLockup: {} }, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionMempool, event: 'lockup.lost', data: LOCKING },
  { from: S.TransactionConfirmed, event: 'lockup.lost', data: { serverLockup: {} }, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionConfirmed, event: 'lockup.lost', data: LOCKING },
  { from: S.TransactionServerMempool, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
  { from: S.TransactionServerConfirmed, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
  { from: S.TransactionClaimPending, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
  { from: S.TransactionClaimed, event: 'lockup.lost', to: S.TransactionFailed, effects: [] },
  { from: S.TransactionClaimed, event: 'lockup.lost', data: SETTLED },
  { from: S.TransactionFailed, event: 'lockup.lost', data: LOST, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionFailed, event: 'lockup.lost' },
  { from: S.TransactionFailed, event: 'refund.signed', data: LOST },
  { from: S.TransactionFailed, event: 'preimage.learned', data: LOST, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionFailed, event: 'preimage.learned' },
  { from: S.TransactionFailed, event: 'server.confirmed', data: LOST, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionFailed, event: 'server.replaced', data: LOST, to: S.TransactionFailed, effects: [] },
  { from: S.TransactionFailed, event: 'timeout', data: LOST, to: S.TransactionFailed, effects: ['refundLockup'], sets: { refundRequested: true } },
  { from: S.TransactionFailed, event: 'timeout', data: { ...LOST, preimage: 'ab' } },
  { from: S.TransactionFailed, event: 'timeout', data: { ...LOST, refundRequested: true } },
  { from: S.TransactionFailed, event: 'timeout' },
  { from: S.TransactionFailed, event: 'refund.broadcast', data: LOST, to: S.TransactionRefunded, effects: [] },
  { from: S.TransactionFailed, event: 'refund.broadcast' },
  { from: S.TransactionFailed, event: 'lockup.found', data: { ...LOST, preimage: 'ab' }, to: S.TransactionClaimPending, effects: ['startClaim'], sets: FOUND },
  { from: S.TransactionFailed, event: 'lockup.found', data: { ...LOST, serverLockup: { confirmed: true } }, to: S.TransactionServerConfirmed, effects: [], sets: FOUND },
  { from: S.TransactionFailed, event: 'lockup.found', data: LOST, to: S.TransactionServerMempool, effects: [], sets: FOUND },
  { from: S.TransactionFailed, event: 'lockup.found' },

  { from: S.TransactionRefunded, event: 'preimage.learned', to: S.TransactionClaimPending, effects: ['startClaim'] },
  { from: S.TransactionRefunded, event: 'preimage.learned', data: { refundConfirmed: true } },
  { from: S.TransactionRefunded, event: 'refund.confirmed', to: S.TransactionRefunded, effects: [], sets: { refundConfirmed: true } },
  { from: S.TransactionRefunded, event: 'refund.confirmed', data: { refundConfirmed: true } },
  { from: S.TransactionRefunded, event: 'refund.replaced', to: S.TransactionRefunded, effects: [] },
  { from: S.TransactionRefunded, event: 'refund.replaced', data: { refundConfirmed: true } },
  { from: S.TransactionRefunded, event: 'refund.signed', data: LOCKING },
  { from: S.TransactionRefunded, event: 'refund.signed', data: { ...LOCKING, refundConfirmed: true }, to: S.TransactionRefunded, effects: [], sets: { refundSigned: true } },
];

// Data in which every guard of either machine would hold if it were not checked, for the refused pairs.
const RICH_DATA: SwapData = { ...INVOICE, ...CONFIRMED, lockupRequested: true };

function checkMachineCases(machine: AnyMachine, cases: Case[]): void {
  test('the table is well formed', () => {
    assert.deepEqual(checkMachine(machine), []);
  });

  for (const c of cases) {
    const label = `${c.from} --${c.event}--> ${c.to ?? 'refused'}${c.data ? ' with ' + JSON.stringify(c.data) : ''}`;
    test(label, () => {
      const data = { ...c.data, marker: 'kept' };
      const outcome = transition(machine, { status: c.from, data }, { type: c.event, data: { fromEvent: 1 } });
      if (c.to === undefined) {
        assert.equal(outcome.ok, false);
        return;
      }
      assert.ok(outcome.ok);
      assert.equal(outcome.swap.status, c.to);
      assert.deepEqual(outcome.effects, c.effects);
      assert.equal(outcome.changedStatus, c.to !== c.from);
      assert.deepEqual(outcome.swap.data, { ...data, fromEvent: 1, ...c.sets });
      assert.equal(data.marker, 'kept', 'the input swap is not mutated');
    });
  }

  const allowed = new Set(cases.filter((c) => c.to !== undefined).map((c) => `${c.from} ${c.event}`));
  test('every row of the table is covered by an expected case', () => {
    for (const row of machine.rows) assert.ok(allowed.has(`${row.from} ${row.event}`), `${row.from} ${row.event} has no case`);
  });

  test('every other (status, event) pair is refused without change', () => {
    let refused = 0;
    for (const status of machine.statuses) {
      for (const event of machine.events) {
        if (allowed.has(`${status} ${event}`)) continue;
        for (const data of [{}, RICH_DATA]) {
          const swap = { status, data: structuredClone(data) };
          const outcome = transition(machine, swap, { type: event, data: { x: 1 } });
          assert.equal(outcome.ok, false, `${status} --${event}--> must be refused`);
          assert.deepEqual(swap, { status, data });
        }
        refused++;
      }
    }
    assert.ok(refused > 0);
  });
}

describe('submarine machine', () => {
  checkMachineCases(submarineMachine as AnyMachine, submarineCases);

  test('refund.signed is accepted only in refundable statuses', () => {
    for (const row of submarineMachine.rows.filter((r) => r.event === 'refund.signed')) {
      assert.ok(REFUNDABLE_STATUSES.includes(row.from), `${row.from} is not refundable`);
    }
  });

  test('no path leads from a refundable status to paying the invoice', () => {
    const reachable = new Set<string>(REFUNDABLE_STATUSES.filter((s) => submarineMachine.statuses.includes(s as never)));
    // A row whose guard refuses every swap with a signed refund is no path for one (a lost lockup's payment in flight).
    const refundSigned = [{ refundSigned: true }, { ...LOST, refundSigned: true }, { ...LOST, refundSigned: true, paymentFailure: 'x' }];
    const passable = (row: (typeof submarineMachine.rows)[number]) =>
      row.guard === undefined || refundSigned.some((data) => submarineMachine.guards[row.guard!].test(data));
    let grew = true;
    while (grew) {
      grew = false;
      for (const row of submarineMachine.rows) {
        if (reachable.has(row.from) && !reachable.has(row.to) && passable(row)) {
          reachable.add(row.to);
          grew = true;
        }
      }
    }
    assert.ok(!reachable.has(S.InvoicePending), 'invoice.pending is reachable');
    const paying = submarineMachine.rows.filter((r) => r.effects.includes('payInvoice' as never));
    assert.ok(paying.length > 0, 'no row pays');
    for (const row of paying) assert.ok(!reachable.has(row.from) || !passable(row), `${row.from} --${row.event}--> pays after a refund`);
  });
});

describe('reverse machine', () => {
  checkMachineCases(reverseMachine as AnyMachine, reverseCases);

  test('the invoice is only cancelled when no preimage can still arrive', () => {
    for (const row of reverseMachine.rows.filter((r) => r.effects.includes('cancelInvoice'))) {
      const beforeLockup = row.from === S.Created || row.from === S.MinerFeePaid;
      assert.ok(beforeLockup || row.event === 'refund.confirmed', `${row.from} --${row.event}--> cancels too early`);
    }
  });
});

describe('chain machine', () => {
  checkMachineCases(chainMachine as AnyMachine, chainCases);

  test('refund.signed is accepted only in refundable statuses', () => {
    for (const row of chainMachine.rows.filter((r) => r.event === 'refund.signed')) {
      assert.ok(REFUNDABLE_STATUSES.includes(row.from), `${row.from} is not refundable`);
    }
  });

  test('Ferry locks only for a user lockup it can claim, and never after signing the user\'s refund', () => {
    for (const row of chainMachine.rows.filter((r) => r.effects.includes('sendLockup'))) {
      assert.ok(['lockup.zeroConf', 'lockup.confirmed', 'quote.accepted'].includes(row.event), `${row.from} --${row.event}--> locks`);
      assert.ok(row.guard !== undefined, 'every lockup decision is guarded against locking twice');
      const refundSigned = { ...CONFIRMED, refundSigned: true };
      if (row.event === 'quote.accepted') assert.equal(transition(chainMachine, { status: row.from, data: refundSigned }, { type: row.event }).ok, false);
    }
    // The statuses a signed refund leaves the swap in lead to no lockup decision.
    const afterRefund = new Set(chainMachine.rows.filter((r) => r.event === 'refund.signed').map((r) => r.to));
    for (const row of chainMachine.rows) {
      if (afterRefund.has(row.from)) assert.ok(!row.effects.includes('sendLockup' as never) || row.guard === 'quotable', `${row.from} --${row.event}--> locks after a refund`);
    }
  });

  test('the user\'s refund is never co-signed while Ferry\'s lockup can still be claimed, nor once the preimage is known', () => {
    const claimable = [LOCKING, { ...LOCKING, refundRequested: true }, { preimage: 'ab' }, { ...LOCKING, refundConfirmed: true, preimage: 'ab' }];
    for (const status of [S.Expired, S.TransactionRefunded]) {
      for (const data of claimable) {
        assert.equal(transition(chainMachine, { status, data }, { type: 'refund.signed' }).ok, false, `${status} with ${JSON.stringify(data)}`);
      }
    }
  });

  test('no timeout refunds Ferry\'s lockup once the preimage is known: the user is owed it', () => {
    for (const row of chainMachine.rows.filter((r) => r.effects.includes('refundLockup'))) {
      assert.ok(![S.TransactionClaimPending, S.TransactionClaimed].includes(row.from as never));
    }
    assert.equal(transition(chainMachine, { status: S.TransactionClaimPending, data: LOCKING }, { type: 'timeout' }).ok, false);
  });
});
