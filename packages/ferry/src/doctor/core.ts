// Checks of a node of Bitcoin Core's family (bitcoind for BTC, elementsd for L-BTC): reachable with the configured
// credentials, recent enough, on the configured network, done with its initial block download, the operator
// wallet loaded and holding enough for the largest lockup Ferry may send; on Elements also the L-BTC asset.
// Minimums: Bitcoin Core 26 — Ferry sends its lockups with `send` from chosen inputs (`inputs`, `add_inputs`
// false, `fee_rate` in sat/vB, `subtract_fee_from_outputs`; core-rpc.ts sendFromInputs) and the devnet follows Core
// 26+'s answers; Elements 23, the release the devnet's elementsd behaviour is taken from.
import { RpcError, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import type { FerryConfig } from '../config/index.ts';
import { CheckList } from './check.ts';

export type CoreKind = 'bitcoin' | 'elements';

export const MINIMUM_VERSION: Record<CoreKind, { number: number; text: string; why: string }> = {
  bitcoin: { number: 260000, text: '26.0', why: "Ferry's wallet sends (send with inputs, add_inputs, fee_rate)" },
  elements: { number: 230000, text: '23.0', why: 'the Elements release whose RPC Ferry follows' },
};

/** What getblockchaininfo's `chain` is on each network Ferry knows. */
const CHAINS: Record<CoreKind, Record<FerryConfig['network'], string[]>> = {
  bitcoin: { mainnet: ['main'], testnet: ['test', 'testnet4'], signet: ['signet'], regtest: ['regtest'] },
  elements: { mainnet: ['liquidv1'], testnet: ['liquidtestnet'], signet: ['liquidtestnet'], regtest: ['elementsregtest', 'liquidregtest'] },
};

export interface CoreCheckOptions {
  kind: CoreKind;
  backend: string; // the table's name: "bitcoin" or "liquid"
  rpc: CoreRpcClient; // the operator wallet's client
  walletName: string; // '' when the node's default wallet is used
  network: FerryConfig['network'];
  /** The largest lockup Ferry may send on this chain (a reverse or chain swap's `maximal`), sat; 0: none. */
  largestLockupSat: number;
}

const btcText = (sat: number): string => (sat / 1e8).toFixed(8);

function describe(error: unknown): string {
  if (error instanceof RpcError) return `${error.method}: ${error.message} (code ${error.code})`;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return cause ? `${(error as Error).message} (${cause})` : (error as Error).message;
}

export async function checkCoreNode(options: CoreCheckOptions): Promise<CheckList> {
  const { kind, rpc, network } = options;
  const list = new CheckList(options.backend);
  let info: Record<string, unknown>;
  try {
    info = await rpc.getNetworkInfo();
  } catch (error) {
    const auth = error instanceof RpcError && /unauthorized/.test(error.message);
    list.fail(auth ? 'auth' : 'reachable', auth ? 'the node refused the RPC credentials (rpcUser, rpcPassword)' : describe(error));
    return list;
  }
  list.ok('reachable', String(info.subversion ?? ''));
  const minimum = MINIMUM_VERSION[kind];
  const version = Number(info.version);
  if (version >= minimum.number) list.ok('version', `${version} ≥ ${minimum.number}`);
  else list.fail('version', `${version} is older than ${minimum.text}, the minimum for ${minimum.why}`);

  await list.run('network', async () => {
    const chainInfo = await rpc.getBlockchainInfo();
    const expected = CHAINS[kind][network];
    if (!expected.includes(chainInfo.chain)) {
      list.fail('network', `the node is on "${chainInfo.chain}", network "${network}" needs ${expected.map((c) => `"${c}"`).join(' or ')}`);
      return;
    }
    list.ok('network', chainInfo.chain);
    if (chainInfo.initialblockdownload === true) {
      list.fail('synced', `in initial block download (${chainInfo.blocks} of ${chainInfo.headers} blocks)`);
    } else list.ok('synced', `${chainInfo.blocks} blocks`);
  });

  if (kind === 'elements') {
    await list.run('L-BTC asset', async () => {
      const labels = await rpc.call<Record<string, string>>('dumpassetlabels');
      const expected = policyAsset(network);
      if (labels.bitcoin === expected) list.ok('L-BTC asset', expected);
      else list.fail('L-BTC asset', `the node's "bitcoin" asset is ${labels.bitcoin ?? 'not labelled'}, network "${network}" has L-BTC ${expected}`);
    });
  }

  const wallet = options.walletName === '' ? 'the default wallet' : `wallet "${options.walletName}"`;
  const loaded = await list.run('wallet', async () => {
    try {
      const walletInfo = await rpc.getWalletInfo();
      list.ok('wallet', String(walletInfo.walletname ?? options.walletName));
    } catch (error) {
      if (error instanceof RpcError && (error.code === -18 || error.code === -19)) {
        list.fail('wallet', `${wallet} is not loaded: ${error.message} (createwallet or loadwallet it, or set ${options.backend}.wallet)`);
        return;
      }
      throw error;
    }
  });
  if (!loaded || options.largestLockupSat <= 0) return list;
  await list.run('balance', async () => {
    const answer = await rpc.call<number | Record<string, number>>('getbalance');
    const btc = typeof answer === 'number' ? answer : (answer.bitcoin ?? 0);
    const sat = Math.round(btc * 1e8);
    const detail = `${btcText(sat)} spendable, the largest lockup is ${btcText(options.largestLockupSat)}`;
    if (sat < options.largestLockupSat) list.warn('balance', `${detail}: larger reverse and chain swaps will fail to lock`);
    else list.ok('balance', detail);
  });
  return list;
}
