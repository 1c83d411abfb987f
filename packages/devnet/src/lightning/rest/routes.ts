// The LND REST calls the devnet serves, each mapped onto the network. Each route names LND's path template, the
// path and query parameters it reads with their kinds (decoded as the gateway does, bytes into hex) and the
// request message of its body (decoded by protojson.ts); server.ts does the decoding before the handler runs.
import { createHash } from 'node:crypto';
import { GRPC, LndError, paymentNotFound } from '../errors.ts';
import type { LightningNetwork } from '../network.ts';
import type { PaymentRecord } from '../types.ts';
import {
  b64,
  channelEdgeJson,
  channelJson,
  invoiceJson,
  lightningNodeJson,
  payReqJson,
  paymentJson,
  routeJson,
} from './json.ts';
import { boolField, bytesField, hash32, intField, stringField, type Body, type ParamKind } from './request.ts';
import type { Handler, RestContext, StreamWriter } from './server.ts';
import { MACAROON_ROUTES } from './macaroon-routes.ts';
import { routeHintsField } from './route-hints.ts';

// The devnet answers in the shapes of LND v0.20.3 (its REST swagger is what the contract tests hold it to).
export const DEVNET_LND_VERSION = '0.20.3-beta devnet';

const unary = (run: (ctx: RestContext) => unknown): Handler => ({ kind: 'unary', run });

/** One operation: LND's method and path template (`{name}` a path parameter), what it reads and its handler. */
export interface Route {
  method: string;
  path: string;
  params?: Record<string, ParamKind>; // path and query parameters read, by name
  body?: string; // the request message (MESSAGES in messages.ts) of a body-taking operation
  handler: Handler;
}
const stream = (run: (ctx: RestContext, out: StreamWriter) => Promise<void>): Handler => ({ kind: 'stream', run });

const msatAmount = (body: Body, satName: string, msatName: string): number => {
  const satValue = intField(body, satName);
  const msatValue = intField(body, msatName);
  if (satValue !== 0 && msatValue !== 0) {
    throw new LndError(GRPC.INVALID_ARGUMENT, `${satName} and ${msatName} are mutually exclusive`);
  }
  if (satValue < 0 || msatValue < 0) throw new LndError(GRPC.INVALID_ARGUMENT, 'amount cannot be negative');
  return msatValue !== 0 ? msatValue : satValue * 1000;
};

// AddInvoice / AddHoldInvoice take a description hash of exactly 32 bytes when one is given.
function descriptionHash(body: Body): string {
  const hex = bytesField(body, 'description_hash');
  if (hex !== '' && hex.length !== 64) {
    throw new LndError(GRPC.UNKNOWN, `description hash is ${hex.length / 2} bytes, must be 32`);
  }
  return hex;
}

const TERMINAL = new Set(['SUCCEEDED', 'FAILED']);

// Follows one payment until it is final or the client leaves; messages are serialised when the change
// happens, so no intermediate state is lost.
async function followPayment(
  network: LightningNetwork,
  node: string,
  start: () => PaymentRecord,
  out: StreamWriter,
  noInflightUpdates: boolean,
): Promise<void> {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let hash = '';
  const forward = (p: PaymentRecord): void => {
    if (p.node !== node || (hash !== '' && p.paymentHash !== hash)) return;
    if (!(noInflightUpdates && p.status === 'IN_FLIGHT')) out.send(paymentJson(p));
    if (TERMINAL.has(p.status)) finish();
  };
  const pending: PaymentRecord[] = [];
  const collect = (p: PaymentRecord): void => {
    if (p.node === node) pending.push(structuredClone(p));
  };
  network.on('payment', collect);
  let payment: PaymentRecord;
  try {
    payment = start();
  } finally {
    network.off('payment', collect);
  }
  hash = payment.paymentHash;
  const replay = pending.filter((p) => p.paymentHash === hash);
  if (replay.length === 0) replay.push(structuredClone(payment));
  for (const p of replay) forward(p);
  if (TERMINAL.has(payment.status)) return;
  network.on('payment', forward);
  try {
    await Promise.race([done, out.closed]);
  } finally {
    network.off('payment', forward);
  }
}

