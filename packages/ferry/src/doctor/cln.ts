// Checks of a Core Lightning node over clnrest or its JSON-RPC socket: reachable with the rune, recent enough for BOLT12 invoice requests,
// synced, on the configured network, the hold plugin loaded (its RPC methods registered: lightningd answers an
// unknown method with -32601) and its gRPC reachable with the configured mTLS — without it Ferry cannot make hold
// invoices with the CLTV delta a reverse swap needs (the plugin's RPC `holdinvoice` drops it), so reverse swaps
// cannot be served —, and the channels' liquidity against the pairs' limits.
// Minimum 24.11 for `injectonionmessage`, which answers BOLT12 invoice requests; older nodes still serve BOLT11.
import type { FerryConfig } from '../config/index.ts';
import { HoldGrpcClient, type HoldGrpcOptions } from '../lightning/cln/hold/client.ts';
import { ClnRestError, type ClnCaller } from '../lightning/cln/transport.ts';
import { CheckList, errorText, versionAtLeast, versionParts } from './check.ts';
import { judgeLiquidity, type LiquidityNeeds } from './liquidity.ts';

export const CLN_BOLT12_MINIMUM = [24, 11];

const NETWORKS: Record<FerryConfig['network'], string[]> = {
  mainnet: ['bitcoin'],
  testnet: ['testnet', 'testnet4'],
  signet: ['signet'],
  regtest: ['regtest'],
};

export interface ClnCheckOptions {
  rpc: ClnCaller; // clnrest, or lightningd's socket
  /** The hold plugin's gRPC as configured; undefined: not configured. */
  hold: HoldGrpcOptions | undefined;
  network: FerryConfig['network'];
  /** Whether the configured pairs take reverse swaps (hold invoices). */
  servesReverse: boolean;
  needs: LiquidityNeeds;
}

const unknownCommand = (error: unknown): boolean => error instanceof ClnRestError && error.code === -32601;

export async function checkCln(options: ClnCheckOptions): Promise<CheckList> {
  const { rpc, network } = options;
  const list = new CheckList('cln');
  let info: { version: string; network: string; blockheight: number; warning_bitcoind_sync?: string; warning_lightningd_sync?: string };
  try {
    info = await rpc.call('getinfo');
  } catch (error) {
    const refused = error instanceof ClnRestError && (error.httpStatus === 401 || error.httpStatus === 403);
    list.fail(refused ? 'rune' : 'reachable', refused ? `clnrest refused the rune: ${error.message}` : errorText(error));
    return list;
  }
  list.ok('reachable');
  if (versionAtLeast(versionParts(info.version), CLN_BOLT12_MINIMUM)) list.ok('version', info.version);
  else list.warn('version', `${info.version} is older than 24.11: no injectonionmessage, so BOLT12 invoice requests cannot be answered`);
  const syncWarning = info.warning_bitcoind_sync ?? info.warning_lightningd_sync;
  if (syncWarning === undefined) list.ok('synced', `height ${info.blockheight}`);
  else list.fail('synced', syncWarning);
  if (NETWORKS[network].includes(info.network)) list.ok('network', info.network);
  else list.fail('network', `the node is on "${info.network}", Ferry is configured for "${network}"`);

  await list.run('hold plugin', async () => {
    try {
      await rpc.call('listholdinvoices', { payment_hash: '00'.repeat(32) });
      list.ok('hold plugin', 'its RPC methods are registered');
    } catch (error) {
      if (unknownCommand(error)) list.fail('hold plugin', `not loaded: ${(error as Error).message} (start lightningd with the hold plugin, BoltzExchange/hold)`);
      else throw error;
    }
  });
  await checkHoldGrpc(list, options);

  await list.run('liquidity', async () => {
    const { channels } = await rpc.call<{ channels?: { state: string; to_us_msat: number; total_msat: number }[] }>('listpeerchannels');
    const normal = (channels ?? []).filter((c) => c.state === 'CHANNELD_NORMAL');
    const outboundSat = Math.floor(normal.reduce((sum, c) => sum + Number(c.to_us_msat), 0) / 1000);
    const inboundSat = Math.floor(normal.reduce((sum, c) => sum + Number(c.total_msat) - Number(c.to_us_msat), 0) / 1000);
    judgeLiquidity(list, { outboundSat, inboundSat }, options.needs);
  });
  return list;
}

async function checkHoldGrpc(list: CheckList, options: ClnCheckOptions): Promise<void> {
  const consequence = 'reverse swaps cannot be served (the RPC holdinvoice drops the CLTV delta they need)';
  const missing = (detail: string) => (options.servesReverse ? list.fail('hold gRPC', `${detail}: ${consequence}`) : list.warn('hold gRPC', detail));
  if (options.hold === undefined) {
    missing('not configured (lightning.cln.hold.grpcUrl and its certificates)');
    return;
  }
  const client = new HoldGrpcClient({ ...options.hold, timeoutMs: options.hold.timeoutMs ?? 5_000 });
  try {
    const { version } = await client.getInfo();
    list.ok('hold gRPC', `${options.hold.url}, plugin ${version}`);
  } catch (error) {
    missing(`${options.hold.url} does not answer with the configured mTLS: ${errorText(error).replace(/\.? Resolution note: ?$/, '')}`);
  } finally {
    client.close();
  }
}
