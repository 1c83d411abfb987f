// The devnet's two chains as the tools reach them, by --chain symbol: BTC on the bitcoin node, L-BTC on the Elements
// node. elementsd speaks Core's JSON-RPC for everything the tools call, so one client serves both; only its
// balances differ, per asset with L-BTC labelled "bitcoin".
import { CoreRpcClient, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import type { DevnetInfo } from '../index.ts';

export const devnetChains = ['BTC', 'L-BTC'] as const;
export type DevnetChain = (typeof devnetChains)[number];

type Endpoint = DevnetInfo['bitcoin'];

function endpoint(info: DevnetInfo, chain: DevnetChain): Endpoint {
  if (chain === 'BTC') return info.bitcoin;
  // A devnet.json written before the Elements node started with every devnet has no entry.
  if (!info.elements) throw new Error('devnet.json has no elements entry: restart the devnet');
  return info.elements;
}

/** The chain's node, or one of its wallets. */
export function chainRpc(info: DevnetInfo, chain: DevnetChain, wallet?: string): CoreRpcClient {
  const { rpcUrl, rpcUser, rpcPassword } = endpoint(info, chain);
  const rpc = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
  return wallet === undefined ? rpc : rpc.wallet(wallet);
}

export const walletNames = (info: DevnetInfo, chain: DevnetChain): Endpoint['wallets'] => endpoint(info, chain).wallets;

type Amount = number | Record<string, number>; // BTC, or elementsd's per-asset map
const sat = (amount: Amount): number => Number(btcToSat(typeof amount === 'number' ? amount : (amount.bitcoin ?? 0)));

/** Each devnet wallet's coins of the chain's own currency, in sat. */
export async function walletBalances(info: DevnetInfo, chain: DevnetChain): Promise<Record<string, unknown>> {
  const balances: Record<string, unknown> = {};
  for (const [role, name] of Object.entries(walletNames(info, chain))) {
    const { mine } = await chainRpc(info, chain, name).call<{ mine: Record<'trusted' | 'untrusted_pending' | 'immature', Amount> }>('getbalances');
    balances[role] = { trusted: sat(mine.trusted), untrustedPending: sat(mine.untrusted_pending), immature: sat(mine.immature) };
  }
  return balances;
}
