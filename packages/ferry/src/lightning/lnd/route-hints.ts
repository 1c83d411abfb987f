// Route hints through the node's private channels with one peer, for v1 POST /routinghints: a wallet behind such a
// channel puts them in its invoices so the operator's node can reach it. LND lists the channels (private_only) and
// knows its own unannounced edges, whose peer-side policy (fees and CLTV delta of the hop from the peer) the hint
// carries.
import type { HopHintBody } from '@ferry/sdk/protocol/wire.js';
import type { LndTransport } from './transport.ts';

interface LndChannel {
  chan_id: string;
  remote_pubkey: string;
  private?: boolean;
}
interface LndPolicy {
  time_lock_delta?: number;
  fee_base_msat?: string;
  fee_rate_milli_msat?: string;
}
interface LndEdge {
  node1_pub: string;
  node2_pub: string;
  node1_policy?: LndPolicy | null;
  node2_policy?: LndPolicy | null;
}

export async function lndRoutingHints(http: LndTransport, nodeId: string): Promise<HopHintBody[][]> {
  const { channels } = await http.request<{ channels?: LndChannel[] }>('GET', '/v1/channels?private_only=true');
  const hints: HopHintBody[][] = [];
  for (const channel of (channels ?? []).filter((c) => c.remote_pubkey === nodeId && c.private !== false)) {
    const edge = await http.request<LndEdge>('GET', `/v1/graph/edge/${channel.chan_id}`);
    const policy = (edge.node1_pub === nodeId ? edge.node1_policy : edge.node2_policy) ?? {};
    hints.push([
      {
        nodeId,
        chanId: channel.chan_id,
        feeBaseMsat: Number(policy.fee_base_msat ?? 0),
        feeProportionalMillionths: Number(policy.fee_rate_milli_msat ?? 0),
        cltvExpiryDelta: policy.time_lock_delta ?? 0,
      },
    ]);
  }
  return hints;
}
