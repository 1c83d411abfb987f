// The public Lightning graph as Core Lightning's gossip describes it (listnodes, listchannels), in the shapes of the
// v2 Lightning calls, as LndGraph gives them for LND. Channel ids come in LND's decimal form (the route converts
// either form) and go to CLN as BLOCKxTXxOUT.
import type { LightningChannelBody, LightningChannelInfoBody, LightningChannelPolicyBody, LightningNodeBody } from '@ferry/sdk/protocol/wire.js';
import { shortChannelId, type LightningGraph } from '../lnd/graph.ts';
import type { ClnCaller } from './transport.ts';

interface ClnNode {
  nodeid: string;
  alias?: string;
  color?: string;
}

interface ClnDirection {
  source: string;
  short_channel_id: string;
  amount_msat: number | bigint; // JSON integers past 2^53 come as bigint (json.ts)
  active: boolean;
  base_fee_millisatoshi: number | bigint;
  fee_per_millionth: number | bigint;
  delay: number;
  htlc_minimum_msat?: number | bigint;
  htlc_maximum_msat?: number | bigint;
}

// colors as LND writes them, so both backends answer alike
const nodeBody = (node: ClnNode): LightningNodeBody => ({
  id: node.nodeid,
  ...(node.alias !== undefined && { alias: node.alias }),
  ...(node.color !== undefined && { color: `#${node.color}` }),
});

function policyBody(direction: ClnDirection): LightningChannelPolicyBody {
  return {
    active: direction.active,
    baseFeeMillisatoshi: Number(direction.base_fee_millisatoshi),
    feePpm: Number(direction.fee_per_millionth),
    delay: direction.delay,
    ...(direction.htlc_minimum_msat !== undefined && { htlcMinimumMillisatoshi: Number(direction.htlc_minimum_msat) }),
    ...(direction.htlc_maximum_msat !== undefined && { htlcMaximumMillisatoshi: Number(direction.htlc_maximum_msat) }),
  };
}

export class ClnGraph implements LightningGraph {
  constructor(private readonly rpc: ClnCaller) {}

  private async nodes(id?: string): Promise<ClnNode[]> {
    return (await this.rpc.call<{ nodes: ClnNode[] }>('listnodes', { id })).nodes;
  }

  private async directions(params: { short_channel_id?: string; source?: string }): Promise<ClnDirection[]> {
    return (await this.rpc.call<{ channels: ClnDirection[] }>('listchannels', params)).channels;
  }

  async node(pubkey: string): Promise<LightningNodeBody | undefined> {
    const [node] = await this.nodes(pubkey);
    return node && nodeBody(node);
  }

  async channelsOf(pubkey: string): Promise<LightningChannelBody[] | undefined> {
    const [node] = await this.nodes(pubkey);
    if (node === undefined) return undefined;
    return (await this.directions({ source: pubkey })).map((direction) => ({
      source: nodeBody(node),
      shortChannelId: direction.short_channel_id,
      capacity: Number(BigInt(direction.amount_msat) / 1000n),
      active: direction.active,
      info: policyBody(direction),
    }));
  }

  async channel(id: string): Promise<LightningChannelInfoBody | undefined> {
    const directions = await this.directions({ short_channel_id: shortChannelId(id) });
    if (directions.length === 0) return undefined;
    const policies = await Promise.all(
      directions.map(async (direction) => ({ ...policyBody(direction), node: (await this.node(direction.source)) ?? { id: direction.source } })),
    );
    return { shortChannelId: directions[0].short_channel_id, capacity: Number(BigInt(directions[0].amount_msat) / 1000n), policies };
  }

  async search(alias: string): Promise<LightningNodeBody[]> {
    const wanted = alias.toLowerCase();
    return (await this.nodes()).filter((node) => (node.alias ?? '').toLowerCase().includes(wanted)).map(nodeBody);
  }
}
