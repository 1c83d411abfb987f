// A client of the hold plugin's gRPC service (hold.proto), as the reference backend talks to it: mTLS with the
// plugin's CA and client certificate, the server named `hold` (its certificate's name, whatever host it is reached
// at). Hashes and preimages are hex here and bytes on the wire; amounts are bigint msat.
import { credentials, Metadata, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import type { Subscription } from '../../backend.ts';
import type { HoldTls } from './credentials.ts';
import { HoldService, type HoldHop, type HoldInvoice, type HoldState, type InvoiceRequest, type ListRequest } from './proto.ts';

export interface HoldGrpcOptions {
  url: string; // host:port of the plugin's gRPC (hold-grpc-host, hold-grpc-port)
  tls: HoldTls;
  timeoutMs?: number;
}

export interface HoldRouteHop {
  publicKey: string; // hex
  shortChannelId: bigint;
  baseFeeMsat: bigint;
  ppmFee: bigint;
  cltvExpiryDelta: number;
}

export interface HoldInvoiceParams {
  paymentHash: string;
  amountMsat: bigint;
  memo?: string;
  descriptionHash?: string; // hex; instead of memo
  expirySeconds?: number;
  minFinalCltvExpiry?: number;
  routingHints?: HoldRouteHop[][];
}

/** A refusal by the plugin (a gRPC status other than OK), with its code. */
export class HoldGrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'HoldGrpcError';
  }
}

const bytes = (hex: string): Buffer => Buffer.from(hex, 'hex');
const holdError = (err: ServiceError): HoldGrpcError => new HoldGrpcError(err.code, err.details || err.message);

type Unary = (request: unknown, metadata: Metadata, options: { deadline: Date }, callback: (err: ServiceError | null, res: unknown) => void) => void;

export class HoldGrpcClient {
  /** The generated client; the onion-message stream opens its own calls on it. */
  readonly raw: Client;
  private readonly timeoutMs: number;

  constructor(options: HoldGrpcOptions) {
    const { ca, key, cert } = options.tls;
    this.raw = new HoldService(options.url, credentials.createSsl(ca, key, cert), {
      'grpc.ssl_target_name_override': 'hold',
      'grpc.default_authority': 'hold',
      // a restarted plugin is found again within seconds, not grpc's two minutes
      'grpc.initial_reconnect_backoff_ms': 500,
      'grpc.max_reconnect_backoff_ms': 10_000,
    });
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private call<T>(method: string, request: object): Promise<T> {
    const fn = (this.raw as unknown as Record<string, Unary>)[method].bind(this.raw);
    return new Promise<T>((resolve, reject) => {
      fn(request, new Metadata(), { deadline: new Date(Date.now() + this.timeoutMs) }, (err, res) => {
        if (err) reject(holdError(err));
        else resolve(res as T);
      });
    });
  }

  async getInfo(): Promise<{ version: string }> {
    return this.call('GetInfo', {});
  }

  async invoice(params: HoldInvoiceParams): Promise<string> {
    const request: InvoiceRequest = {
      payment_hash: bytes(params.paymentHash),
      amount_msat: params.amountMsat.toString(),
      ...(params.descriptionHash !== undefined ? { hash: bytes(params.descriptionHash) } : { memo: params.memo ?? '' }),
      ...(params.expirySeconds !== undefined && { expiry: params.expirySeconds }),
      ...(params.minFinalCltvExpiry !== undefined && { min_final_cltv_expiry: params.minFinalCltvExpiry }),
      routing_hints: (params.routingHints ?? []).map((hops) => ({
        hops: hops.map(
          (hop): HoldHop => ({
            public_key: bytes(hop.publicKey),
            short_channel_id: hop.shortChannelId.toString(),
            base_fee: hop.baseFeeMsat.toString(),
            ppm_fee: hop.ppmFee.toString(),
            cltv_expiry_delta: hop.cltvExpiryDelta,
          }),
        ),
      })),
    };
    const { bolt11 } = await this.call<{ bolt11: string }>('Invoice', request);
    return bolt11;
  }

  async inject(invoice: string, minCltvExpiry?: number): Promise<void> {
    await this.call('Inject', { invoice, ...(minCltvExpiry !== undefined && { min_cltv_expiry: minCltvExpiry }) });
  }

  /** The invoice of a payment hash (zero or one), or all of them. */
  async list(paymentHash?: string): Promise<HoldInvoice[]> {
    const request: ListRequest = paymentHash === undefined ? {} : { payment_hash: bytes(paymentHash) };
    const { invoices } = await this.call<{ invoices: HoldInvoice[] }>('List', request);
    return invoices;
  }

  async settle(preimage: string): Promise<void> {
    await this.call('Settle', { payment_preimage: bytes(preimage) });
  }

  async cancel(paymentHash: string): Promise<void> {
    await this.call('Cancel', { payment_hash: bytes(paymentHash) });
  }

  /** Reports the invoice's state now (when it exists) and every change; `done` rejects when the stream fails. */
  track(paymentHash: string, onState: (state: HoldState) => void): Subscription {
    const stream = (this.raw as unknown as { Track(req: object): ClientReadableStream<{ state: HoldState }> }).Track({
      payment_hash: bytes(paymentHash),
    });
    let closed = false;
    const done = new Promise<void>((resolve, reject) => {
      stream.on('data', (message: { state: HoldState }) => {
        if (!closed) onState(message.state);
      });
      stream.on('end', () => resolve());
      stream.on('error', (err: ServiceError) => (closed ? resolve() : reject(holdError(err))));
    });
    return {
      close: () => {
        closed = true;
        stream.cancel();
      },
      done,
    };
  }

  close(): void {
    this.raw.close();
  }
}
