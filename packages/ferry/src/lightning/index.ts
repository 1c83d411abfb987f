export type {
  HoldInvoiceRequest,
  InvoiceState,
  InvoiceUpdate,
  LightningBackend,
  NodeInfo,
  NodeStats,
  PayRequest,
  PaymentStatus,
  PaymentUpdate,
  Subscription,
} from './backend.ts';
export { LndRestClient, type LndRestClientOptions } from './lnd/client.ts';
export { LndRestError } from './lnd/transport.ts';
export { decodeBolt11, encodeBolt11, type Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
export { nodesResponse, nodeStatsResponse } from './api.ts';
export { ClnBackend, type ClnBackendOptions } from './cln/client.ts';
export { ClnRestError } from './cln/transport.ts';
