// `pay` on a devnet CLN node as current Core Lightning answers it: xpay takes pay over (xpay-handle-pay, on by
// default) and answers when the payment is final (a payment held by a hold invoice keeps the call open). As xpay
// (plugins/xpay/xpay.c at v26.06): it reads bolt11, amount_msat, retry_for, maxfee, partial_msat, maxfeepercent,
// exemptfee, maxdelay, label, localinvreqid and ignores any other parameter (it logs "Unknown arg"); without
// `bolt11` pay is not redirected and pay's own parser refuses it. Refusals before anything is sent record no
// sendpay: an expired invoice (207 "Invoice expired N seconds ago"), a missing or unneeded amount (-32602), no
// route (askrene's 205 "Failed: We could not find a usable set of paths. …"); a destination that refuses the
// payment answers 203, and its part stays in listsendpays as failed. An invoice paid already answers the earlier
// success again (xpay's "already paid" reply from listsendpays). `bolt11` may hold a BOLT12 invoice (lni).
import type { LightningNetwork } from '../network.ts';
import type { PaymentRecord } from '../types.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import type { MethodContext } from './lightningd.ts';
import { optionalInt, requiredString } from './params.ts';
import { destinationOf } from './json.ts';

function waitFinal(network: LightningNetwork, node: string, paymentHash: string): Promise<PaymentRecord> {
  return new Promise((resolve) => {
    const check = (p: PaymentRecord): void => {
      if (p.node !== node || p.paymentHash !== paymentHash || p.status === 'IN_FLIGHT') return;
      network.off('payment', check);
      resolve(p);
    };
    network.on('payment', check);
    const current = network.lookupPayment(node, paymentHash);
    if (current !== undefined) check(current);
  });
}

function success(payment: PaymentRecord): Record<string, unknown> {
  return {
    payment_preimage: payment.preimage,
    destination: destinationOf(payment.paymentRequest),
    payment_hash: payment.paymentHash,
    created_at: Number(BigInt(payment.creationTimeNs)) / 1e9,
    parts: 1,
    amount_msat: payment.valueMsat,
    amount_sent_msat: payment.valueMsat + payment.feeMsat,
    status: 'complete',
  };
}

/** A payment the model failed before any HTLC left the node: xpay never sent it, so no sendpay records it. */
export const neverSent = (payment: PaymentRecord): boolean => payment.status === 'FAILED' && payment.route === null;

function failure(network: LightningNetwork, node: string, payment: PaymentRecord): ClnError {
  if (neverSent(payment)) {
    const capacity = network.channelsOf(node).reduce((sum, c) => sum + (c.nodeA === node ? c.balanceAMsat : c.balanceBMsat), 0);
    const why =
      payment.failureReason === 'FAILURE_REASON_INSUFFICIENT_BALANCE'
        ? ` Total source capacity is only ${capacity}msat (in ${network.channelsOf(node).length} channels).`
        : ' There is no connection between source and destination at all';
    return new ClnError(CLN.PAY_ROUTE_NOT_FOUND, `Failed: We could not find a usable set of paths.${why}`);
  }
  if (payment.failureReason === 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS') {
    return new ClnError(CLN.PAY_DESTINATION_PERM_FAIL, "Destination said it doesn't know invoice: incorrect_or_unknown_payment_details");
  }
  return new ClnError(CLN.PAY_UNSPECIFIED_ERROR, 'Failed after 1 attempts. Then routing failed: We could not find a usable set of paths.');
}

export async function pay({ network, node, params }: MethodContext): Promise<Record<string, unknown>> {
  const bolt11 = requiredString(params, 'bolt11');
  let invoice;
  try {
    invoice = network.decodePaymentRequest(bolt11);
  } catch (err) {
    throw new ClnError(CLN.INVALID_PARAMS, `Invalid bolt11 invoice: ${(err as Error).message}`);
  }
  const previous = network.lookupPayment(node, invoice.paymentHash);
  if (previous?.status === 'SUCCEEDED') return success(previous);
  if (previous?.status === 'IN_FLIGHT') throw new ClnError(CLN.PAY_IN_PROGRESS, 'Payment is in progress');
  const amountMsat = optionalInt(params, 'amount_msat');
  if (invoice.amountMsat === undefined && amountMsat === undefined) throw new ClnError(CLN.INVALID_PARAMS, 'amount_msat required');
  if (invoice.amountMsat !== undefined && amountMsat !== undefined) throw new ClnError(CLN.INVALID_PARAMS, 'amount_msat unnecessary');
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = invoice.timestamp + invoice.expiry;
  if (now > expiresAt) throw new ClnError(CLN.PAY_INVOICE_EXPIRED, `Invoice expired ${now - expiresAt} seconds ago`);
  const amount = amountMsat ?? Number(invoice.amountMsat);
  // pay's default fee budget: 0.5% of the amount, but at least 5 sat (exemptfee).
  const maxfee = optionalInt(params, 'maxfee') ?? Math.max(5000, Math.floor(amount * 0.005));
  let started: PaymentRecord;
  try {
    started = network.sendPayment(node, {
      paymentRequest: bolt11,
      ...(amountMsat !== undefined && { amountMsat }),
      feeLimitMsat: maxfee,
      cltvLimit: optionalInt(params, 'maxdelay'),
    });
  } catch (err) {
    throw toClnError(err);
  }
  const final = started.status === 'IN_FLIGHT' ? await waitFinal(network, node, started.paymentHash) : started;
  if (final.status === 'SUCCEEDED') return success(final);
  throw failure(network, node, final);
}
