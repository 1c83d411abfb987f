// The hold plugin's gRPC service (hold.proto) on a devnet CLN node, as the plugin serves it next to lightningd:
// mTLS with the node's own CA (hold-tls.ts), a client without a certificate that CA signed is refused. Invoice,
// Inject, List, Settle and Cancel are the operations of hold.ts over the network model; Track streams an invoice's
// state (now, then each change); OnionMessages hooks the node's onion-message hooks (onion-hooks.ts): each message
// goes to every connected stream and the first answer counts — `continue` when no client is connected, none
// answers in time (the plugin's 30 s) or the streams drop. Routing hints are accepted and not encoded. Unary calls
// and Track's messages are shown to the contract observer (face `hold-grpc`).
import { readFileSync } from 'node:fs';
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { OnionHookAction, HeldOnionMessage } from '@ferry/sdk/lightning/onion-message-hook.js';
import { observeExchange } from '../../contract-observer.ts';
import { HoldService } from './hold-service.ts';
import {
  onionMessageProto,
  type HoldHop,
  type HoldInvoice,
  type HoldState,
  type InvoiceRequest,
  type ListRequest,
  type OnionMessageProto,
  type OnionMessageResponseProto,
} from '@ferry/sdk/lightning/hold/messages.js';
import type { LightningNetwork } from '../network.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import type { InvoiceRecord } from '../types.ts';
import { cancelHold, createHold, holdInvoicesOf, injectHold, settleHold } from './hold.ts';
import { HOLD_STATES, HTLC_STATES, shortChannelId } from './json.ts';
import { onionHooksOf } from './onion-hooks.ts';
import type { HoldTlsDir } from './hold-tls.ts';

export const DEVNET_HOLD_VERSION = 'v0.3.3-devnet';
const ONION_ANSWER_MS = 30_000;

export interface HoldGrpcServer {
  grpcUrl: string; // host:port
  port: number;
  close(): Promise<void>;
}

export interface HoldGrpcServerOptions {
  tls: HoldTlsDir;
  onionAnswerMs?: number; // how long a hooked onion message waits for the client's answer
}

const hex = (bytes: Buffer | undefined): string => (bytes ?? Buffer.alloc(0)).toString('hex');
const stateOf = (invoice: InvoiceRecord): HoldState => HOLD_STATES[invoice.state].toUpperCase() as HoldState;

function holdInvoiceProto(invoice: InvoiceRecord, id: number): HoldInvoice {
  return {
    id,
    payment_hash: Buffer.from(invoice.paymentHash, 'hex'),
    ...(invoice.preimage !== null && { preimage: Buffer.from(invoice.preimage, 'hex') }),
    invoice: invoice.bolt12 ?? invoice.paymentRequest,
    state: stateOf(invoice),
    created_at: invoice.creationDate,
    ...(invoice.settleDate > 0 && { settled_at: invoice.settleDate }),
    htlcs: invoice.htlcs.map((h) => ({
      id: h.htlcIndex,
      state: HTLC_STATES[h.state].toUpperCase() as HoldState,
      scid: shortChannelId(h.chanId),
      channel_id: h.htlcIndex,
      msat: h.amountMsat,
      created_at: h.acceptTime,
      cltv_expiry: h.expiryHeight,
    })),
    ...(invoice.holdMinCltv !== undefined && { min_cltv_expiry: invoice.holdMinCltv }), // the plugin's stored min_cltv
  };
}

/**
 * A unary handler: the operation's result, or its error as the plugin's INTERNAL status with the message; each call
 * is shown to the contract observer (status: the gRPC code).
 */
