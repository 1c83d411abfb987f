// Checks of an LND node over its REST API: reachable with the macaroon, recent enough, synced, on the configured
// network, its invoices and router sub-servers compiled in, the macaroon granting every method Ferry calls, and
// its channels' liquidity against the pairs' limits.
// Minimum LND 0.18: the oldest release whose REST contract Ferry's calls are checked against (issue 22's contract
// tests at v0.18.5), and the first whose payments report INITIATED, which Ferry reads as in flight.
// Sub-servers: a REST path of a sub-server not compiled in reaches no handler, and LND's gateway answers it 404
// {"code":5,"message":"Not Found"}; a compiled-in one answers a lookup of an unknown hash with its own NOT_FOUND
// text ("unable to locate invoice", "payment isn't initiated") or with a refusal of the macaroon.
// Permissions: ListPermissions (GET /v1/macaroon/permissions, info:read) gives each method's required
// permissions, CheckMacaroonPermissions (POST /v1/macaroon/checkpermissions, macaroon:read) checks Ferry's macaroon
// against them: InvalidArgument "permission denied" when it lacks one.
import type { FerryConfig } from '../config/index.ts';
import { LndRestError, type LndTransport } from '../lightning/lnd/transport.ts';
import { CheckList, errorText, versionAtLeast, versionParts } from './check.ts';
import { judgeLiquidity, type LiquidityNeeds } from './liquidity.ts';

export const LND_MINIMUM = [0, 18, 0];

/** Every gRPC method Ferry's LND adapter reaches (src/lightning/lnd). */
export const FERRY_LND_METHODS = [
  '/lnrpc.Lightning/GetInfo',
  '/lnrpc.Lightning/ListChannels',
  '/lnrpc.Lightning/GetNodeInfo',
  '/lnrpc.Lightning/GetChanInfo',
  '/lnrpc.Lightning/DescribeGraph',
  '/lnrpc.Lightning/ListInvoices',
  '/invoicesrpc.Invoices/AddHoldInvoice',
  '/invoicesrpc.Invoices/SettleInvoice',
  '/invoicesrpc.Invoices/CancelInvoice',
  '/invoicesrpc.Invoices/LookupInvoiceV2',
  '/invoicesrpc.Invoices/SubscribeSingleInvoice',
  '/routerrpc.Router/SendPaymentV2',
  '/routerrpc.Router/TrackPaymentV2',
];

const NETWORKS: Record<FerryConfig['network'], string[]> = {
  mainnet: ['mainnet'],
  testnet: ['testnet', 'testnet4'],
  signet: ['signet'],
  regtest: ['regtest'],
};

// 32 zero bytes as LND's gateway reads bytes in a URL: URL-safe base64 with its `=` padding.
const ZERO_HASH_B64URL = Buffer.alloc(32).toString('base64url') + '=';

const isGatewayNotFound = (error: unknown): boolean =>
  error instanceof LndRestError && error.httpStatus === 404 && error.message === 'Not Found';

interface Permission {
  entity: string;
  action: string;
}

export interface LndCheckOptions {
  http: LndTransport;
  macaroonHex: string;
  network: FerryConfig['network'];
  needs: LiquidityNeeds;
}

async function subServer(list: CheckList, name: string, probe: () => Promise<unknown>, present: RegExp): Promise<void> {
  await list.run(`${name} sub-server`, async () => {
    try {
      await probe();
      list.ok(`${name} sub-server`);
    } catch (error) {
      if (isGatewayNotFound(error)) {
        list.fail(`${name} sub-server`, `not compiled in: LND must be built with the ${name}rpc tag (make tags="${name}rpc ...")`);
      } else if (error instanceof LndRestError && (present.test(error.message) || error.message === 'permission denied')) {
        list.ok(`${name} sub-server`);
      } else throw error;
    }
  });
}

function trackOnce(http: LndTransport, path: string): Promise<void> {
  const sub = http.stream('GET', path, undefined, () => sub.close());
  return sub.done;
}

