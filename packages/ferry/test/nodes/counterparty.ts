// The Lightning node the suite plays Ferry's counterparty with: it issues the invoices Ferry pays (submarine swaps)
// and pays Ferry's hold invoices (reverse swaps), and says what happened to each. Spoken to through Ferry's own
// transports (LND REST with its macaroon and pinned certificate; clnrest with its rune) with the plain node calls a
// wallet makes: LND's AddInvoice, LookupInvoice (hash in hex, as its path takes it) and the router's SendPaymentV2
// (Ferry's adapter), CLN's invoice, listinvoices and pay. Not part of Ferry, so written here.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ClnTransport } from '../../src/lightning/cln/transport.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { LndTransport } from '../../src/lightning/lnd/transport.ts';
import type { CounterpartyConfig } from './nodes-file.ts';

export interface CounterpartyInvoice {
  invoice: string;
  paymentHash: string;
}

export interface Counterparty {
  readonly kind: 'lnd' | 'cln';
  addInvoice(sat: number, memo: string): Promise<CounterpartyInvoice>;
  /** Whether the invoice is paid, and how much it received. */
  invoice(paymentHash: string): Promise<{ settled: boolean; receivedSat: number }>;
  /** Pays a BOLT11 invoice; resolves once the payment is settled, with its preimage (rejects when it failed). */
  pay(invoice: string): Promise<{ preimage: string }>;
  /** The node's identity key. */
  pubkey(): Promise<string>;
}

const PAY_TIMEOUT_S = 120;

function lndCounterparty(config: Extract<CounterpartyConfig, { kind: 'lnd' }>): Counterparty {
  const macaroonHex = config.macaroon ?? readFileSync(config.macaroonPath!).toString('hex');
  const tlsCert = config.tlsCertPath === undefined ? undefined : readFileSync(config.tlsCertPath);
  const http = new LndTransport({ url: config.restUrl, macaroonHex, tlsCert });
  const payer = new LndRestClient({ url: config.restUrl, macaroon: macaroonHex, tlsCertPath: config.tlsCertPath, timeoutMs: PAY_TIMEOUT_S * 1000 });
  return {
    kind: 'lnd',
    async addInvoice(sat, memo) {
      const added = await http.request<{ r_hash: string; payment_request: string }>('POST', '/v1/invoices', { value: String(sat), memo });
      return { invoice: added.payment_request, paymentHash: Buffer.from(added.r_hash, 'base64').toString('hex') };
    },
    async invoice(paymentHash) {
      const found = await http.request<{ state: string; amt_paid_sat?: string }>('GET', `/v1/invoice/${paymentHash}`);
      return { settled: found.state === 'SETTLED', receivedSat: Number(found.amt_paid_sat ?? 0) };
    },
    async pay(invoice) {
      const paid = await payer.payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000_000n, timeoutSeconds: PAY_TIMEOUT_S });
      if (paid.status !== 'SUCCEEDED' || paid.preimage === undefined) throw new Error(`the counterparty's payment ${paid.status}: ${paid.failureReason ?? ''}`);
      return { preimage: paid.preimage };
    },
    async pubkey() {
      return (await payer.getInfo()).publicKey;
    },
  };
}

function clnCounterparty(config: Extract<CounterpartyConfig, { kind: 'cln' }>): Counterparty {
  const tlsCert = config.tlsCertPath === undefined ? undefined : readFileSync(config.tlsCertPath);
  const rpc = new ClnTransport({ url: config.restUrl, rune: config.rune, tlsCert });
  return {
    kind: 'cln',
    async addInvoice(sat, memo) {
      const label = `ferry-node-suite-${randomBytes(8).toString('hex')}`;
      const added = await rpc.call<{ bolt11: string; payment_hash: string }>('invoice', { amount_msat: sat * 1000, label, description: memo });
      return { invoice: added.bolt11, paymentHash: added.payment_hash };
    },
    async invoice(paymentHash) {
      const { invoices } = await rpc.call<{ invoices: { status: string; amount_received_msat?: number }[] }>('listinvoices', { payment_hash: paymentHash });
      const found = invoices[0];
      return { settled: found?.status === 'paid', receivedSat: Math.floor(Number(found?.amount_received_msat ?? 0) / 1000) };
    },
    async pay(invoice) {
      const paid = await rpc.call<{ status: string; payment_preimage: string }>('pay', { bolt11: invoice }, PAY_TIMEOUT_S * 1000 + 10_000);
      if (paid.status !== 'complete') throw new Error(`the counterparty's payment is ${paid.status}`);
      return { preimage: paid.payment_preimage };
    },
    async pubkey() {
      return (await rpc.call<{ id: string }>('getinfo')).id;
    },
  };
}

export const connectCounterparty = (config: CounterpartyConfig): Counterparty =>
  config.kind === 'lnd' ? lndCounterparty(config) : clnCounterparty(config);
