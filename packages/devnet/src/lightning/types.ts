// The devnet Lightning network's persistent state. Amounts on channels and HTLCs are millisatoshis; byte
// fields are lower-case hex. Everything here is plain JSON so the whole network can be written to one file.

export type InvoiceState = 'OPEN' | 'ACCEPTED' | 'SETTLED' | 'CANCELED';
export type PaymentStatus = 'IN_FLIGHT' | 'SUCCEEDED' | 'FAILED';
export type FailureReason =
  | 'FAILURE_REASON_NONE'
  | 'FAILURE_REASON_TIMEOUT'
  | 'FAILURE_REASON_NO_ROUTE'
  | 'FAILURE_REASON_ERROR'
  | 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS'
  | 'FAILURE_REASON_INSUFFICIENT_BALANCE';

export interface NodeRecord {
  name: string;
  secretKey: string;
  pubkey: string;
  macaroon: string; // the root key (hex) of the macaroons it bakes (rest/macaroons.ts); devnet.json has its admin macaroon
  color: string;
  restPort: number; // the port it last listened on, reused after a restart so devnet.json stays valid
}

export interface ChannelHtlc {
  paymentHash: string;
  payer: string; // the node whose payment this HTLC belongs to
  amountMsat: number;
  fromNode: string; // the side the HTLC's amount came from, and goes back to if it fails
  expiryHeight: number;
}

export interface ChannelRecord {
  chanId: string; // short channel id as a decimal uint64, LND's chan_id
  channelPoint: string; // funding txid:vout
  nodeA: string; // the opener
  nodeB: string;
  capacitySat: number;
  balanceAMsat: number; // spendable by A, HTLCs in flight excluded
  balanceBMsat: number;
  pushSat: number;
  /** Unannounced; absent on public channels (and in state written before private channels existed). */
  private?: boolean;
  openHeight: number;
  htlcs: ChannelHtlc[];
  sentMsatA: number; // totals LND reports as total_satoshis_sent / received, from A's point of view
  receivedMsatA: number;
  updates: number;
}

export interface InvoiceHtlc {
  chanId: string;
  htlcIndex: number;
  amountMsat: number;
  acceptHeight: number;
  acceptTime: number;
  resolveTime: number;
  expiryHeight: number;
  state: 'ACCEPTED' | 'SETTLED' | 'CANCELED';
}

export interface InvoiceRecord {
  node: string;
  paymentHash: string;
  preimage: string | null; // unknown to the node for a hold invoice until it is settled
  paymentAddr: string;
  valueMsat: number;
  memo: string;
  descriptionHash: string;
  creationDate: number;
  settleDate: number;
  expiry: number;
  cltvExpiry: number;
  paymentRequest: string;
  state: InvoiceState;
  hold: boolean;
  label?: string; // a CLN node's invoices are named by label
  bolt12?: string; // the BOLT12 invoice (lni) it was issued as, answering an invoice request for an offer
  holdMinCltv?: number; // the hold plugin's min_cltv (listholdinvoices): set by inject, or gRPC Invoice with a CLTV delta
  private: boolean;
  addIndex: number;
  settleIndex: number;
  amtPaidMsat: number;
  htlcs: InvoiceHtlc[];
}

export interface RouteHop {
  chanId: string;
  chanCapacitySat: number;
  pubKey: string;
  amtToForwardMsat: number;
  feeMsat: number;
  expiry: number;
}

export interface PaymentRecord {
  node: string;
  paymentHash: string;
  paymentRequest: string;
  valueMsat: number;
  feeMsat: number;
  preimage: string | null;
  status: PaymentStatus;
  failureReason: FailureReason;
  creationTimeNs: string;
  resolveTimeNs: string;
  paymentIndex: number;
  route: RouteHop[] | null; // null when no route was found
  totalTimeLock: number;
}

/** A BOLT12 offer a node issued (`offer`), answered with invoices when another node requests one. */
export interface OfferRecord {
  node: string;
  offerId: string; // the Merkle root of the offer's TLV records, as CLN names it
  bolt12: string;
  description: string;
  amountMsat: number | null; // null: the payer picks the amount
  label?: string;
  active: boolean;
  used: boolean;
}

export interface NetworkState {
  version: 1;
  nodes: NodeRecord[];
  channels: ChannelRecord[];
  invoices: InvoiceRecord[];
  payments: PaymentRecord[];
  offers?: OfferRecord[]; // absent in states written before nodes issued offers
  counters: { addIndex: number; settleIndex: number; paymentIndex: number; htlcIndex: number };
}