/** A refusal the plugin makes with its own status code (the rest are INTERNAL). */
class HoldStatusError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The plugin's transform_route_hints: every hop's key must parse as a public key (else InvalidArgument "invalid
 * routing hint: ..."); fees and the CLTV delta are cut to the widths of lightning's RouteHintHop (u32, u16).
 */
function holdRouteHints(hints: { hops: HoldHop[] }[]): RouteHintHop[][] {
  return hints.map(({ hops }) =>
    (hops ?? []).map((hop) => {
      let pubkey: string;
      try {
        pubkey = secp256k1.Point.fromHex(Buffer.from(hop.public_key ?? []).toString('hex')).toHex(true);
      } catch {
        throw new HoldStatusError(status.INVALID_ARGUMENT, 'invalid routing hint: malformed public key');
      }
      return {
        pubkey,
        shortChannelId: BigInt(hop.short_channel_id ?? 0).toString(16).padStart(16, '0'),
        feeBaseMsat: Number(BigInt(hop.base_fee ?? 0) & 0xffffffffn),
        feeProportionalMillionths: Number(BigInt(hop.ppm_fee ?? 0) & 0xffffffffn),
        cltvExpiryDelta: Number(BigInt(hop.cltv_expiry_delta ?? 0) & 0xffffn),
      };
    }),
  );
}

function unary<Req, Res>(node: string, method: string, run: (request: Req) => Res) {
  const observe = (request: Req, code: number, response: unknown) =>
    observeExchange({ face: 'hold-grpc', node, method, path: '', query: {}, request, status: code, response });
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    let result: Res;
    try {
      result = run(call.request);
    } catch (err) {
      const details = (err as Error).message;
      const code = err instanceof HoldStatusError ? err.code : status.INTERNAL;
      callback({ code, details });
      observe(call.request, code, { details });
      return;
    }
    callback(null, result);
    observe(call.request, status.OK, result);
  };
}

/** Onion messages out to the connected OnionMessages streams, and their answers back to the waiting hook. */
class OnionRelay {
  readonly streams = new Set<ServerDuplexStream<OnionMessageResponseProto, OnionMessageProto>>();
  private readonly waiting = new Map<string, (action: OnionHookAction) => void>();

  constructor(private readonly answerMs: number) {}

  attach(stream: ServerDuplexStream<OnionMessageResponseProto, OnionMessageProto>): void {
    this.streams.add(stream);
    stream.on('data', (response: OnionMessageResponseProto) => {
      const answer = this.waiting.get(String(response.id));
      answer?.(response.action === 'Resolve' ? 'resolve' : 'continue');
    });
    const gone = () => {
      this.streams.delete(stream);
      if (this.streams.size === 0) for (const answer of [...this.waiting.values()]) answer('continue');
    };
    stream.on('error', gone);
    stream.on('cancelled', gone);
    stream.on('end', () => {
      gone();
      stream.end();
    });
  }

  relay(message: HeldOnionMessage): Promise<OnionHookAction> {
    if (this.streams.size === 0) return Promise.resolve('continue');
    const id = message.id.toString();
    return new Promise<OnionHookAction>((resolve) => {
      const timer = setTimeout(() => answer('continue'), this.answerMs);
      const answer = (action: OnionHookAction) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(action);
      };
      this.waiting.set(id, answer);
      const proto = onionMessageProto(message);
      for (const stream of this.streams) stream.write(proto);
    });
  }

  close(): void {
    for (const answer of [...this.waiting.values()]) answer('continue');
    for (const stream of this.streams) stream.end();
  }
}

type Tracker = (invoice: InvoiceRecord) => void;

/**
 * The node's Track streams by payment hash: an invoice's change reaches its own streams only (one per pending
 * reverse swap of Ferry's), not every open stream, so a change costs the same with thousands open.
 */
class Trackers {
  private readonly byHash = new Map<string, Set<Tracker>>();

  add(hash: string, tracker: Tracker): () => void {
    let set = this.byHash.get(hash);
    if (set === undefined) this.byHash.set(hash, (set = new Set()));
    set.add(tracker);
    return () => {
      set.delete(tracker);
      if (set.size === 0 && this.byHash.get(hash) === set) this.byHash.delete(hash);
    };
  }

  notify(invoice: InvoiceRecord): void {
    const set = this.byHash.get(invoice.paymentHash);
    if (set !== undefined) for (const tracker of [...set]) tracker(invoice);
  }

  clear(): void {
    this.byHash.clear();
  }
}

