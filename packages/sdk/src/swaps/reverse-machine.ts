// The reverse swap (Lightning → chain) as data. The user pays Ferry's hold invoice; once the payment is held,
// Ferry locks coins to the swap address; the user claims them with the preimage, which lets Ferry settle the
// invoice. If the user never claims, Ferry takes its coins back after the timeout and cancels the invoice.
// With a prepay invoice (EVM `gasless`/`prepayMinerFee`, or the operator's miner fee prepay on UTXO chains) Ferry
// locks only once both are held: the prepay moves the swap to minerfee.paid, Ferry's lock (which on EVM sends the
// gas amount to the claim address in the same transaction) settles the prepay invoice; a swap failing before that
// cancels both. Its events keep the name `gas.accepted` and its data `gas`, as stored swaps have them.
import type { ContractLockupValues } from '../chains/contract-chain.ts';
import type { SwapOutputData } from './lockup.ts';
import type { MachineDefinition } from './machine.ts';
import type { StoredTransaction } from './submarine-machine.ts';
import { SwapStatus as S, TIMED_OUT_REASON } from './status.ts';

/** What a reverse swap keeps in its row's `data` (the guards below read some of it). */
export interface ReverseLockup {
  txid: string;
  vout: number;
  value: number;
  hex: string;
  confirmed: boolean;
  /** Contract chains: the values Ferry locked with. */
  contract?: ContractLockupValues;
}

export interface ReverseData extends SwapOutputData {
  invoiceAmount: number;
  onchainAmount: number;
  invoiceExpiresAt: number; // unix seconds
  /** What the percentage fee earned: the invoice at the rate, less the onchain amount and lockup fee estimate. */
  serviceFee?: number;
  lockupRequested?: boolean;
  lockup?: ReverseLockup;
  refundRequested?: boolean;
  refundTransaction?: StoredTransaction;
  refundConfirmed?: boolean;
  /** The prepay invoice: EVM gas Ferry sends to the claim address with its lock, or the lockup's miner fee. */
  gas?: GasPrepay;
  /** The main invoice's payment is held while the prepay invoice is not yet. */
  invoiceHeld?: boolean;
  gasHeld?: boolean;
  /**
   * The receiver's signed address, put into the invoice as a magic routing hint: a payer may pay it on chain directly
   * (GET /v2/swap/reverse/{invoice}/bip21 answers this BIP21 and signature).
   */
  directPayment?: { bip21: string; signature: string };
}

/** A reverse swap's prepay invoice: Ferry's own preimage, so only Ferry settles it, once it has locked. */
export interface GasPrepay {
  invoice: string;
  /** 64 hex characters. */
  preimageHash: string;
  preimage: string;
  /** Sat of the prepay invoice. */
  invoiceAmount: number;
  /** API units of the chain's asset sent to the claim address with the lock (0 for the miner fee prepay). */
  amount: number;
  /**
   * EVM gas under the request's name: `gasless` (gasAssetAmount, gaslessInvoice) or `prepayMinerFee` (the earlier
   * names); or `minerFee`, the operator's miner fee prepay on a UTXO chain (minerFeeInvoice).
   */
  requestedAs: 'gasless' | 'prepayMinerFee' | 'minerFee';
}

export const REVERSE_STATUSES = [
  S.Created,
  S.MinerFeePaid,
  S.TransactionMempool,
  S.TransactionConfirmed,
  S.InvoiceSettled,
  S.TransactionFailed,
  S.InvoiceExpired,
  S.Expired,
  S.TransactionRefunded,
] as const;
export type ReverseStatus = (typeof REVERSE_STATUSES)[number];

