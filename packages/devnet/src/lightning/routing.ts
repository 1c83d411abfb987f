// Finds the cheapest route with enough liquidity through the devnet's channels. The graph is a handful of
// nodes, so every simple path up to MAX_HOPS is tried; amounts and time locks are worked out backwards from
// the payee, the way a sender builds an onion.
import type { ChannelRecord, RouteHop } from './types.ts';

// Every devnet node forwards with LND's default policy.
export const FEE_BASE_MSAT = 1000;
export const FEE_RATE_PPM = 1;
export const TIME_LOCK_DELTA = 40;
const MAX_HOPS = 6;

export interface Route {
  hops: RouteHop[];
  nodes: string[]; // sender first, payee last
  channelAmountsMsat: number[]; // what each channel of the path carries
  channelExpiries: number[]; // the HTLC expiry height on each channel of the path
  totalAmtMsat: number;
  totalFeesMsat: number;
  totalTimeLock: number;
}

export interface RouteRequest {
  from: string;
  to: string;
  amountMsat: number;
  finalCltvDelta: number;
  height: number;
  feeLimitMsat: number;
  /** LND's cltv_limit: most blocks the payer's funds may be locked (total time lock - height); 0 = no limit. */
  cltvLimit?: number;
}

export const forwardingFee = (amountMsat: number): number =>
  FEE_BASE_MSAT + Math.floor((amountMsat * FEE_RATE_PPM) / 1_000_000);

export function spendable(channel: ChannelRecord, node: string): number {
  return channel.nodeA === node ? channel.balanceAMsat : channel.balanceBMsat;
}

export const peerOf = (channel: ChannelRecord, node: string): string =>
  channel.nodeA === node ? channel.nodeB : channel.nodeA;

export function findRoute(
  channels: ChannelRecord[],
  pubkeyOf: (node: string) => string,
  request: RouteRequest,
): Route | undefined {
  let best: Route | undefined;
  const path: ChannelRecord[] = [];
  const visited = new Set<string>([request.from]);

  const consider = (): void => {
    const route = priceRoute(path, pubkeyOf, request);
    if (route === undefined || route.totalFeesMsat > request.feeLimitMsat) return;
    if (request.cltvLimit && route.totalTimeLock - request.height > request.cltvLimit) return;
    if (
      best === undefined ||
      route.totalFeesMsat < best.totalFeesMsat ||
      (route.totalFeesMsat === best.totalFeesMsat && route.hops.length < best.hops.length)
    ) {
      best = route;
    }
  };

  const walk = (node: string): void => {
    if (node === request.to) {
      consider();
      return;
    }
    if (path.length >= MAX_HOPS) return;
    for (const channel of channels) {
      if (channel.nodeA !== node && channel.nodeB !== node) continue;
      const next = peerOf(channel, node);
      if (visited.has(next)) continue;
      visited.add(next);
      path.push(channel);
      walk(next);
      path.pop();
      visited.delete(next);
    }
  };
  if (request.from !== request.to) walk(request.from);
  return best;
}

function priceRoute(
  path: ChannelRecord[],
  pubkeyOf: (node: string) => string,
  request: RouteRequest,
): Route | undefined {
  const nodes = [request.from];
  for (const channel of path) nodes.push(peerOf(channel, nodes[nodes.length - 1]));
  const k = path.length;
  const amounts = new Array<number>(k);
  const expiries = new Array<number>(k);
  amounts[k - 1] = request.amountMsat;
  expiries[k - 1] = request.height + request.finalCltvDelta;
  for (let i = k - 2; i >= 0; i--) {
    amounts[i] = amounts[i + 1] + forwardingFee(amounts[i + 1]);
    expiries[i] = expiries[i + 1] + TIME_LOCK_DELTA;
  }
  for (let i = 0; i < k; i++) {
    if (spendable(path[i], nodes[i]) < amounts[i]) return undefined;
  }
  const hops: RouteHop[] = path.map((channel, i) => {
    const forwarded = i < k - 1 ? amounts[i + 1] : amounts[k - 1];
    return {
      chanId: channel.chanId,
      chanCapacitySat: channel.capacitySat,
      pubKey: pubkeyOf(nodes[i + 1]),
      amtToForwardMsat: forwarded,
      feeMsat: amounts[i] - forwarded,
      expiry: i < k - 1 ? expiries[i + 1] : expiries[k - 1],
    };
  });
  return {
    hops,
    nodes,
    channelAmountsMsat: amounts,
    channelExpiries: expiries,
    totalAmtMsat: amounts[0],
    totalFeesMsat: amounts[0] - request.amountMsat,
    totalTimeLock: expiries[0],
  };
}
