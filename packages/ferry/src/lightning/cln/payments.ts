// Paying over Core Lightning: `pay` blocks until the payment is final (a payee's hold invoice keeps it open),
// so the adapter also reads `listsendpays` — to find a payment a crash left behind (never paying twice) and to
// follow one whose `pay` call ended early. In current CLN `pay` is handled by xpay (xpay-handle-pay): it refuses
// before sending anything — no route (205, 215), too expensive (206), expired (207), bad parameters (-32602) — and
// then records no sendpay; each part it does send (injectpaymentonion) is recorded. So a `pay` error with a code and
// nothing in listsendpays is a payment that failed for sure with nothing sent: reported FAILED with its reason,
// never thrown. pay's codes are mapped to LND's FAILURE_REASON_* names, which the engine records. BOLT12 invoices
// (lni) are paid the same way.
import { FAILURE_BY_CODE, PAY_IN_PROGRESS } from '@ferry/sdk/lightning/cln-pay-failures.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { bolt12AsInvoice, isBolt12Invoice } from '@ferry/sdk/lightning/bolt12/payable.js';
import type { PayRequest, PaymentUpdate } from '../backend.ts';
import { ClnRestError, type ClnCaller } from './transport.ts';

interface SendPayJson {
  status: 'pending' | 'complete' | 'failed';
  groupid?: number | bigint; // a u64: past 2^53 it comes as bigint (json.ts), compared exactly
  amount_msat?: number | bigint;
  amount_sent_msat: number | bigint;
  payment_preimage?: string;
}

interface PayJson {
  payment_hash: string;
  payment_preimage: string;
  amount_msat: number | bigint;
  amount_sent_msat: number | bigint;
  status: string;
}

// Past the payment timeout pay gives up retrying, but a part already sent may stay held for hours.
const PAY_CALL_SLACK_MS = 60_000;

/** CLN's pay takes BOLT11 and BOLT12 (lni) invoices alike. */
const paymentHashOf = (invoice: string): string => (isBolt12Invoice(invoice) ? bolt12AsInvoice(invoice) : decodeBolt11(invoice)).paymentHash;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ClnPayments {
  constructor(
    private readonly rpc: ClnCaller,
    private readonly pollMs: number,
  ) {}

  /** The payment the node has for this hash: complete if any part group completed, pending while any part is. */
  async lookup(paymentHash: string): Promise<PaymentUpdate | undefined> {
    const { payments } = await this.rpc.call<{ payments: SendPayJson[] }>('listsendpays', { payment_hash: paymentHash });
    if (payments.length === 0) return undefined;
    const complete = payments.filter((p) => p.status === 'complete');
    if (complete.length > 0) {
      const group = complete.filter((p) => p.groupid === complete[0].groupid);
      const sent = group.reduce((sum, p) => sum + BigInt(p.amount_sent_msat), 0n);
      const amount = group.reduce((sum, p) => sum + BigInt(p.amount_msat ?? p.amount_sent_msat), 0n);
      return { paymentHash, status: 'SUCCEEDED', preimage: complete[0].payment_preimage, feeMsat: sent - amount, failureReason: undefined };
    }
    if (payments.some((p) => p.status === 'pending')) {
      return { paymentHash, status: 'IN_FLIGHT', preimage: undefined, feeMsat: 0n, failureReason: undefined };
    }
    return { paymentHash, status: 'FAILED', preimage: undefined, feeMsat: 0n, failureReason: 'FAILURE_REASON_ERROR' };
  }

  async pay(request: PayRequest): Promise<PaymentUpdate> {
    const paymentHash = paymentHashOf(request.paymentRequest);
    const existing = await this.lookup(paymentHash);
    if (existing !== undefined && existing.status !== 'FAILED') {
      request.onUpdate?.(existing);
      return existing.status === 'SUCCEEDED' ? existing : this.follow(paymentHash, request.onUpdate);
    }
    const paying = this.rpc.call<PayJson>(
      'pay',
      {
        bolt11: request.paymentRequest,
        amount_msat: request.amountMsat === undefined ? undefined : Number(request.amountMsat),
        maxfee: Number(request.feeLimitMsat),
        retry_for: request.timeoutSeconds,
        maxdelay: request.cltvLimit,
      },
      request.timeoutSeconds * 1000 + PAY_CALL_SLACK_MS,
    );
    // pay answers only once the payment is final: from here on it is in flight as far as Ferry can know (after a
    // crash now, the lookup above finds it pending, or finds nothing and pays it then — never twice).
    paying.catch(() => undefined); // awaited below; an onUpdate that throws must not leave it unhandled
    request.onUpdate?.({ paymentHash, status: 'IN_FLIGHT', preimage: undefined, feeMsat: 0n, failureReason: undefined });
    try {
      const paid = await paying;
      const update: PaymentUpdate = {
        paymentHash,
        status: 'SUCCEEDED',
        preimage: paid.payment_preimage,
        feeMsat: BigInt(paid.amount_sent_msat) - BigInt(paid.amount_msat),
        failureReason: undefined,
      };
      request.onUpdate?.(update);
      return update;
    } catch (error) {
      return await this.afterPayError(paymentHash, error, request.onUpdate);
    }
  }

  // pay ended without success: refused with nothing sent (reported failed), failed (reported), still going
  // (followed), or unknown (no answer from lightningd: rethrown, the payment is looked up again later).
  private async afterPayError(paymentHash: string, error: unknown, onUpdate?: (u: PaymentUpdate) => void): Promise<PaymentUpdate> {
    const code = error instanceof ClnRestError ? error.code : undefined;
    const now = await this.lookup(paymentHash);
    if (now === undefined) {
      // a lightningd answer (a code) with no sendpay recorded: nothing was sent, and nothing is in flight
      if (code === undefined || code === PAY_IN_PROGRESS) throw error;
      const failed: PaymentUpdate = {
        paymentHash,
        status: 'FAILED',
        preimage: undefined,
        feeMsat: 0n,
        failureReason: FAILURE_BY_CODE[code] ?? 'FAILURE_REASON_ERROR',
      };
      onUpdate?.(failed);
      return failed;
    }
    if (now.status === 'IN_FLIGHT' || code === PAY_IN_PROGRESS) return this.follow(paymentHash, onUpdate);
    const update: PaymentUpdate =
      now.status === 'FAILED' && code !== undefined ? { ...now, failureReason: FAILURE_BY_CODE[code] ?? 'FAILURE_REASON_ERROR' } : now;
    onUpdate?.(update);
    return update;
  }

  private async follow(paymentHash: string, onUpdate?: (u: PaymentUpdate) => void): Promise<PaymentUpdate> {
    for (;;) {
      const now = await this.lookup(paymentHash);
      if (now === undefined) throw new Error(`the node lost its payment ${paymentHash}`);
      if (now.status !== 'IN_FLIGHT') {
        onUpdate?.(now);
        return now;
      }
      await sleep(this.pollMs);
    }
  }
}