function service(network: LightningNetwork, node: string, relay: OnionRelay, trackers: Trackers): UntypedServiceImplementation {
  return {
    GetInfo: unary(node, 'GetInfo', () => ({ version: DEVNET_HOLD_VERSION })),
    Invoice: unary(node, 'Invoice', (request: InvoiceRequest) => ({
      bolt11: createHold(network, node, {
        paymentHash: hex(request.payment_hash),
        amountMsat: Number(request.amount_msat),
        memo: request.description === 'memo' ? request.memo : undefined,
        descriptionHash: request.description === 'hash' ? hex(request.hash) : undefined,
        expiry: request.expiry === undefined ? undefined : Number(request.expiry),
        minFinalCltvExpiry: request.min_final_cltv_expiry === undefined ? undefined : Number(request.min_final_cltv_expiry),
        routeHints: holdRouteHints(request.routing_hints ?? []),
      }),
    })),
    Inject: unary(node, 'Inject', (request: { invoice: string; min_cltv_expiry?: string }) => {
      injectHold(network, node, request.invoice, request.min_cltv_expiry === undefined ? undefined : Number(request.min_cltv_expiry));
      return {};
    }),
    List: unary(node, 'List', (request: ListRequest) => {
      let found = holdInvoicesOf(network, node, request.payment_hash && hex(request.payment_hash));
      if (request.pagination !== undefined) {
        const start = Number(request.pagination.index_start);
        found = found.filter(({ id }) => id >= start).slice(0, Number(request.pagination.limit));
      }
      return { invoices: found.map(({ invoice, id }) => holdInvoiceProto(invoice, id)) };
    }),
    Settle: unary(node, 'Settle', (request: { payment_preimage: Buffer }) => {
      settleHold(network, node, hex(request.payment_preimage));
      return {};
    }),
    Cancel: unary(node, 'Cancel', (request: { payment_hash: Buffer }) => {
      cancelHold(network, node, hex(request.payment_hash));
      return {};
    }),
    Track: (call: ServerWritableStream<{ payment_hash: Buffer }, { state: HoldState }>) => {
      const hash = hex(call.request.payment_hash);
      let last: HoldState | undefined;
      const send = (invoice: InvoiceRecord) => {
        if (invoice.node !== node || invoice.paymentHash !== hash || !invoice.hold || stateOf(invoice) === last) return;
        last = stateOf(invoice);
        call.write({ state: last });
        observeExchange({ face: 'hold-grpc', node, method: 'Track', path: '', query: {}, request: call.request, status: status.OK, response: { state: last }, stream: true });
      };
      const current = network.findInvoice(node, hash);
      if (current !== undefined) send(current);
      const stop = trackers.add(hash, send);
      call.on('cancelled', stop);
      call.on('error', stop);
      call.on('close', stop);
    },
    OnionMessages: (stream: ServerDuplexStream<OnionMessageResponseProto, OnionMessageProto>) => relay.attach(stream),
  };
}

export async function startHoldGrpcServer(
  network: LightningNetwork,
  node: string,
  host: string,
  port: number,
  options: HoldGrpcServerOptions,
): Promise<HoldGrpcServer> {
  const { tls } = options;
  const credentials = ServerCredentials.createSsl(
    readFileSync(tls.caCert),
    [{ private_key: readFileSync(tls.serverKey), cert_chain: readFileSync(tls.serverCert) }],
    true, // clients must present a certificate the CA signed
  );
  const relay = new OnionRelay(options.onionAnswerMs ?? ONION_ANSWER_MS);
  // One listener on the network for all Track streams of this node.
  const trackers = new Trackers();
  const track = (invoice: InvoiceRecord) => trackers.notify(invoice);
  const server = new Server();
  server.addService(HoldService.service, service(network, node, relay, trackers));
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, credentials, (err, actual) => (err ? reject(err) : resolve(actual))),
  );
  network.on('invoice', track);
  const unhook = onionHooksOf(network, node).onMessage((message) => relay.relay(message));
  return {
    grpcUrl: `${host}:${bound}`,
    port: bound,
    close: async () => {
      unhook();
      network.off('invoice', track);
      trackers.clear();
      relay.close();
      server.forceShutdown(); // open Track and OnionMessages streams end with the node
    },
  };
}
