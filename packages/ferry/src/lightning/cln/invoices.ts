// Invoice states from Core Lightning's two books: the hold plugin's hold invoices (listholdinvoices: unpaid,
// accepted, paid, cancelled, with their HTLCs) and lightningd's own (listinvoices: unpaid, paid, expired), read
// into the InvoiceUpdate the engine follows, as LND's states name them. Hold invoices read over the plugin's gRPC
// are put in its RPC's shape first, so both faces are read by one function.
import type { InvoiceState, InvoiceUpdate } from '../backend.ts';
import type { HoldInvoice } from './hold/proto.ts';

export interface HoldInvoiceJson {
  payment_hash: string;
  state: 'unpaid' | 'accepted' | 'paid' | 'cancelled';
  htlcs?: { state: string; msat: number | bigint; cltv_expiry?: number | null }[];
}

export interface OwnInvoiceJson {
  payment_hash: string;
  status: 'unpaid' | 'paid' | 'expired';
  amount_received_msat?: number | bigint;
}

const HOLD_STATES: Record<HoldInvoiceJson['state'], InvoiceState> = {
  unpaid: 'OPEN',
  accepted: 'ACCEPTED',
  paid: 'SETTLED',
  cancelled: 'CANCELED',
};

const OWN_STATES: Record<OwnInvoiceJson['status'], InvoiceState> = { unpaid: 'OPEN', paid: 'SETTLED', expired: 'CANCELED' };

export function holdInvoiceUpdate(invoice: HoldInvoiceJson): InvoiceUpdate {
  const htlcs = invoice.htlcs ?? [];
  const live = htlcs.filter((h) => h.state === 'accepted' || h.state === 'paid');
  return {
    paymentHash: invoice.payment_hash,
    state: HOLD_STATES[invoice.state],
    amountPaidMsat: live.reduce((sum, h) => sum + BigInt(h.msat), 0n),
    htlcExpiryHeights: htlcs
      .filter((h) => h.state === 'accepted' && typeof h.cltv_expiry === 'number')
      .map((h) => h.cltv_expiry as number),
  };
}

/** A gRPC `Invoice` as listholdinvoices would list it (its states are the same, upper-case). */
export function grpcHoldInvoiceJson(invoice: HoldInvoice): HoldInvoiceJson {
  return {
    payment_hash: invoice.payment_hash.toString('hex'),
    state: invoice.state.toLowerCase() as HoldInvoiceJson['state'],
    htlcs: invoice.htlcs.map((htlc) => ({
      state: htlc.state.toLowerCase(),
      msat: Number(htlc.msat),
      cltv_expiry: htlc.cltv_expiry === undefined ? null : Number(htlc.cltv_expiry),
    })),
  };
}

export function ownInvoiceUpdate(invoice: OwnInvoiceJson): InvoiceUpdate {
  return {
    paymentHash: invoice.payment_hash,
    state: OWN_STATES[invoice.status],
    amountPaidMsat: BigInt(invoice.amount_received_msat ?? 0),
    htlcExpiryHeights: [],
  };
}

/** Whether two updates differ in what a follower acts on. */
export const sameUpdate = (a: InvoiceUpdate, b: InvoiceUpdate): boolean =>
  a.state === b.state && a.amountPaidMsat === b.amountPaidMsat && a.htlcExpiryHeights.join() === b.htlcExpiryHeights.join();
