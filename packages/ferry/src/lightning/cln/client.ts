// LightningBackend over Core Lightning's REST interface (clnrest, `Rune` header), with hold invoices from the hold
// plugin (BoltzExchange/hold), as the reference backend runs CLN. Every call is `POST /v1/<method>`; the shapes
// relied on:
//   getinfo {}                                   → {id, alias, version, blockheight, network, address[], binding[]}
//                                                    (uris from `address`, else from `binding`: a node on loopback)
//   listpeerchannels {}                          → {channels[{peer_id, state, short_channel_id "BxTxO", total_msat}]}
//   listnodes {id?}, listchannels {short_channel_id?, source?} → the graph (graph.ts)
//   listinvoices {payment_hash}                  → {invoices[{payment_hash, status unpaid|paid|expired, amount_received_msat}]}
//   listsendpays {payment_hash}                  → {payments[{status pending|complete|failed, groupid, amount_msat,
//                                                    amount_sent_msat, payment_preimage}]}
//   pay {bolt11, amount_msat?, maxfee, retry_for, maxdelay}
//                                                → {payment_preimage, amount_msat, amount_sent_msat, status "complete"}
//                                                  or error {code 200 in progress, 203/205/206/207/209/210/215
//                                                  failed, -32602 refused; xpay (pay's handler) records no sendpay
//                                                  when it refuses before sending: payments.ts}
// Every answer is parsed losslessly (json.ts): u64s past 2^53 (groupid, created_index) come as bigint.
//   listholdinvoices, settleholdinvoice, cancelholdinvoice, holdinvoice, injectholdinvoice: the hold plugin's RPC
//                                                  methods, NOT used (hold invoices go over its gRPC, below)
//   fetchinvoice {offer, amount_msat, payer_note?}  → {invoice "lni1…"} or error {code 1002 expired, 1003/1005 no
//                                                    answer, -32602 bad offer or amount}
//   injectonionmessage {message, path_key} (hex)  → {} or error {code -1 the onion does not parse}
// Hold invoices come only from the hold plugin's gRPC service (`hold`: its address and mTLS files; hold/client.ts),
// as the reference backend does: the plugin's RPC `holdinvoice` reads only payment_hash and amount and gives every
// invoice its defaults (empty description, expiry 3600 s, CLTV delta 80), so it cannot make a swap's invoice. Without
// `hold` the backend serves everything else and says it cannot hold invoices (`holdInvoices` false): making,
// injecting, settling or cancelling one refuses, and invoice lookups read only lightningd's own `listinvoices` (a
// node without the plugin answers its methods with -32601). With it, invoices are followed by its Track stream and
// its onion messages are offered (onionMessages()).
import { readFileSync } from 'node:fs';
import { decodeBolt11, type Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import { bolt12AsInvoice, isBolt12Invoice } from '@ferry/sdk/lightning/bolt12/payable.js';
import {
  InvoiceFetchError,
  type HoldInvoiceRequest,
  type InvoiceUpdate,
  type LightningBackend,
  type NodeInfo,
  type NodeStats,
  type PayRequest,
  type PaymentUpdate,
  type Subscription,
} from '../backend.ts';
import type { OnionMessageStream } from '@ferry/sdk/lightning/onion-message-hook.js';
import { HoldGrpcClient, HoldGrpcError, type HoldGrpcOptions } from './hold/client.ts';
import { HoldOnionMessages } from './hold/onion-messages.ts';
import { grpcHoldInvoiceJson, holdInvoiceUpdate, ownInvoiceUpdate, sameUpdate, type HoldInvoiceJson, type OwnInvoiceJson } from './invoices.ts';
import { ClnGraph } from './graph.ts';
import { ClnPayments } from './payments.ts';
import { ClnRestError, ClnTransport, type ClnCaller } from './transport.ts';

export interface ClnBackendOptions {
  url: string;
  rune: string;
  tlsCertPath?: string; // clnrest's ca.pem; omit for plain HTTP
  timeoutMs?: number;
  pollMs?: number; // how often a followed invoice or payment is read again (default 250 ms)
  hold?: HoldGrpcOptions; // the hold plugin's gRPC; without it its RPC methods over clnrest
  onHoldStreamError?: (error: Error) => void; // a dropped onion-message stream (it reconnects by itself)
  transport?: ClnCaller; // lightningd reached otherwise than clnrest (its JSON-RPC socket); url and rune unused
}

// With the plugin's Track stream a followed invoice is read on each change; this slow poll is only a safety net.
const TRACKED_POLL_MS = 30_000;

const HEX32 = /^[0-9a-f]{64}$/;

function requireHash(hex: string, name: string): void {
  if (!HEX32.test(hex)) throw new Error(`${name} must be 32 bytes of lower-case hex`);
}

// The plugin refuses to settle or cancel an invoice twice ("state paid is final"), over RPC and gRPC alike.
const alreadyFinal = (err: unknown): boolean => (err instanceof ClnRestError || err instanceof HoldGrpcError) && /is final/.test(err.message);

const NO_HOLD =
  "Core Lightning cannot hold invoices here: the hold plugin's gRPC is not configured (lightning.cln.hold.grpcUrl); its RPC holdinvoice cannot set a swap's CLTV delta or expiry";

/** getinfo's announced addresses, else (a node that only binds, e.g. locally) the ones it listens on. */
function urisOf(info: { id: string; address?: AddressJson[]; binding?: AddressJson[] }): string[] {
  const usable = (list: AddressJson[] | undefined) =>
    (list ?? []).filter((a) => a.address !== undefined && a.port !== undefined && (a.type === 'ipv4' || a.type === 'ipv6' || a.type === 'torv3' || a.type === 'dns'));
  const announced = usable(info.address);
  const listed = announced.length > 0 ? announced : usable(info.binding);
  return listed.map((a) => `${info.id}@${a.type === 'ipv6' ? `[${a.address}]` : a.address}:${a.port}`);
}

interface AddressJson {
  type: string;
  address?: string;
  port?: number;
}

const blockOf = (scid: string): number => Number(scid.split('x')[0]);

export class ClnBackend implements LightningBackend {
  readonly nodeType = 'CLN';
  private readonly rpc: ClnCaller;
  private readonly payments: ClnPayments;
  private readonly pollMs: number;
  private readonly hold: HoldGrpcClient | undefined;
  private readonly onions: HoldOnionMessages | undefined;

  constructor(options: ClnBackendOptions) {
    if (options.transport === undefined && options.rune === '') throw new Error('Core Lightning needs a rune (lightning.rune)');
    this.rpc =
      options.transport ??
      new ClnTransport({
        url: options.url,
        rune: options.rune,
        tlsCert: options.tlsCertPath === undefined ? undefined : readFileSync(options.tlsCertPath),
        timeoutMs: options.timeoutMs,
      });
    this.pollMs = options.pollMs ?? 250;
    this.payments = new ClnPayments(this.rpc, this.pollMs);
    if (options.hold !== undefined) {
      this.hold = new HoldGrpcClient(options.hold);
      this.onions = new HoldOnionMessages(this.hold, options.onHoldStreamError);
    }
  }

  /** Whether hold invoices can be made: only over the plugin's gRPC (lightning.cln.hold.grpcUrl). */
  get holdInvoices(): boolean {
    return this.hold !== undefined;
  }

  /** The plugin's gRPC client, or the refusal of a hold-invoice call without it. */
  private holdClient(): HoldGrpcClient {
    if (this.hold === undefined) throw new Error(NO_HOLD);
    return this.hold;
  }

  /** The onion messages the node's hooks hand over (the plugin's OnionMessages stream); only over gRPC. */
  onionMessages(): OnionMessageStream | undefined {
    return this.onions;
  }

  /** Closes the plugin's gRPC channel and its onion-message stream. */
  close(): void {
    this.onions?.stop();
    this.hold?.close();
    (this.rpc as Partial<{ close(): void }>).close?.();
  }

  /** The public graph from CLN's gossip (the v2 Lightning node, channel and search calls). */
  graph(): ClnGraph {
    return new ClnGraph(this.rpc);
  }

  async getInfo(): Promise<NodeInfo> {
    const info = await this.rpc.call<{
      id: string;
      alias: string;
      version: string;
      blockheight: number;
      network: string;
      address?: AddressJson[];
      binding?: AddressJson[];
    }>('getinfo');
    return {
      publicKey: info.id,
      alias: info.alias,
      version: info.version,
      blockHeight: info.blockheight,
      uris: urisOf(info),
      network: info.network === 'bitcoin' ? 'mainnet' : info.network,
    };
  }

  async getStats(): Promise<NodeStats> {
    const { channels } = await this.rpc.call<{
      channels: { peer_id: string; state: string; short_channel_id?: string; total_msat: number | bigint; to_us_msat?: number | bigint }[];
    }>('listpeerchannels');
    const open = channels.filter((c) => c.state === 'CHANNELD_NORMAL');
    const heights = open.filter((c) => c.short_channel_id !== undefined).map((c) => blockOf(c.short_channel_id!));
    return {
      capacitySat: open.reduce((sum, c) => sum + BigInt(c.total_msat) / 1000n, 0n),
      channels: open.length,
      peers: new Set(channels.map((c) => c.peer_id)).size,
      oldestChannelHeight: heights.length === 0 ? undefined : Math.min(...heights),
      localBalanceSat: open.reduce((sum, c) => sum + BigInt(c.to_us_msat ?? 0) / 1000n, 0n),
    };
  }

  /** BOLT11, or BOLT12 (lni) in the same terms: CLN pays both, so submarine swaps take both. */
  async decodeInvoice(paymentRequest: string): Promise<Bolt11Invoice> {
    return isBolt12Invoice(paymentRequest) ? bolt12AsInvoice(paymentRequest) : decodeBolt11(paymentRequest);
  }

  async createHoldInvoice(request: HoldInvoiceRequest): Promise<{ paymentRequest: string }> {
    requireHash(request.paymentHash, 'paymentHash');
    const routingHints = request.routeHints?.map((hops) =>
      hops.map((hop) => ({
        publicKey: hop.pubkey,
        shortChannelId: BigInt(`0x${hop.shortChannelId}`),
        baseFeeMsat: BigInt(hop.feeBaseMsat),
        ppmFee: BigInt(hop.feeProportionalMillionths),
        cltvExpiryDelta: hop.cltvExpiryDelta,
      })),
    );
    const bolt11 = await this.holdClient().invoice({ ...request, minFinalCltvExpiry: request.cltvExpiry, ...(routingHints !== undefined && { routingHints }) });
    // A plugin that dropped the CLTV would let the payer's HTLC expire before the swap's timeout: refuse the invoice.
    const made = decodeBolt11(bolt11);
    if (request.cltvExpiry !== undefined && made.minFinalCltvExpiry < request.cltvExpiry) {
      await this.cancelHoldInvoice(request.paymentHash).catch(() => undefined);
      throw new Error(`the hold plugin made an invoice with CLTV delta ${made.minFinalCltvExpiry}, not the ${request.cltvExpiry} asked for`);
    }
    return { paymentRequest: bolt11 };
  }

  // Settling or cancelling twice is harmless: effects are replayed after a crash.
  async settleHoldInvoice(preimage: string): Promise<void> {
    requireHash(preimage, 'preimage');
    try {
      await this.holdClient().settle(preimage);
    } catch (err) {
      if (alreadyFinal(err)) return;
      throw err;
    }
  }

  async cancelHoldInvoice(paymentHash: string): Promise<void> {
    requireHash(paymentHash, 'paymentHash');
    try {
      await this.holdClient().cancel(paymentHash);
    } catch (err) {
      if (alreadyFinal(err)) return;
      throw err;
    }
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceUpdate | undefined> {
    requireHash(paymentHash, 'paymentHash');
    const holdinvoices = await this.listHoldInvoices(paymentHash);
    if (holdinvoices.length > 0) return holdInvoiceUpdate(holdinvoices[0]);
    const { invoices } = await this.rpc.call<{ invoices: OwnInvoiceJson[] }>('listinvoices', { payment_hash: paymentHash });
    return invoices.length > 0 ? ownInvoiceUpdate(invoices[0]) : undefined;
  }

  async listPendingInvoices(): Promise<InvoiceUpdate[]> {
    const [holdinvoices, { invoices }] = await Promise.all([
      this.listHoldInvoices(),
      this.rpc.call<{ invoices: OwnInvoiceJson[] }>('listinvoices'),
    ]);
    return [
      ...holdinvoices.filter((i) => i.state === 'unpaid' || i.state === 'accepted').map(holdInvoiceUpdate),
      ...invoices.filter((i) => i.status === 'unpaid').map(ownInvoiceUpdate),
    ];
  }

  /** The plugin's hold invoices (of one payment hash) in one shape; none without its gRPC. */
  private async listHoldInvoices(paymentHash?: string): Promise<HoldInvoiceJson[]> {
    if (this.hold === undefined) return [];
    return (await this.hold.list(paymentHash)).map(grpcHoldInvoiceJson);
  }

  /**
   * Reports each change of the invoice, the current state first; ends once it is final. Over gRPC the plugin's
   * Track stream says when to read it again (a slow poll stays as a safety net, and takes over if the stream
   * fails); without it it is read every pollMs.
   */
  subscribeInvoice(paymentHash: string, onUpdate: (update: InvoiceUpdate) => void): Subscription {
    requireHash(paymentHash, 'paymentHash');
    let closed = false;
    let woken = false;
    let wake: () => void = () => {};
    const poke = () => {
      woken = true;
      wake();
    };
    let pollMs = this.pollMs;
    const track = this.hold?.track(paymentHash, poke);
    if (track !== undefined) {
      pollMs = TRACKED_POLL_MS;
      // a stream that ends or fails (plugin restart) leaves the invoice to the poll at its usual pace
      const untracked = () => {
        pollMs = this.pollMs;
        poke();
      };
      track.done.then(untracked, untracked);
    }
    const done = (async () => {
      let last: InvoiceUpdate | undefined;
      while (!closed) {
        woken = false;
        const now = await this.lookupInvoice(paymentHash);
        if (closed) return;
        if (now !== undefined && (last === undefined || !sameUpdate(last, now))) {
          last = now;
          onUpdate(now);
          if (now.state === 'SETTLED' || now.state === 'CANCELED') return;
        }
        if (woken) continue; // a change came while reading
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollMs).unref();
        });
      }
    })().finally(() => track?.close());
    return {
      close: () => {
        closed = true;
        wake();
      },
      done,
    };
  }

  payInvoice(request: PayRequest): Promise<PaymentUpdate> {
    return this.payments.pay(request);
  }

  async injectHoldInvoice(invoice: string, minCltv: number): Promise<void> {
    await this.holdClient().inject(invoice, minCltv);
  }

  async fetchInvoice(offer: string, amountMsat: bigint, payerNote?: string): Promise<string> {
    try {
      const { invoice } = await this.rpc.call<{ invoice: string }>('fetchinvoice', { offer, amount_msat: Number(amountMsat), payer_note: payerNote });
      return invoice;
    } catch (err) {
      // lightningd's refusals (bad offer, expired, no answer) carry a code; a transport failure does not
      if (err instanceof ClnRestError && err.code !== undefined) throw new InvoiceFetchError(err.message);
      throw err;
    }
  }

  async injectOnionMessage(pathKey: string, message: string): Promise<void> {
    await this.rpc.call('injectonionmessage', { message, path_key: pathKey });
  }

  async lookupPayment(paymentHash: string): Promise<PaymentUpdate | undefined> {
    requireHash(paymentHash, 'paymentHash');
    return this.payments.lookup(paymentHash);
  }
}