export const REVERSE_EVENTS = [
  'invoice.accepted', // the user's payment is held on the hold invoice
  'gas.accepted', // the payment of the prepay invoice (gas or miner fee) is held
  'server.sent', // Ferry's lockup transaction is in the mempool
  'server.replaced', // Ferry's lockup, stuck unconfirmed, was replaced by the same payment at a higher fee
  'server.childPaid', // Ferry's lockup, stuck unconfirmed and not replaceable, got a child paying for it (CPFP)
  'server.confirmed', // Ferry's lockup is in a block
  'server.failed', // Ferry could not lock (e.g. insufficient funds)
  'invoice.expired', // the invoice expired unpaid
  'timeout', // the chain reached the swap's timeout block
  'preimage.learned', // from a cooperative claim request or a script-path claim seen on chain
  'settlement.done', // the hold invoice is settled
  'refund.broadcast', // Ferry broadcast its refund of the lockup
  'refund.confirmed', // Ferry's refund is in a block: the user can no longer claim
  'refund.replaced', // Ferry's refund, stuck unconfirmed, was replaced by one paying a higher fee
] as const;
export type ReverseEvent = (typeof REVERSE_EVENTS)[number];

export const REVERSE_EFFECTS = [
  'sendLockup', // lock the on-chain amount from the operator wallet, at most once
  'settleInvoice',
  'cancelInvoice', // the hold invoice, and a prepay invoice not settled
  'settleGasInvoice', // Ferry has locked (and sent any gas): the prepay invoice is Ferry's
  'refundLockup', // spend the lockup back through the refund leaf (nLockTime = timeout)
] as const;
export type ReverseEffect = (typeof REVERSE_EFFECTS)[number];

type ReverseGuard = 'awaitingGas' | 'invoiceHeld' | 'lockupNotRequested' | 'lockupRequested' | 'preimageUnknown' | 'refundNotRequested' | 'refundUnconfirmed' | 'claimableAfterRefund';

const timedOut = { failureReason: TIMED_OUT_REASON };

