// LightningBackend over LND's REST API (lnrpc v1 and the invoicesrpc/routerrpc v2 sub-servers).
import { readFileSync } from 'node:fs';
import { decodeBolt11, type Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import type {
  HoldInvoiceRequest,
  InvoiceState,
  InvoiceUpdate,
  LightningBackend,
  NodeInfo,
  NodeStats,
  PayRequest,
  PaymentStatus,
  PaymentUpdate,
  Subscription,
} from '../backend.ts';
import { LndRestError, LndTransport } from './transport.ts';
import { LndGraph } from './graph.ts';
import { lndRoutingHints } from './route-hints.ts';
import type { HopHintBody } from '@ferry/sdk/protocol/wire.js';

export interface LndRestClientOptions {
  url: string;
  macaroon?: string; // hex
  macaroonPath?: string; // LND's binary macaroon file, e.g. admin.macaroon
  tlsCertPath?: string; // LND's tls.cert; omit for plain HTTP
  timeoutMs?: number;
}

interface LndInvoice {
  r_hash: string;
  state: InvoiceState;
  amt_paid_msat: string;
  htlcs?: { state: string; expiry_height: number }[];
}

interface LndPayment {
  payment_hash: string;
  status: PaymentStatus | 'UNKNOWN' | 'INITIATED';
  payment_preimage: string;
  fee_msat: string;
  failure_reason: string;
}

// Bytes in a URL path or query: LND's gateway (grpc-gateway's runtime.Bytes) decodes only *padded* standard or
// URL-safe base64, so this is URL-safe base64 with its trailing '=' kept (LND's documented form), percent-encoded
// for the URL.
const toUrlBytes = (hex: string): string =>
  encodeURIComponent(Buffer.from(hex, 'hex').toString('base64').replace(/\+/g, '-').replace(/\//g, '_'));
const toB64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
const HEX32 = /^[0-9a-f]{64}$/;
// Invoices per ListInvoices page: large enough that thousands of pending swaps take a handful of calls.
const LIST_PAGE_SIZE = 1000;

function requireHash(hex: string, name: string): void {
  if (!HEX32.test(hex)) throw new Error(`${name} must be 32 bytes of lower-case hex`);
}

function invoiceUpdate(invoice: LndInvoice): InvoiceUpdate {
  return {
    paymentHash: Buffer.from(invoice.r_hash, 'base64').toString('hex'),
    state: invoice.state,
    amountPaidMsat: BigInt(invoice.amt_paid_msat ?? '0'),
    htlcExpiryHeights: (invoice.htlcs ?? []).filter((h) => h.state === 'ACCEPTED').map((h) => h.expiry_height),
  };
}

function paymentUpdate(payment: LndPayment): PaymentUpdate {
  // INITIATED (LND 0.18+) means registered but no HTLC sent yet; for a caller it is as good as in flight.
  const status: PaymentStatus =
    payment.status === 'SUCCEEDED' ? 'SUCCEEDED' : payment.status === 'FAILED' ? 'FAILED' : 'IN_FLIGHT';
  const preimage = payment.payment_preimage;
  return {
    paymentHash: payment.payment_hash,
    status,
    preimage: status === 'SUCCEEDED' && preimage !== '' && !/^0+$/.test(preimage) ? preimage : undefined,
    feeMsat: BigInt(payment.fee_msat ?? '0'),
    failureReason: status === 'FAILED' ? payment.failure_reason : undefined,
  };
}

// LND answers TrackPaymentV2 for a hash it never paid with NOT_FOUND ("payment isn't initiated").
const isNotFound = (err: unknown): boolean =>
  err instanceof LndRestError && (err.code === 5 || err.httpStatus === 404);

export class LndRestClient implements LightningBackend {
  readonly nodeType = 'LND';
  private readonly http: LndTransport;

  constructor(options: LndRestClientOptions) {
    const macaroonHex =
      options.macaroon ?? (options.macaroonPath !== undefined ? readFileSync(options.macaroonPath).toString('hex') : '');
    if (macaroonHex === '') throw new Error('LND needs a macaroon (hex or file)');
    this.http = new LndTransport({
      url: options.url,
      macaroonHex,
      tlsCert: options.tlsCertPath === undefined ? undefined : readFileSync(options.tlsCertPath),
      timeoutMs: options.timeoutMs,
    });
  }

  /** The public graph as this node sees it (the v2 Lightning node, channel and search calls). */
  graph(): LndGraph {
    return new LndGraph(this.http);
  }

  routingHints(nodeId: string): Promise<HopHintBody[][]> {
    return lndRoutingHints(this.http, nodeId);
  }

  async getInfo(): Promise<NodeInfo> {
    const info = await this.http.request<{
      identity_pubkey: string;
      alias: string;
      version: string;
      block_height: number;
      uris?: string[];
      chains?: { network: string }[];
    }>('GET', '/v1/getinfo');
    return {
      publicKey: info.identity_pubkey,
      alias: info.alias,
      version: info.version,
      blockHeight: info.block_height,
      uris: info.uris ?? [],
      network: info.chains?.[0]?.network ?? '',
    };
  }

  async getStats(): Promise<NodeStats> {
    const { channels } = await this.http.request<{
      channels?: { chan_id: string; capacity: string; local_balance?: string; remote_pubkey: string; active: boolean }[];
    }>('GET', '/v1/channels');
    const list = channels ?? [];
    // The short channel id's top 24 bits are the funding transaction's block height.
    const heights = list.map((c) => Number(BigInt(c.chan_id) >> 40n)).filter((h) => h > 0);
    return {
      capacitySat: list.reduce((sum, c) => sum + BigInt(c.capacity), 0n),
      channels: list.filter((c) => c.active).length,
      peers: new Set(list.map((c) => c.remote_pubkey)).size,
      oldestChannelHeight: heights.length === 0 ? undefined : Math.min(...heights),
      localBalanceSat: list.filter((c) => c.active).reduce((sum, c) => sum + BigInt(c.local_balance ?? '0'), 0n),
    };
  }

  async decodeInvoice(paymentRequest: string): Promise<Bolt11Invoice> {
    return decodeBolt11(paymentRequest);
  }

  async createHoldInvoice(request: HoldInvoiceRequest): Promise<{ paymentRequest: string }> {
    requireHash(request.paymentHash, 'paymentHash');
    const body: Record<string, unknown> = {
      hash: toB64(request.paymentHash),
      value_msat: request.amountMsat.toString(),
      memo: request.memo ?? '',
    };
    if (request.descriptionHash !== undefined) body.description_hash = toB64(request.descriptionHash);
    if (request.expirySeconds !== undefined) body.expiry = String(request.expirySeconds);
    if (request.cltvExpiry !== undefined) body.cltv_expiry = String(request.cltvExpiry);
    // lnrpc.RouteHint: chan_id is a uint64, which grpc-gateway writes and reads as a decimal string.
    if (request.routeHints !== undefined && request.routeHints.length > 0) {
      body.route_hints = request.routeHints.map((hops) => ({
        hop_hints: hops.map((hop) => ({
          node_id: hop.pubkey,
          chan_id: BigInt(`0x${hop.shortChannelId}`).toString(),
          fee_base_msat: hop.feeBaseMsat,
          fee_proportional_millionths: hop.feeProportionalMillionths,
          cltv_expiry_delta: hop.cltvExpiryDelta,
        })),
      }));
    }
    const res = await this.http.request<{ payment_request: string }>('POST', '/v2/invoices/hodl', body);
    return { paymentRequest: res.payment_request };
  }

  // Settling twice is harmless: effects are replayed after a crash.
  async settleHoldInvoice(preimage: string): Promise<void> {
    requireHash(preimage, 'preimage');
    try {
      await this.http.request('POST', '/v2/invoices/settle', { preimage: toB64(preimage) });
    } catch (err) {
      if (err instanceof LndRestError && /already settled/.test(err.message)) return;
      throw err;
    }
  }

  async cancelHoldInvoice(paymentHash: string): Promise<void> {
    requireHash(paymentHash, 'paymentHash');
    try {
      await this.http.request('POST', '/v2/invoices/cancel', { payment_hash: toB64(paymentHash) });
    } catch (err) {
      if (err instanceof LndRestError && /already canceled/.test(err.message)) return;
      throw err;
    }
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceUpdate | undefined> {
    requireHash(paymentHash, 'paymentHash');
    try {
      const invoice = await this.http.request<LndInvoice>(
        'GET',
        `/v2/invoices/lookup?payment_hash=${toUrlBytes(paymentHash)}`,
      );
      return invoiceUpdate(invoice);
    } catch (err) {
      if (isNotFound(err) || (err instanceof LndRestError && /unable to locate invoice/.test(err.message))) {
        return undefined;
      }
      throw err;
    }
  }

  async listPendingInvoices(pageSize = LIST_PAGE_SIZE): Promise<InvoiceUpdate[]> {
    const pending: InvoiceUpdate[] = [];
    let offset = '0';
    for (;;) {
      const page = await this.http.request<{ invoices?: LndInvoice[]; last_index_offset?: string }>(
        'GET',
        `/v1/invoices?pending_only=true&index_offset=${offset}&num_max_invoices=${pageSize}&reversed=false`,
      );
      const invoices = page.invoices ?? [];
      pending.push(...invoices.map(invoiceUpdate));
      // A short page is the last; the offset check guards against a node that does not move forward.
      const next = page.last_index_offset ?? '0';
      if (invoices.length < pageSize || BigInt(next) <= BigInt(offset)) return pending;
      offset = next;
    }
  }

  subscribeInvoice(paymentHash: string, onUpdate: (update: InvoiceUpdate) => void): Subscription {
    requireHash(paymentHash, 'paymentHash');
    return this.http.stream('GET', `/v2/invoices/subscribe/${toUrlBytes(paymentHash)}`, undefined, (result) =>
      onUpdate(invoiceUpdate(result as LndInvoice)),
    );
  }

  async lookupPayment(paymentHash: string): Promise<PaymentUpdate | undefined> {
    requireHash(paymentHash, 'paymentHash');
    let first: PaymentUpdate | undefined;
    // TrackPaymentV2 answers with the current state first; the stream is closed after that one message.
    const sub = this.http.stream('GET', `/v2/router/track/${toUrlBytes(paymentHash)}`, undefined, (result) => {
      if (first === undefined) first = paymentUpdate(result as LndPayment);
      sub.close();
    });
    try {
      await sub.done;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return first;
  }

  async payInvoice(request: PayRequest): Promise<PaymentUpdate> {
    const invoice = decodeBolt11(request.paymentRequest);
    const existing = await this.lookupPayment(invoice.paymentHash);
    if (existing !== undefined && existing.status !== 'FAILED') {
      request.onUpdate?.(existing);
      return existing.status === 'SUCCEEDED' ? existing : this.follow(invoice.paymentHash, request.onUpdate);
    }
    const body: Record<string, unknown> = {
      payment_request: request.paymentRequest,
      fee_limit_msat: request.feeLimitMsat.toString(),
      timeout_seconds: request.timeoutSeconds,
      no_inflight_updates: false,
    };
    if (request.amountMsat !== undefined) body.amt_msat = request.amountMsat.toString();
    if (request.cltvLimit !== undefined) body.cltv_limit = request.cltvLimit;
    return this.collectFinal('POST', '/v2/router/send', body, request.onUpdate);
  }

  private follow(paymentHash: string, onUpdate?: (u: PaymentUpdate) => void): Promise<PaymentUpdate> {
    return this.collectFinal('GET', `/v2/router/track/${toUrlBytes(paymentHash)}`, undefined, onUpdate);
  }

  private async collectFinal(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    onUpdate?: (u: PaymentUpdate) => void,
  ): Promise<PaymentUpdate> {
    let final: PaymentUpdate | undefined;
    const sub = this.http.stream(method, path, body, (result) => {
      const update = paymentUpdate(result as LndPayment);
      onUpdate?.(update);
      if (update.status !== 'IN_FLIGHT') {
        final = update;
        sub.close();
      }
    });
    await sub.done;
    if (final === undefined) throw new Error('LND ended the payment stream before the payment was final');
    return final;
  }
}
