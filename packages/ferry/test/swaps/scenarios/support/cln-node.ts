// Ferry's node as a test observes it when Ferry runs on Core Lightning: the devnet's `cln` node read over clnrest
// with its rune (channels, hold invoices), giving the same views LightningNodes gives of an LND node.
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import type { ClnNodeInfo } from '@ferry/devnet/lightning/index.js';
import type { ChannelBalance, LndInvoice } from './lightning.ts';
import { clnRest } from '../../../lightning/helpers.ts';

const STATES: Record<string, LndInvoice['state']> = {
  unpaid: 'OPEN',
  accepted: 'ACCEPTED',
  paid: 'SETTLED',
  cancelled: 'CANCELED',
  expired: 'CANCELED',
};

export class ClnNodeView {
  constructor(private readonly node: ClnNodeInfo) {}

  private async call<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const { status, body } = await clnRest(this.node, method, params);
    if (status !== 201) throw new Error(`cln ${method}: ${status} ${body.message ?? ''}`);
    return body;
  }

  private async channels(): Promise<{ peer_id: string; to_us_msat: number; receivable_msat: number }[]> {
    return (await this.call('listpeerchannels')).channels;
  }

  async balance(): Promise<ChannelBalance> {
    const channels = await this.channels();
    return {
      localMsat: channels.reduce((sum, c) => sum + BigInt(c.to_us_msat), 0n),
      remoteMsat: channels.reduce((sum, c) => sum + BigInt(c.receivable_msat), 0n),
    };
  }

  async localBalanceWith(peerPubkey: string): Promise<bigint> {
    const channel = (await this.channels()).find((c) => c.peer_id === peerPubkey);
    if (channel === undefined) throw new Error(`cln has no channel with ${peerPubkey}`);
    return BigInt(channel.to_us_msat) / 1000n;
  }

  /** Payment attempts the node lists for a hash (listsendpays; in-flight ones included). */
  async paymentCount(paymentHash: string): Promise<number> {
    return (await this.call('listsendpays', { payment_hash: paymentHash })).payments.length;
  }

  /** A hold invoice (the plugin's) or one of lightningd's own. */
  async invoice(paymentHash: string): Promise<LndInvoice> {
    const { holdinvoices } = await this.call('listholdinvoices', { payment_hash: paymentHash });
    if (holdinvoices.length > 0) {
      const held = holdinvoices[0] as { state: string; invoice: string; htlcs: { state: string; msat: number }[] };
      return {
        state: STATES[held.state],
        valueSat: (decodeBolt11(held.invoice).amountMsat ?? 0n) / 1000n,
        amountPaidMsat: held.htlcs.filter((h) => h.state !== 'cancelled').reduce((sum, h) => sum + BigInt(h.msat), 0n),
      };
    }
    const { invoices } = await this.call('listinvoices', { payment_hash: paymentHash });
    if (invoices.length === 0) throw new Error(`cln has no invoice ${paymentHash}`);
    const own = invoices[0] as { status: string; amount_msat?: number; amount_received_msat?: number };
    return { state: STATES[own.status], valueSat: BigInt(own.amount_msat ?? 0) / 1000n, amountPaidMsat: BigInt(own.amount_received_msat ?? 0) };
  }
}
