// The devnet's Lightning nodes as a test observes them: LND REST calls with each node's macaroon from
// devnet.json (channel balances, invoices, payments), as `ferry devnet balances` and any LND tool would. `ferry`
// names Ferry's node, whichever kind it is: with FERRY_TEST_LIGHTNING=cln the devnet's CLN node, read over clnrest.
import type { DevnetInfo } from '@ferry/devnet/index.js';
import type { LightningBackend, PaymentUpdate } from '../../../../src/lightning/backend.ts';
import { LndRestClient } from '../../../../src/lightning/lnd/client.ts';
import { ferryNodeClient, ferryNodePubkey, onCln } from '../../../helpers/test-lightning.ts';
import { ClnNodeView } from './cln-node.ts';

export type NodeName = 'ferry' | 'alice' | 'bob';

export interface ChannelBalance {
  localMsat: bigint;
  remoteMsat: bigint;
}

export interface LndInvoice {
  state: 'OPEN' | 'ACCEPTED' | 'SETTLED' | 'CANCELED';
  valueSat: bigint;
  amountPaidMsat: bigint;
}

export class LightningNodes {
  /** Ferry's node when it is the devnet's CLN node. */
  private readonly cln: ClnNodeView | undefined;

  constructor(private readonly info: DevnetInfo) {
    this.cln = onCln() ? new ClnNodeView(info.cln!.cln) : undefined;
  }

  private clnFor(name: NodeName): ClnNodeView | undefined {
    return name === 'ferry' ? this.cln : undefined;
  }

  private async call<T = any>(name: NodeName, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const node = this.info.lightning[name];
    const response = await fetch(node.restUrl + path, {
      method,
      headers: { 'Grpc-Metadata-macaroon': node.macaroon, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T & { message?: string };
    if (!response.ok) throw new Error(`${name} ${method} ${path}: ${response.status} ${json.message ?? ''}`);
    return json;
  }

  client(name: NodeName): LightningBackend {
    if (name === 'ferry') return ferryNodeClient(this.info);
    const node = this.info.lightning[name];
    return new LndRestClient({ url: node.restUrl, macaroon: node.macaroon });
  }

  pubkey(name: NodeName): string {
    if (name === 'ferry') return ferryNodePubkey(this.info);
    return this.info.lightning[name].pubkey;
  }

  /** Sum over the node's channels (GET /v1/balance/channels); HTLCs in flight count in neither side. */
  async balance(name: NodeName): Promise<ChannelBalance> {
    const cln = this.clnFor(name);
    if (cln !== undefined) return cln.balance();
    const body = await this.call(name, 'GET', '/v1/balance/channels');
    return { localMsat: BigInt(body.local_balance.msat), remoteMsat: BigInt(body.remote_balance.msat) };
  }

  /** The node's local balance in its channel with `peer`, in satoshi. */
  async localBalanceWith(name: NodeName, peer: NodeName): Promise<bigint> {
    const cln = this.clnFor(name);
    if (cln !== undefined) return cln.localBalanceWith(this.pubkey(peer));
    const body = await this.call(name, 'GET', '/v1/channels');
    const channel = (body.channels as { remote_pubkey: string; local_balance: string }[]).find(
      (c) => c.remote_pubkey === this.pubkey(peer),
    );
    if (channel === undefined) throw new Error(`${name} has no channel with ${peer}`);
    return BigInt(channel.local_balance);
  }

  async addInvoice(name: NodeName, sat: number, memo = 'ferry swap test'): Promise<{ invoice: string; paymentHash: string }> {
    const body = await this.call(name, 'POST', '/v1/invoices', { value: String(sat), memo });
    return { invoice: body.payment_request, paymentHash: Buffer.from(body.r_hash, 'base64').toString('hex') };
  }

  async invoice(name: NodeName, paymentHash: string): Promise<LndInvoice> {
    const cln = this.clnFor(name);
    if (cln !== undefined) return cln.invoice(paymentHash);
    const body = await this.call(name, 'GET', `/v1/invoice/${paymentHash}`);
    return { state: body.state, valueSat: BigInt(body.value), amountPaidMsat: BigInt(body.amt_paid_msat) };
  }

  /** Starts paying; the promise settles when the payment is final (a held payment stays pending). */
  pay(name: NodeName, invoice: string): Promise<PaymentUpdate> {
    return this.client(name).payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000_000n, timeoutSeconds: 120 });
  }

  /** Payments the node lists for a hash, in-flight ones included (LND's ListPayments, CLN's listsendpays). */
  async paymentCount(name: NodeName, paymentHash: string): Promise<number> {
    const cln = this.clnFor(name);
    if (cln !== undefined) return cln.paymentCount(paymentHash);
    const body = await this.call(name, 'GET', '/v1/payments?include_incomplete=true');
    return (body.payments as { payment_hash: string }[]).filter((p) => p.payment_hash === paymentHash).length;
  }

  /** The node's record of its payment for `paymentHash` (TrackPaymentV2), undefined if it never paid it. */
  payment(name: NodeName, paymentHash: string): Promise<PaymentUpdate | undefined> {
    return this.client(name).lookupPayment(paymentHash);
  }
}
