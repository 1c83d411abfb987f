// One change of the Lightning network's state as the store's journal keeps it (store.ts): the records a change
// touched, whole, and replayed onto the last snapshot at the next start. Every change carries the counters and all
// channels (a devnet has a handful, and a payment moves the balances and HTLCs of those on its route), so no
// channel update can go unwritten. Replaying a change twice leaves the same state, which is what makes the store's
// compaction safe to cut short: a crash between writing the snapshot and emptying the journal replays both.
import type { ChannelRecord, InvoiceRecord, NetworkState, NodeRecord, OfferRecord, PaymentRecord } from './types.ts';

export interface StateChange {
  counters: NetworkState['counters'];
  channels: ChannelRecord[];
  nodes?: NodeRecord[];
  invoices?: InvoiceRecord[];
  payments?: PaymentRecord[];
  offers?: OfferRecord[];
}

/** Records by identity, in the list's order: setting a known key keeps its place, a new one goes last. */
function keyed<T>(list: readonly T[], key: (record: T) => string): Map<string, T> {
  return new Map(list.map((record) => [key(record), record]));
}

const byName = (n: NodeRecord) => n.name;
const byHash = (r: InvoiceRecord | PaymentRecord) => `${r.node}:${r.paymentHash}`;
const byOffer = (o: OfferRecord) => `${o.node}:${o.offerId}`;

/** Applies journalled changes, in order, to the state read from the snapshot. */
export function replayChanges(state: NetworkState, changes: readonly StateChange[]): void {
  if (changes.length === 0) return;
  const nodes = keyed(state.nodes, byName);
  const invoices = keyed(state.invoices, byHash);
  const payments = keyed(state.payments, byHash);
  const offers = keyed(state.offers ?? [], byOffer);
  for (const change of changes) {
    state.counters = change.counters;
    state.channels = change.channels;
    for (const node of change.nodes ?? []) nodes.set(byName(node), node);
    for (const invoice of change.invoices ?? []) invoices.set(byHash(invoice), invoice);
    for (const payment of change.payments ?? []) {
      // A payment retried after a failure replaces the failed one (same node and hash, a new index) at the end of
      // the list, as sendPayment does.
      const key = byHash(payment);
      if (payments.get(key)?.paymentIndex !== payment.paymentIndex) payments.delete(key);
      payments.set(key, payment);
    }
    for (const offer of change.offers ?? []) offers.set(byOffer(offer), offer);
  }
  state.nodes = [...nodes.values()];
  state.invoices = [...invoices.values()];
  state.payments = [...payments.values()];
  if (offers.size > 0) state.offers = [...offers.values()];
}
