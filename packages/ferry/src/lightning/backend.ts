// What Ferry needs from a Lightning node. The engine talks only to this interface; LND over REST is the first
// implementation. Amounts are millisatoshis as bigint; hashes, preimages and keys are lower-case hex.
import type { LightningGraph } from './lnd/graph.ts';
import type { Bolt11Invoice, RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import type { HopHintBody } from '@ferry/sdk/protocol/wire.js';
import type { OnionMessageStream } from '@ferry/sdk/lightning/onion-message-hook.js';

export type InvoiceState = 'OPEN' | 'ACCEPTED' | 'SETTLED' | 'CANCELED';
export type PaymentStatus = 'IN_FLIGHT' | 'SUCCEEDED' | 'FAILED';

export interface InvoiceUpdate {
  paymentHash: string;
  state: InvoiceState;
  amountPaidMsat: bigint;
  // Expiry heights of the HTLCs held for an accepted invoice: the swap must settle or cancel before the lowest.
  htlcExpiryHeights: number[];
}

export interface PaymentUpdate {
  paymentHash: string;
  status: PaymentStatus;
  preimage: string | undefined; // set when SUCCEEDED
  feeMsat: bigint;
  failureReason: string | undefined; // LND's FAILURE_REASON_*, set when FAILED
}

export interface HoldInvoiceRequest {
  paymentHash: string;
  amountMsat: bigint;
  memo?: string;
  descriptionHash?: string;
  expirySeconds?: number;
  cltvExpiry?: number; // min_final_cltv_expiry the payer's last HTLC must carry
  /** Routing hints to write into the invoice (a reverse swap's magic routing hint), each a list of hops. */
  routeHints?: RouteHintHop[][];
}

export interface PayRequest {
  paymentRequest: string;
  feeLimitMsat: bigint;
  timeoutSeconds: number;
  amountMsat?: bigint; // only for invoices without an amount
  // Most blocks the outgoing HTLC may stay locked (LND's cltv_limit). A submarine swap must get its payment
  // settled or failed before its on-chain timeout, or the user could refund on chain and still be paid.
  cltvLimit?: number;
  onUpdate?: (update: PaymentUpdate) => void; // every state the node reports, IN_FLIGHT included
}

export interface NodeInfo {
  publicKey: string;
  alias: string;
  version: string;
  blockHeight: number;
  uris: string[];
  network: string; // 'regtest', 'testnet', 'mainnet', ...
}

export interface NodeStats {
  capacitySat: bigint;
  channels: number;
  peers: number;
  oldestChannelHeight: number | undefined; // block height where the oldest open channel confirmed
  /** Ferry's side of its active channels: what it can pay out (submarine swaps), where the backend can tell. */
  localBalanceSat?: bigint;
}

export interface Subscription {
  close(): void;
  done: Promise<void>; // resolves when the stream ends, rejects when it fails
}

/** A node's refusal to fetch an invoice for an offer: the offer's issuer did not answer, or refused. */
export class InvoiceFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvoiceFetchError';
  }
}

export interface LightningBackend {
  /** The kind of node, as the reference's /v2/nodes names it (LND when absent). */
  readonly nodeType?: 'LND' | 'CLN';
  getInfo(): Promise<NodeInfo>;
  /** The public graph, where the backend can read it (LND, CLN); without it the v2 graph calls answer 404. */
  graph?(): LightningGraph;
  getStats(): Promise<NodeStats>;
  /** Route hints (one hop each) through the node's private channels with `nodeId`, where the backend can tell. */
  routingHints?(nodeId: string): Promise<HopHintBody[][]>;
  decodeInvoice(paymentRequest: string): Promise<Bolt11Invoice>;

  /**
   * Whether the backend can make hold invoices (createHoldInvoice, injectHoldInvoice) with the CLTV delta and expiry
   * a swap asks for; false: it cannot (CLN without the hold plugin's gRPC) and those calls refuse. Absent: it can.
   */
  readonly holdInvoices?: boolean;
  createHoldInvoice(request: HoldInvoiceRequest): Promise<{ paymentRequest: string }>;
  settleHoldInvoice(preimage: string): Promise<void>;
  cancelHoldInvoice(paymentHash: string): Promise<void>;
  lookupInvoice(paymentHash: string): Promise<InvoiceUpdate | undefined>;
  // Every OPEN or ACCEPTED invoice of the node, in as few calls as paging allows: one poll follows them all.
  listPendingInvoices(): Promise<InvoiceUpdate[]>;
  subscribeInvoice(paymentHash: string, onUpdate: (update: InvoiceUpdate) => void): Subscription;

  // Pays unless the node already has a payment for this hash in flight or succeeded, in which case it follows
  // that one: after a crash, calling payInvoice again never pays twice. Resolves with the final state.
  payInvoice(request: PayRequest): Promise<PaymentUpdate>;
  // The node's current record of a payment, or undefined when it never started one.
  lookupPayment(paymentHash: string): Promise<PaymentUpdate | undefined>;

  /**
   * A BOLT12 invoice (lni) for an offer, fetched by the node (an invoice request over onion messages), where the
   * node speaks BOLT12 (CLN); rejects with InvoiceFetchError when the offer's issuer refuses or does not answer.
   */
  fetchInvoice?(offer: string, amountMsat: bigint, payerNote?: string): Promise<string>;

  /**
   * Hands the node an onion message (BOLT 4 packet, hex) with its path key (hex), as if a peer had sent it: the node
   * peels its layer and forwards it. How Ferry replies to an invoice request it took over (CLN's injectonionmessage).
   */
  injectOnionMessage?(pathKey: string, message: string): Promise<void>;

  /** The onion messages the node receives, before it handles them (the hold plugin's stream); none: not streamed. */
  onionMessages?(): OnionMessageStream | undefined;

  /**
   * Holds payments for an invoice made elsewhere — a wallet's BOLT12 invoice whose path leads to this node — as a
   * hold invoice of its payment hash (the hold plugin's inject); the HTLC must carry at least `minCltv` blocks.
   */
  injectHoldInvoice?(invoice: string, minCltv: number): Promise<void>;
}
