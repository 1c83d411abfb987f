// The devnet's Lightning nodes as `ferry devnet <tool>` reaches them: plain HTTP to the faces devnet.json lists, as
// any other client of the real daemons would talk to them — LND's REST gateway (the macaroon in the
// Grpc-Metadata-macaroon header; server streams as newline-delimited JSON) and Core Lightning's clnrest (the rune in
// the Rune header; `POST /v1/<method>`). Payments are reported in one shape for both, LND's: a status, and for a
// failed one LND's FAILURE_REASON_* name (CLN's pay error codes mapped to them).
import { FAILURE_BY_CODE, PAY_IN_PROGRESS } from '@ferry/sdk/lightning/cln-pay-failures.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { bolt12AsInvoice, isBolt12Invoice } from '@ferry/sdk/lightning/bolt12/payable.js';
import type { ClnNodeInfo, LightningNodeInfo } from '../lightning/index.ts';

/** A payment as the `pay` tool prints it. */
export interface PaymentResult {
  status: 'SUCCEEDED' | 'FAILED' | 'IN_FLIGHT';
  paymentHash: string;
  preimage: string | undefined;
  feeMsat: number;
  failureReason: string | undefined;
}

/** What a devnet payment may cost in fees, and how long it may keep trying. */
const FEE_LIMIT_MSAT = 10_000_000;
const PAY_TIMEOUT_SECONDS = 60;

/** An answer of a node that is no answer to the call: its message (LND's `message`, lightningd's error). */
export class NodeError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

async function errorOf(response: Response): Promise<NodeError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { code?: number; message?: string; error?: string | { code?: number; message?: string } };
    const inner = typeof body.error === 'object' ? body.error : body;
    return new NodeError(response.status, inner.code, inner.message ?? (typeof body.error === 'string' ? body.error : String(response.status)));
  } catch {
    return new NodeError(response.status, undefined, text || `HTTP ${response.status}`);
  }
}

const lndRequest = (node: LightningNodeInfo, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(node.restUrl + path, {
    method,
    headers: { 'Grpc-Metadata-macaroon': node.macaroon, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A unary LND REST call; a refusal throws the node's message. */
export async function lndCall<T>(node: LightningNodeInfo, method: string, path: string, body?: unknown): Promise<T> {
  const response = await lndRequest(node, method, path, body);
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** A clnrest call: lightningd's method with its named parameters. */
export async function clnCall<T>(node: ClnNodeInfo, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(new URL(`/v1/${method}`, node.restUrl), {
    method: 'POST',
    headers: { Rune: node.rune, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

interface LndPayment {
  payment_hash: string;
  status: string;
  payment_preimage?: string;
  fee_msat?: string;
  failure_reason?: string;
}

function lndPaymentResult(payment: LndPayment): PaymentResult {
  // INITIATED (LND 0.18+): registered, no HTLC sent yet; in flight as far as the caller can tell.
  const status = payment.status === 'SUCCEEDED' || payment.status === 'FAILED' ? payment.status : 'IN_FLIGHT';
  const preimage = payment.payment_preimage ?? '';
  return {
    status,
    paymentHash: payment.payment_hash,
    preimage: status === 'SUCCEEDED' && preimage !== '' && !/^0+$/.test(preimage) ? preimage : undefined,
    feeMsat: Number(payment.fee_msat ?? '0'),
    failureReason: status === 'FAILED' ? payment.failure_reason : undefined,
  };
}

/** The lines of a server stream, each one JSON message: `{"result": ...}` or, ending it, `{"error": ...}`. */
async function* streamLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') yield line;
    }
  }
  if (buffer.trim() !== '') yield buffer.trim();
}

/**
 * Follows an LND payment stream (SendPaymentV2 or TrackPaymentV2) to its final update; `undefined` when the node
 * has no such payment (TrackPaymentV2's NOT_FOUND). A payment already final is returned as the first update says.
 */
async function lndPaymentStream(node: LightningNodeInfo, method: string, path: string, body?: unknown): Promise<{ first: PaymentResult; final: PaymentResult } | undefined> {
  const response = await lndRequest(node, method, path, body);
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.code === 5 || error.httpStatus === 404) return undefined;
    throw error;
  }
  let first: PaymentResult | undefined;
  for await (const line of streamLines(response.body!)) {
    const message = JSON.parse(line) as { result?: LndPayment; error?: { code?: number; message?: string } };
    if (message.error !== undefined) {
      if (message.error.code === 5) return undefined;
      throw new NodeError(response.status, message.error.code, message.error.message ?? line);
    }
    const update = lndPaymentResult(message.result!);
    first ??= update;
    if (update.status !== 'IN_FLIGHT') return { first, final: update }; // leaving the loop closes the stream
  }
  throw new Error('LND ended the payment stream before the payment was final');
}

// A bytes field in a URL path, as LND's gateway reads it: URL-safe base64 with its padding, percent-encoded.
const urlBytes = (hex: string): string => encodeURIComponent(Buffer.from(hex, 'hex').toString('base64').replace(/\+/g, '-').replace(/\//g, '_'));

/** Pays from an LND node: a payment it made already is followed to its end (and never made twice), unless it failed. */
export async function lndPay(node: LightningNodeInfo, invoice: string): Promise<PaymentResult> {
  const { paymentHash } = decodeBolt11(invoice);
  const existing = await lndPaymentStream(node, 'GET', `/v2/router/track/${urlBytes(paymentHash)}`);
  if (existing !== undefined && existing.first.status !== 'FAILED') return existing.final;
  const sent = await lndPaymentStream(node, 'POST', '/v2/router/send', {
    payment_request: invoice,
    fee_limit_msat: String(FEE_LIMIT_MSAT),
    timeout_seconds: PAY_TIMEOUT_SECONDS,
    no_inflight_updates: false,
  });
  if (sent === undefined) throw new Error('LND answered the payment with NOT_FOUND');
  return sent.final;
}

const PENDING_POLL_MS = 200;

/**
 * Pays from a CLN node: `pay` answers once the payment is final (an invoice paid already: the earlier success). While
 * an earlier `pay` of the invoice is in flight it refuses with 200; then its parts are waited for in listsendpays and
 * the invoice is paid again, which answers that payment's end.
 */
export async function clnPay(node: ClnNodeInfo, invoice: string): Promise<PaymentResult> {
  const paymentHash = (isBolt12Invoice(invoice) ? bolt12AsInvoice(invoice) : decodeBolt11(invoice)).paymentHash;
  for (;;) {
    try {
      const paid = await clnCall<{ payment_hash: string; payment_preimage: string; amount_msat: number; amount_sent_msat: number }>(node, 'pay', {
        bolt11: invoice,
        maxfee: FEE_LIMIT_MSAT,
        retry_for: PAY_TIMEOUT_SECONDS,
      });
      return { status: 'SUCCEEDED', paymentHash, preimage: paid.payment_preimage, feeMsat: paid.amount_sent_msat - paid.amount_msat, failureReason: undefined };
    } catch (error) {
      const code = error instanceof NodeError ? error.code : undefined;
      if (code === undefined) throw error;
      if (code !== PAY_IN_PROGRESS) return { status: 'FAILED', paymentHash, preimage: undefined, feeMsat: 0, failureReason: FAILURE_BY_CODE[code] ?? 'FAILURE_REASON_ERROR' };
    }
    for (;;) {
      const { payments } = await clnCall<{ payments: { status: string }[] }>(node, 'listsendpays', { payment_hash: paymentHash });
      if (!payments.some((p) => p.status === 'pending')) break;
      await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
    }
  }
}