export const reverseMachine: MachineDefinition<ReverseStatus, ReverseEvent, ReverseEffect, ReverseGuard> = {
  name: 'Reverse swap',
  initial: [S.Created],
  final: [S.InvoiceSettled, S.TransactionFailed, S.TransactionRefunded, S.Expired, S.InvoiceExpired],
  succeeded: [S.InvoiceSettled],
  failed: [S.TransactionFailed, S.TransactionRefunded, S.Expired, S.InvoiceExpired],
  chainEvents: ['server.sent', 'server.confirmed', 'preimage.learned', 'refund.broadcast', 'refund.confirmed'],
  effectLegs: {
    sendLockup: 'serverLockup',
    refundLockup: 'serverLockup',
    settleInvoice: 'holdInvoice',
    cancelInvoice: 'holdInvoice',
    settleGasInvoice: 'holdInvoice',
  },
  statuses: REVERSE_STATUSES,
  events: REVERSE_EVENTS,
  effects: REVERSE_EFFECTS,
  guards: {
    awaitingGas: { label: 'prepay invoice not paid', test: (data) => data.gas !== undefined && data.gasHeld !== true },
    invoiceHeld: { label: 'invoice held, no lockup requested', test: (data) => data.invoiceHeld === true && data.lockupRequested !== true },
    lockupNotRequested: { label: 'no lockup requested', test: (data) => data.lockupRequested !== true },
    lockupRequested: { label: 'lockup requested', test: (data) => data.lockupRequested === true },
    preimageUnknown: { label: 'preimage unknown', test: (data) => typeof data.preimage !== 'string' },
    refundNotRequested: { label: 'no refund requested', test: (data) => data.refundRequested !== true },
    refundUnconfirmed: { label: 'refund not in a block', test: (data) => data.refundConfirmed !== true },
    // Once Ferry's refund is in a block, no claim can spend the lockup any more.
    claimableAfterRefund: {
      label: 'preimage unknown, refund not in a block',
      test: (data) => typeof data.preimage !== 'string' && data.refundConfirmed !== true,
    },
  },
  rows: [
    // With a prepay invoice: whichever invoice is held second makes Ferry lock.
    { from: S.Created, event: 'invoice.accepted', to: S.Created, effects: [], guard: 'awaitingGas', set: { invoiceHeld: true } },
    { from: S.Created, event: 'invoice.accepted', to: S.Created, effects: ['sendLockup'], guard: 'lockupNotRequested', set: { lockupRequested: true } },
    { from: S.Created, event: 'gas.accepted', to: S.MinerFeePaid, effects: ['sendLockup'], guard: 'invoiceHeld', set: { gasHeld: true, lockupRequested: true } },
    { from: S.Created, event: 'gas.accepted', to: S.MinerFeePaid, effects: [], guard: 'lockupNotRequested', set: { gasHeld: true } },
    { from: S.Created, event: 'server.sent', to: S.TransactionMempool, effects: [], guard: 'lockupRequested' },
    { from: S.Created, event: 'server.confirmed', to: S.TransactionConfirmed, effects: [], guard: 'lockupRequested' },
    { from: S.Created, event: 'server.failed', to: S.TransactionFailed, effects: ['cancelInvoice'] },
    { from: S.Created, event: 'invoice.expired', to: S.InvoiceExpired, effects: ['cancelInvoice'], guard: 'lockupNotRequested' },
    { from: S.Created, event: 'timeout', to: S.Expired, effects: ['cancelInvoice'], guard: 'lockupNotRequested', set: timedOut },

    { from: S.MinerFeePaid, event: 'invoice.accepted', to: S.MinerFeePaid, effects: ['sendLockup'], guard: 'lockupNotRequested', set: { lockupRequested: true } },
    { from: S.MinerFeePaid, event: 'server.sent', to: S.TransactionMempool, effects: ['settleGasInvoice'], guard: 'lockupRequested' },
    { from: S.MinerFeePaid, event: 'server.confirmed', to: S.TransactionConfirmed, effects: ['settleGasInvoice'], guard: 'lockupRequested' },
    { from: S.MinerFeePaid, event: 'server.failed', to: S.TransactionFailed, effects: ['cancelInvoice'] },
    { from: S.MinerFeePaid, event: 'invoice.expired', to: S.InvoiceExpired, effects: ['cancelInvoice'], guard: 'lockupNotRequested' },
    { from: S.MinerFeePaid, event: 'timeout', to: S.Expired, effects: ['cancelInvoice'], guard: 'lockupNotRequested', set: timedOut },

    { from: S.TransactionMempool, event: 'server.confirmed', to: S.TransactionConfirmed, effects: [] },
    // Fee bumps keep the status and record the replacement, the transaction that can still confirm.
    { from: S.TransactionMempool, event: 'server.replaced', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionMempool, event: 'server.childPaid', to: S.TransactionMempool, effects: [] },
    { from: S.TransactionMempool, event: 'preimage.learned', to: S.TransactionMempool, effects: ['settleInvoice'], guard: 'preimageUnknown' },
    { from: S.TransactionMempool, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
    { from: S.TransactionMempool, event: 'timeout', to: S.TransactionMempool, effects: ['refundLockup'], guard: 'refundNotRequested', set: { refundRequested: true } },
    { from: S.TransactionMempool, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

    { from: S.TransactionConfirmed, event: 'preimage.learned', to: S.TransactionConfirmed, effects: ['settleInvoice'], guard: 'preimageUnknown' },
    { from: S.TransactionConfirmed, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
    { from: S.TransactionConfirmed, event: 'timeout', to: S.TransactionConfirmed, effects: ['refundLockup'], guard: 'refundNotRequested', set: { refundRequested: true } },
    { from: S.TransactionConfirmed, event: 'refund.broadcast', to: S.TransactionRefunded, effects: [] },

    // The user's claim can still win the race against Ferry's refund: then the preimage is on chain and the
    // invoice must be settled. The invoice is cancelled only once the refund is in a block.
    { from: S.TransactionRefunded, event: 'preimage.learned', to: S.TransactionRefunded, effects: ['settleInvoice'], guard: 'claimableAfterRefund' },
    { from: S.TransactionRefunded, event: 'settlement.done', to: S.InvoiceSettled, effects: [] },
    { from: S.TransactionRefunded, event: 'refund.confirmed', to: S.TransactionRefunded, effects: ['cancelInvoice'], guard: 'refundUnconfirmed', set: { refundConfirmed: true } },
    { from: S.TransactionRefunded, event: 'refund.replaced', to: S.TransactionRefunded, effects: [], guard: 'refundUnconfirmed' },
  ],
};
