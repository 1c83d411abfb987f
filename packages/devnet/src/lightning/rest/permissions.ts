// Which gRPC method each REST path of the devnet's LND is (the gateway's mapping in lnd's *.yaml), and the
// macaroon permissions LND requires for it (rpcserver.go MainRPCServerPermissions, invoicesrpc's and routerrpc's
// macPermissions, at v0.18.5). The devnet refuses a request whose macaroon lacks them, as LND's interceptor does,
// and answers ListPermissions from this table.
import type { MacaroonOp } from './macaroons.ts';

const op = (entity: string, action: string): MacaroonOp => ({ entity, action });

/** LND's required permissions by full method name, for the methods the devnet serves. */
export const METHOD_PERMISSIONS: Record<string, MacaroonOp[]> = {
  '/lnrpc.Lightning/GetInfo': [op('info', 'read')],
  '/lnrpc.Lightning/ListChannels': [op('offchain', 'read')],
  '/lnrpc.Lightning/ChannelBalance': [op('offchain', 'read')],
  '/lnrpc.Lightning/GetNetworkInfo': [op('info', 'read')],
  '/lnrpc.Lightning/GetNodeInfo': [op('info', 'read')],
  '/lnrpc.Lightning/GetChanInfo': [op('info', 'read')],
  '/lnrpc.Lightning/DescribeGraph': [op('info', 'read')],
  '/lnrpc.Lightning/AddInvoice': [op('invoices', 'write')],
  '/lnrpc.Lightning/ListInvoices': [op('invoices', 'read')],
  '/lnrpc.Lightning/LookupInvoice': [op('invoices', 'read')],
  '/lnrpc.Lightning/DecodePayReq': [op('offchain', 'read')],
  '/lnrpc.Lightning/ListPayments': [op('offchain', 'read')],
  '/lnrpc.Lightning/SendPaymentSync': [op('offchain', 'write')],
  '/lnrpc.Lightning/BakeMacaroon': [op('macaroon', 'generate')],
  '/lnrpc.Lightning/ListPermissions': [op('info', 'read')],
  '/lnrpc.Lightning/CheckMacaroonPermissions': [op('macaroon', 'read')],
  '/invoicesrpc.Invoices/AddHoldInvoice': [op('invoices', 'write')],
  '/invoicesrpc.Invoices/SettleInvoice': [op('invoices', 'write')],
  '/invoicesrpc.Invoices/CancelInvoice': [op('invoices', 'write')],
  '/invoicesrpc.Invoices/LookupInvoiceV2': [op('invoices', 'write')],
  '/invoicesrpc.Invoices/SubscribeSingleInvoice': [op('invoices', 'read')],
  '/routerrpc.Router/SendPaymentV2': [op('offchain', 'write')],
  '/routerrpc.Router/TrackPaymentV2': [op('offchain', 'read')],
};

const REST_METHODS: [string, RegExp, string][] = [
  ['GET', /^\/v1\/getinfo$/, '/lnrpc.Lightning/GetInfo'],
  ['GET', /^\/v1\/channels$/, '/lnrpc.Lightning/ListChannels'],
  ['GET', /^\/v1\/balance\/channels$/, '/lnrpc.Lightning/ChannelBalance'],
  ['GET', /^\/v1\/graph\/info$/, '/lnrpc.Lightning/GetNetworkInfo'],
  ['GET', /^\/v1\/graph\/node\/[^/]+$/, '/lnrpc.Lightning/GetNodeInfo'],
  ['GET', /^\/v1\/graph\/edge\/[^/]+$/, '/lnrpc.Lightning/GetChanInfo'],
  ['GET', /^\/v1\/graph$/, '/lnrpc.Lightning/DescribeGraph'],
  ['POST', /^\/v1\/invoices$/, '/lnrpc.Lightning/AddInvoice'],
  ['GET', /^\/v1\/invoices$/, '/lnrpc.Lightning/ListInvoices'],
  ['GET', /^\/v1\/invoice\/[^/]+$/, '/lnrpc.Lightning/LookupInvoice'],
  ['GET', /^\/v1\/payreq\/[^/]+$/, '/lnrpc.Lightning/DecodePayReq'],
  ['GET', /^\/v1\/payments$/, '/lnrpc.Lightning/ListPayments'],
  ['POST', /^\/v1\/channels\/transactions$/, '/lnrpc.Lightning/SendPaymentSync'],
  ['POST', /^\/v1\/macaroon$/, '/lnrpc.Lightning/BakeMacaroon'],
  ['GET', /^\/v1\/macaroon\/permissions$/, '/lnrpc.Lightning/ListPermissions'],
  ['POST', /^\/v1\/macaroon\/checkpermissions$/, '/lnrpc.Lightning/CheckMacaroonPermissions'],
  ['POST', /^\/v2\/invoices\/hodl$/, '/invoicesrpc.Invoices/AddHoldInvoice'],
  ['POST', /^\/v2\/invoices\/settle$/, '/invoicesrpc.Invoices/SettleInvoice'],
  ['POST', /^\/v2\/invoices\/cancel$/, '/invoicesrpc.Invoices/CancelInvoice'],
  ['GET', /^\/v2\/invoices\/lookup$/, '/invoicesrpc.Invoices/LookupInvoiceV2'],
  ['GET', /^\/v2\/invoices\/subscribe\/[^/]+$/, '/invoicesrpc.Invoices/SubscribeSingleInvoice'],
  ['POST', /^\/v2\/router\/send$/, '/routerrpc.Router/SendPaymentV2'],
  ['GET', /^\/v2\/router\/track\/[^/]+$/, '/routerrpc.Router/TrackPaymentV2'],
];

/** The full gRPC method a REST call reaches, or undefined for a path the gateway does not route. */
export function fullMethodOf(method: string, path: string): string | undefined {
  return REST_METHODS.find(([m, pattern]) => m === method && pattern.test(path))?.[2];
}