function defaultFeeLimitMsat(amountMsat: number): number {
  // LND's default when no limit is given: 100% for amounts up to 1000 sat, 5% above.
  return amountMsat <= 1_000_000 ? amountMsat : Math.floor(amountMsat * 0.05);
}

const FAILURE_MESSAGES: Record<string, string> = {
  FAILURE_REASON_NO_ROUTE: 'unable to find a path to destination',
  FAILURE_REASON_INCORRECT_PAYMENT_DETAILS: 'incorrect_or_unknown_payment_details',
  FAILURE_REASON_INSUFFICIENT_BALANCE: 'insufficient local balance',
  FAILURE_REASON_TIMEOUT: 'payment attempt not completed before timeout',
  FAILURE_REASON_ERROR: 'payment failed',
};

const sat = (msat: number): string => Math.floor(msat / 1000).toString();

export const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/v1/getinfo',
    handler: unary(({ network, node }) => {
      const me = network.node(node);
      const channels = network.channelsOf(node);
      const peers = new Set(channels.map((c) => (c.nodeA === node ? c.nodeB : c.nodeA)));
      return {
        version: DEVNET_LND_VERSION,
        commit_hash: '',
        identity_pubkey: me.pubkey,
        alias: me.name,
        color: me.color,
        num_pending_channels: 0,
        num_active_channels: channels.length,
        num_inactive_channels: 0,
        num_peers: peers.size,
        block_height: network.height,
        block_hash: createHash('sha256').update(`devnet-lightning-block:${network.height}`).digest('hex'),
        best_header_timestamp: Math.floor(Date.now() / 1000).toString(),
        synced_to_chain: true,
        synced_to_graph: true,
        testnet: false,
        chains: [{ chain: 'bitcoin', network: 'regtest' }],
        uris: me.restPort === 0 ? [] : [`${me.pubkey}@127.0.0.1:${me.restPort}`],
        features: {},
        require_htlc_interceptor: false,
        store_final_htlc_resolutions: false,
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/channels',
    params: { private_only: 'bool', public_only: 'bool' },
    handler: unary(({ network, node, args }) => {
      const privateOnly = args.private_only === 'true';
      const publicOnly = args.public_only === 'true';
      if (privateOnly && publicOnly) throw new LndError(GRPC.INVALID_ARGUMENT, 'either public_only or private_only can be set');
      const channels = network.channelsOf(node).filter((c) => (privateOnly ? c.private === true : publicOnly ? c.private !== true : true));
      return { channels: channels.map((c) => channelJson(c, node, network)) };
    }),
  },
  {
    method: 'GET',
    path: '/v1/balance/channels',
    handler: unary(({ network, node }) => {
      let local = 0;
      let remote = 0;
      let unsettledLocal = 0;
      let unsettledRemote = 0;
      for (const c of network.channelsOf(node)) {
        local += c.nodeA === node ? c.balanceAMsat : c.balanceBMsat;
        remote += c.nodeA === node ? c.balanceBMsat : c.balanceAMsat;
        for (const h of c.htlcs) {
          if (h.fromNode === node) unsettledLocal += h.amountMsat;
          else unsettledRemote += h.amountMsat;
        }
      }
      const amount = (msat: number) => ({ sat: sat(msat), msat: msat.toString() });
      return {
        balance: sat(local),
        pending_open_balance: '0',
        local_balance: amount(local),
        remote_balance: amount(remote),
        unsettled_local_balance: amount(unsettledLocal),
        unsettled_remote_balance: amount(unsettledRemote),
        pending_open_local_balance: amount(0),
        pending_open_remote_balance: amount(0),
        custom_channel_data: '',
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/graph/info',
    handler: unary(({ network }) => {
      const sizes = network.channels.map((c) => c.capacitySat).sort((a, b) => a - b);
      const total = sizes.reduce((a, b) => a + b, 0);
      const degree = (name: string) => network.channelsOf(name).length;
      const degrees = network.nodes.map((n) => degree(n.name));
      return {
        graph_diameter: 0,
        avg_out_degree: degrees.length === 0 ? 0 : degrees.reduce((a, b) => a + b, 0) / degrees.length,
        max_out_degree: Math.max(0, ...degrees),
        num_nodes: network.nodes.length,
        num_channels: sizes.length,
        total_network_capacity: total.toString(),
        avg_channel_size: sizes.length === 0 ? 0 : total / sizes.length,
        min_channel_size: (sizes[0] ?? 0).toString(),
        max_channel_size: (sizes[sizes.length - 1] ?? 0).toString(),
        median_channel_size_sat: (sizes[Math.floor(sizes.length / 2)] ?? 0).toString(),
        num_zombie_chans: '0',
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/graph/node/{pub_key}',
    params: { pub_key: 'string', include_channels: 'bool' },
    handler: unary(({ network, args }) => {
      const node = network.nodeByPubkey((args.pub_key ?? '').toLowerCase());
      if (node === undefined) throw new LndError(GRPC.NOT_FOUND, 'unable to find node');
      const channels = network.channelsOf(node.name);
      return {
        node: lightningNodeJson(node),
        num_channels: channels.length,
        total_capacity: channels.reduce((s, c) => s + c.capacitySat, 0).toString(),
        channels: args.include_channels === 'true' ? channels.map((c) => channelEdgeJson(c, network)) : [],
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/graph/edge/{chan_id}',
    params: { chan_id: 'uint64' },
    handler: unary(({ network, args }) => {
      const channel = network.channels.find((c) => c.chanId === args.chan_id);
      if (channel === undefined) throw new LndError(GRPC.NOT_FOUND, 'edge not found');
      return channelEdgeJson(channel, network);
    }),
  },
  {
    method: 'GET',
    path: '/v1/graph',
    handler: unary(({ network }) => ({
      nodes: network.nodes.map(lightningNodeJson),
      edges: network.channels.map((c) => channelEdgeJson(c, network)),
    })),
  },
  {
    method: 'POST',
    path: '/v1/invoices',
    body: 'lnrpcInvoice',
    handler: unary(({ network, node, body }) => {
      const preimageHex = bytesField(body, 'r_preimage');
      const preimage = preimageHex === '' ? '' : hash32(preimageHex, 'preimage');
      const invoice = network.addInvoice(node, {
        preimage: preimage === '' ? undefined : preimage,
        valueMsat: msatAmount(body, 'value', 'value_msat'),
        memo: stringField(body, 'memo'),
        descriptionHash: descriptionHash(body) || undefined,
        expiry: intField(body, 'expiry'),
        cltvExpiry: intField(body, 'cltv_expiry'),
        private: boolField(body, 'private'),
      });
      return {
        r_hash: b64(invoice.paymentHash),
        payment_request: invoice.paymentRequest,
        add_index: invoice.addIndex.toString(),
        payment_addr: b64(invoice.paymentAddr),
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/invoices',
    params: { pending_only: 'bool', index_offset: 'uint64', num_max_invoices: 'uint64', reversed: 'bool' },
    // ListInvoices: pages by add_index; index_offset is exclusive, and reversed pages end just before it (the
    // newest when 0). A page is always in ascending add_index order; pending_only keeps OPEN and ACCEPTED.
    handler: unary(({ network, node, args }) => {
      const offset = Number(args.index_offset ?? '0');
      const max = Number(args.num_max_invoices ?? '0') || 100;
      const pendingOnly = args.pending_only === 'true';
      const candidates = network
        .listInvoices(node)
        .filter((i) => !pendingOnly || i.state === 'OPEN' || i.state === 'ACCEPTED')
        .sort((a, b) => a.addIndex - b.addIndex);
      const page =
        args.reversed === 'true'
          ? candidates.filter((i) => offset === 0 || i.addIndex < offset).slice(-max)
          : candidates.filter((i) => i.addIndex > offset).slice(0, max);
      return {
        invoices: page.map(invoiceJson),
        first_index_offset: String(page[0]?.addIndex ?? 0),
        last_index_offset: String(page[page.length - 1]?.addIndex ?? 0),
      };
    }),
  },
  {
    method: 'GET',
    path: '/v1/invoice/{r_hash_str}',
    params: { r_hash_str: 'string' },
    handler: unary(({ network, node, args }) => {
      if (!/^[0-9a-fA-F]{64}$/.test(args.r_hash_str ?? '')) throw new LndError(GRPC.INVALID_ARGUMENT, 'invalid hash');
      return invoiceJson(network.lookupInvoice(node, (args.r_hash_str ?? '').toLowerCase()));
    }),
  },
  {
    method: 'GET',
    path: '/v1/payreq/{pay_req}',
    params: { pay_req: 'string' },
    handler: unary(({ network, args }) => payReqJson(network.decodePaymentRequest(args.pay_req ?? ''))),
  },
  {
    method: 'POST',
    path: '/v2/invoices/hodl',
    body: 'invoicesrpcAddHoldInvoiceRequest',
    handler: unary(({ network, node, body }) => {
      const hash = hash32(bytesField(body, 'hash'));
      const invoice = network.addHoldInvoice(node, hash, {
        valueMsat: msatAmount(body, 'value', 'value_msat'),
        memo: stringField(body, 'memo'),
        descriptionHash: descriptionHash(body) || undefined,
        expiry: intField(body, 'expiry'),
        cltvExpiry: intField(body, 'cltv_expiry'),
        private: boolField(body, 'private'),
        routeHints: routeHintsField(body, 'route_hints'),
      });
      return {
        payment_request: invoice.paymentRequest,
        add_index: invoice.addIndex.toString(),
        payment_addr: b64(invoice.paymentAddr),
      };
    }),
  },
  {
    method: 'POST',
    path: '/v2/invoices/settle',
    body: 'invoicesrpcSettleInvoiceMsg',
    handler: unary(({ network, node, body }) => {
      const preimage = hash32(bytesField(body, 'preimage'), 'preimage');
      network.settleInvoice(node, preimage);
      return {};
    }),
  },
  {
    method: 'POST',
    path: '/v2/invoices/cancel',
    body: 'invoicesrpcCancelInvoiceMsg',
    handler: unary(({ network, node, body }) => {
      const hash = hash32(bytesField(body, 'payment_hash'));
      network.cancelInvoice(node, hash);
      return {};
    }),
  },
  {
    method: 'GET',
    path: '/v2/invoices/lookup',
    params: { payment_hash: 'bytes' },
    handler: unary(({ network, node, args }) => {
      const hash = args.payment_hash ?? '';
      if (hash === '') throw new LndError(GRPC.INVALID_ARGUMENT, 'payment_hash must be specified');
      if (hash.length !== 64) {
        throw new LndError(GRPC.INVALID_ARGUMENT, `unable to parse pay hash: invalid hash length of ${hash.length / 2}, want 32`);
      }
      return invoiceJson(network.lookupInvoice(node, hash));
    }),
  },
  {
    method: 'GET',
    path: '/v2/invoices/subscribe/{r_hash}',
    params: { r_hash: 'bytes' },
    handler: stream(async ({ network, node, args }, out) => {
      const hash = hash32(args.r_hash ?? '');
      const stop = network.watchInvoice(node, hash, () => out.send(invoiceJson(network.lookupInvoice(node, hash))));
      try {
        // LND sends the current state first; for an invoice not yet added it sends nothing, and waits.
        if (network.findInvoice(node, hash) !== undefined) out.send(invoiceJson(network.lookupInvoice(node, hash)));
        await out.closed;
      } finally {
        stop();
      }
    }),
  },
  {
    method: 'POST',
    path: '/v2/router/send',
    body: 'routerrpcSendPaymentRequest',
    handler: stream(async ({ network, node, body }, out) => {
      const paymentRequest = stringField(body, 'payment_request');
      if (paymentRequest === '') throw new LndError(GRPC.INVALID_ARGUMENT, 'payment_request must be specified');
      if (intField(body, 'timeout_seconds') <= 0) {
        throw new LndError(GRPC.UNKNOWN, 'timeout_seconds must be specified');
      }
      const amountMsat = msatAmount(body, 'amt', 'amt_msat');
      const feeLimitMsat = msatAmount(body, 'fee_limit_sat', 'fee_limit_msat');
      await followPayment(
        network,
        node,
        () =>
          network.sendPayment(node, {
            paymentRequest,
            amountMsat: amountMsat === 0 ? undefined : amountMsat,
            feeLimitMsat,
            cltvLimit: intField(body, 'cltv_limit'),
          }),
        out,
        boolField(body, 'no_inflight_updates'),
      );
    }),
  },
  {
    method: 'GET',
    path: '/v1/payments',
    params: { include_incomplete: 'bool' },
    // ListPayments: completed payments by default, in-flight ones too with include_incomplete=true.
    handler: unary(({ network, node, args }) => {
      const incomplete = args.include_incomplete === 'true';
      const payments = network
        .listPayments(node)
        .filter((p) => incomplete || p.status !== 'IN_FLIGHT')
        .sort((a, b) => a.paymentIndex - b.paymentIndex);
      return {
        payments: payments.map(paymentJson),
        first_index_offset: String(payments[0]?.paymentIndex ?? 0),
        last_index_offset: String(payments[payments.length - 1]?.paymentIndex ?? 0),
        total_num_payments: String(payments.length),
      };
    }),
  },
  {
    method: 'GET',
    path: '/v2/router/track/{payment_hash}',
    params: { payment_hash: 'bytes', no_inflight_updates: 'bool' },
    handler: stream(async ({ network, node, args }, out) => {
      const hash = hash32(args.payment_hash ?? '');
      await followPayment(
        network,
        node,
        () => {
          const payment = network.lookupPayment(node, hash);
          if (payment === undefined) throw paymentNotFound();
          return payment;
        },
        out,
        args.no_inflight_updates === 'true',
      );
    }),
  },
  {
    method: 'POST',
    path: '/v1/channels/transactions',
    body: 'lnrpcSendRequest',
    handler: unary(async ({ network, node, body }) => {
      const paymentRequest = stringField(body, 'payment_request');
      if (paymentRequest === '') throw new LndError(GRPC.INVALID_ARGUMENT, 'payment_request must be specified');
      const amountMsat = msatAmount(body, 'amt', 'amt_msat');
      const decoded = network.decodePaymentRequest(paymentRequest);
      const payAmount = decoded.amountMsat === undefined ? amountMsat : Number(decoded.amountMsat);
      const limit = (body.fee_limit ?? {}) as Body;
      const fixed = msatAmount(limit, 'fixed', 'fixed_msat');
      const percent = intField(limit, 'percent');
      const feeLimitMsat =
        fixed > 0 ? fixed : percent > 0 ? Math.floor((payAmount * percent) / 100) : defaultFeeLimitMsat(payAmount);
      let last: PaymentRecord | undefined;
      const out: StreamWriter = { send: () => {}, closed: new Promise<void>(() => {}) };
      await followPayment(
        network,
        node,
        () => {
          last = network.sendPayment(node, {
            paymentRequest,
            amountMsat: amountMsat === 0 ? undefined : amountMsat,
            feeLimitMsat,
          });
          return last;
        },
        out,
        true,
      );
      const payment = network.lookupPayment(node, decoded.paymentHash) ?? last!;
      return {
        payment_error: payment.status === 'SUCCEEDED' ? '' : FAILURE_MESSAGES[payment.failureReason] ?? 'payment failed',
        payment_preimage: payment.preimage === null ? '' : b64(payment.preimage),
        payment_route: payment.status === 'SUCCEEDED' ? routeJson(payment) : null,
        payment_hash: b64(payment.paymentHash),
      };
    }),
  },
  ...MACAROON_ROUTES,
];

export interface RouteMatch {
  route: Route;
  path: Record<string, string>; // the path parameters as the URL gave them (percent-decoded)
}

// grpc-gateway's routing (legacy unescaping, as LND configures it): the whole path is percent-decoded, then split
// on '/', and each `{name}` takes one segment. A path served under another method only is "method not allowed".
export function matchRoute(method: string, pathname: string): RouteMatch | 'method-not-allowed' | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const segments = decoded.split('/');
  let otherMethod = false;
  for (const route of ROUTES) {
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const path: Record<string, string> = {};
    const fits = template.every((part, i) => {
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segments[i];
      path[name] = segments[i];
      return true;
    });
    if (!fits) continue;
    if (route.method === method) return { route, path };
    otherMethod = true;
  }
  return otherMethod ? 'method-not-allowed' : undefined;
}