async function checkPermissions(list: CheckList, http: LndTransport, macaroonHex: string): Promise<void> {
  let all: Record<string, { permissions?: Permission[] }>;
  try {
    all = (await http.request<{ method_permissions: Record<string, { permissions?: Permission[] }> }>('GET', '/v1/macaroon/permissions')).method_permissions;
  } catch (error) {
    list.warn('macaroon', `cannot list the methods' permissions (ListPermissions): ${errorText(error)}`);
    return;
  }
  const macaroon = Buffer.from(macaroonHex, 'hex').toString('base64');
  const lacking: string[] = [];
  for (const method of FERRY_LND_METHODS) {
    const permissions = all[method]?.permissions ?? [];
    try {
      await http.request('POST', '/v1/macaroon/checkpermissions', { macaroon, permissions, fullMethod: method });
    } catch (error) {
      if (error instanceof LndRestError && error.code === 3 && /permission denied/.test(error.message)) {
        lacking.push(`${method.split('/').pop()} (${permissions.map((p) => `${p.entity}:${p.action}`).join(', ')})`);
        continue;
      }
      if (error instanceof LndRestError && error.code === 2 && error.message === 'permission denied') {
        list.warn('macaroon', 'cannot check its permissions: it lacks macaroon:read (CheckMacaroonPermissions)');
        return;
      }
      throw error;
    }
  }
  if (lacking.length === 0) list.ok('macaroon', `grants the ${FERRY_LND_METHODS.length} methods Ferry calls`);
  else list.fail('macaroon', `lacks the permissions of ${lacking.join('; ')}`);
}

export async function checkLnd(options: LndCheckOptions): Promise<CheckList> {
  const { http, network } = options;
  const list = new CheckList('lnd');
  let info: { version: string; synced_to_chain: boolean; block_height: number; chains?: { network: string }[] };
  try {
    info = await http.request('GET', '/v1/getinfo');
  } catch (error) {
    const refused = error instanceof LndRestError && error.code === 2;
    list.fail(refused ? 'macaroon' : 'reachable', refused ? `LND refused the macaroon: ${error.message}` : errorText(error));
    return list;
  }
  list.ok('reachable');
  const version = versionParts(info.version);
  if (versionAtLeast(version, LND_MINIMUM)) list.ok('version', info.version);
  else list.fail('version', `${info.version} is older than ${LND_MINIMUM.join('.')}, the oldest LND whose REST contract Ferry is checked against`);
  if (info.synced_to_chain) list.ok('synced', `height ${info.block_height}`);
  else list.fail('synced', 'not synced to chain (synced_to_chain false)');
  const nodeNetwork = info.chains?.[0]?.network ?? '';
  if (NETWORKS[network].includes(nodeNetwork)) list.ok('network', nodeNetwork);
  else list.fail('network', `the node is on "${nodeNetwork}", Ferry is configured for "${network}"`);

  await subServer(list, 'invoices', () => http.request('GET', `/v2/invoices/lookup?payment_hash=${encodeURIComponent(ZERO_HASH_B64URL)}`), /unable to locate invoice/);
  await subServer(list, 'router', () => trackOnce(http, `/v2/router/track/${ZERO_HASH_B64URL}`), /isn't initiated|not found/i);
  await checkPermissions(list, http, options.macaroonHex);

  await list.run('liquidity', async () => {
    const { channels } = await http.request<{ channels?: { active: boolean; local_balance: string; remote_balance: string }[] }>('GET', '/v1/channels');
    const active = (channels ?? []).filter((c) => c.active);
    const outboundSat = active.reduce((sum, c) => sum + Number(c.local_balance), 0);
    const inboundSat = active.reduce((sum, c) => sum + Number(c.remote_balance), 0);
    judgeLiquidity(list, { outboundSat, inboundSat }, options.needs);
  });
  return list;
}
