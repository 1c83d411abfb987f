// `pay` on a devnet CLN node: starts the payment on the network model and answers when it is final, as
// lightningd's pay plugin does (a payment held by a hold invoice keeps the call open). Refusals and failures are
// the pay plugin's error codes; paying an invoice already paid answers the earlier success again. `bolt11` may
// hold a BOLT12 invoice (lni), as lightningd's pay takes either.
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

function failure(payment: PaymentRecord): ClnError {
  const data = { payment_hash: payment.paymentHash, status: 'failed', amount_msat: payment.valueMsat };
  switch (payment.failureReason) {
    case 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS':
      return new ClnError(CLN.PAY_DESTINATION_PERM_FAIL, 'failed: WIRE_INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS (reply from remote)', 500, data);
    case 'FAILURE_REASON_NO_ROUTE':
    case 'FAILURE_REASON_INSUFFICIENT_BALANCE':
      return new ClnError(CLN.PAY_ROUTE_NOT_FOUND, 'Could not find a route', 500, data);
    default:
      return new ClnError(CLN.PAY_STOPPED_RETRYING, 'Ran out of routes to try after 1 attempt: see `paystatus`', 500, data);
  }
}

export async function pay({ network, node, params }: MethodContext): Promise<Record<string, unknown>> {
  const bolt11 = requiredString(params, 'bolt11');
  const invoice = network.decodePaymentRequest(bolt11);
  const previous = network.lookupPayment(node, invoice.paymentHash);
  if (previous?.status === 'SUCCEEDED') return success(previous);
  if (previous?.status === 'IN_FLIGHT') throw new ClnError(CLN.PAY_IN_PROGRESS, 'Payment is in progress');
  if (invoice.timestamp + invoice.expiry <= Date.now() / 1000) throw new ClnError(CLN.PAY_INVOICE_EXPIRED, 'Invoice expired');
  const amountMsat = optionalInt(params, 'amount_msat');
  if (invoice.amountMsat === undefined && amountMsat === undefined) {
    throw new ClnError(CLN.INVALID_PARAMS, 'amount_msat parameter required');
  }
  if (invoice.amountMsat !== undefined && amountMsat !== undefined) {
    throw new ClnError(CLN.INVALID_PARAMS, 'amount_msat parameter unnecessary');
  }
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
  throw failure(final);
}
