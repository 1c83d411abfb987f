// The public Lightning graph as LND's REST gateway describes it (GetNodeInfo, GetChanInfo, DescribeGraph), in the
// shapes of the v2 Lightning calls. Channel ids are answered in the BLOCKxTXxOUTPUT form and taken in either form.
import type { LightningChannelBody, LightningChannelInfoBody, LightningChannelPolicyBody, LightningNodeBody } from '@ferry/sdk/protocol/wire.js';
import { LndRestError, type LndTransport } from './transport.ts';

interface LndNode {
  pub_key: string;
  alias?: string;
  color?: string;
}
interface LndPolicy {
  time_lock_delta?: number;
  min_htlc?: string;
  max_htlc_msat?: string;
  fee_base_msat?: string;
  fee_rate_milli_msat?: string;
  disabled?: boolean;
}
interface LndEdge {
  channel_id: string;
  capacity?: string;
  node1_pub: string;
  node2_pub: string;
  node1_policy?: LndPolicy | null;
  node2_policy?: LndPolicy | null;
}

/** What the graph calls need of an LND connection. */
export interface LightningGraph {
  node(pubkey: string): Promise<LightningNodeBody | undefined>;
  channelsOf(pubkey: string): Promise<LightningChannelBody[] | undefined>;
  channel(id: string): Promise<LightningChannelInfoBody | undefined>;
  search(alias: string): Promise<LightningNodeBody[]>;
}

/** LND's uint64 chan_id as BLOCKxTXxOUTPUT. */
export function shortChannelId(chanId: string): string {
  const id = BigInt(chanId);
  return `${id >> 40n}x${(id >> 16n) & 0xffffffn}x${id & 0xffffn}`;
}

/** Either form to LND's decimal chan_id; undefined when it is neither. */
export function lndChannelId(id: string): string | undefined {
  if (/^\d{1,20}$/.test(id)) return BigInt(id) < 2n ** 64n ? BigInt(id).toString() : undefined;
  const parts = /^(\d{1,8})x(\d{1,8})x(\d{1,5})$/.exec(id);
  if (!parts) return undefined;
  const [block, tx, out] = parts.slice(1).map(BigInt);
  if (block >= 2n ** 24n || tx >= 2n ** 24n || out >= 2n ** 16n) return undefined;
  return ((block << 40n) | (tx << 16n) | out).toString();
}

const nodeBody = (node: LndNode): LightningNodeBody => ({ id: node.pub_key, ...(node.alias !== undefined && { alias: node.alias }), ...(node.color !== undefined && { color: node.color }) });

function policyBody(policy: LndPolicy | null | undefined): LightningChannelPolicyBody {
  return {
    active: policy !== null && policy !== undefined && policy.disabled !== true,
    baseFeeMillisatoshi: Number(policy?.fee_base_msat ?? 0),
    feePpm: Number(policy?.fee_rate_milli_msat ?? 0),
    delay: policy?.time_lock_delta ?? 0,
    ...(policy?.min_htlc !== undefined && { htlcMinimumMillisatoshi: Number(policy.min_htlc) }),
    ...(policy?.max_htlc_msat !== undefined && { htlcMaximumMillisatoshi: Number(policy.max_htlc_msat) }),
  };
}

const isNotFound = (error: unknown) => error instanceof LndRestError && (error.code === 5 || error.httpStatus === 404);

export class LndGraph implements LightningGraph {
  constructor(private readonly http: LndTransport) {}

  private async orUndefined<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private nodeInfo(pubkey: string) {
    return this.orUndefined(() => this.http.request<{ node: LndNode; channels?: LndEdge[] }>('GET', `/v1/graph/node/${pubkey}?include_channels=true`));
  }

  async node(pubkey: string): Promise<LightningNodeBody | undefined> {
    const info = await this.nodeInfo(pubkey);
    return info && nodeBody(info.node);
  }

  async channelsOf(pubkey: string): Promise<LightningChannelBody[] | undefined> {
    const info = await this.nodeInfo(pubkey);
    if (info === undefined) return undefined;
    return (info.channels ?? []).map((edge) => {
      const policy = policyBody(edge.node1_pub === pubkey ? edge.node1_policy : edge.node2_policy);
      return {
        source: nodeBody(info.node),
        shortChannelId: shortChannelId(edge.channel_id),
        ...(edge.capacity !== undefined && { capacity: Number(edge.capacity) }),
        active: policy.active,
        info: policy,
      };
    });
  }

  async channel(id: string): Promise<LightningChannelInfoBody | undefined> {
    const edge = await this.orUndefined(() => this.http.request<LndEdge>('GET', `/v1/graph/edge/${id}`));
    if (edge === undefined) return undefined;
    const sides = await Promise.all(
      [
        [edge.node1_pub, edge.node1_policy],
        [edge.node2_pub, edge.node2_policy],
      ].map(async ([pubkey, policy]) => ({ ...policyBody(policy as LndPolicy | null), node: (await this.node(pubkey as string)) ?? { id: pubkey as string } })),
    );
    return { shortChannelId: shortChannelId(edge.channel_id), ...(edge.capacity !== undefined && { capacity: Number(edge.capacity) }), policies: sides };
  }

  async search(alias: string): Promise<LightningNodeBody[]> {
    const { nodes } = await this.http.request<{ nodes?: LndNode[] }>('GET', '/v1/graph');
    const wanted = alias.toLowerCase();
    return (nodes ?? []).filter((node) => (node.alias ?? '').toLowerCase().includes(wanted)).map(nodeBody);
  }
}
