// The public graph as a devnet CLN node's gossip store describes it: listnodes (every node of the network) and
// listchannels (each channel once per direction, with the forwarding policy the devnet routes by — the same one
// the LND face reports).
import { FEE_BASE_MSAT, FEE_RATE_PPM, TIME_LOCK_DELTA } from '../routing.ts';
import type { ChannelRecord, NodeRecord } from '../types.ts';
import { shortChannelId } from './json.ts';
import { NODE_FEATURES, type Method, type MethodContext } from './lightningd.ts';
import { optionalString } from './params.ts';

const HTLC_MINIMUM_MSAT = 1000;

function nodeJson(node: NodeRecord): Record<string, unknown> {
  return {
    nodeid: node.pubkey,
    alias: node.name,
    color: node.color.replace(/^#/, ''),
    last_timestamp: 0,
    features: NODE_FEATURES,
    addresses: node.restPort === 0 ? [] : [{ type: 'ipv4', address: '127.0.0.1', port: node.restPort }],
  };
}

function directionJson(channel: ChannelRecord, source: NodeRecord, destination: NodeRecord): Record<string, unknown> {
  return {
    source: source.pubkey,
    destination: destination.pubkey,
    short_channel_id: shortChannelId(channel.chanId),
    direction: source.pubkey < destination.pubkey ? 0 : 1,
    public: true,
    amount_msat: channel.capacitySat * 1000,
    message_flags: 1, // htlc_maximum_msat present
    channel_flags: source.pubkey < destination.pubkey ? 0 : 1, // the direction bit; not disabled
    active: true,
    last_update: 0,
    base_fee_millisatoshi: FEE_BASE_MSAT,
    fee_per_millionth: FEE_RATE_PPM,
    delay: TIME_LOCK_DELTA,
    htlc_minimum_msat: HTLC_MINIMUM_MSAT,
    htlc_maximum_msat: channel.capacitySat * 1000,
    features: '',
  };
}

function listnodes({ network, params }: MethodContext): Record<string, unknown> {
  const id = optionalString(params, 'id');
  return { nodes: network.nodes.filter((n) => id === undefined || n.pubkey === id).map(nodeJson) };
}

function listchannels({ network, params }: MethodContext): Record<string, unknown> {
  const scid = optionalString(params, 'short_channel_id');
  const source = optionalString(params, 'source');
  const directions = network.channels.flatMap((channel) => {
    const [a, b] = [network.node(channel.nodeA), network.node(channel.nodeB)];
    return [directionJson(channel, a, b), directionJson(channel, b, a)];
  });
  return {
    channels: directions.filter((d) => (scid === undefined || d.short_channel_id === scid) && (source === undefined || d.source === source)),
  };
}

export const GOSSIP_METHODS: Record<string, Method> = { listnodes, listchannels };
