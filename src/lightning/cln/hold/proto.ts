// The hold plugin's gRPC service, loaded from hold.proto next to this file (it ships with the sources and is
// copied beside the build), with the TypeScript shapes of the messages Ferry and the devnet exchange over it.
// Messages are read with proto field names, uint64 as decimal strings, bytes as Buffers and enums by name.
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

export type HoldState = 'UNPAID' | 'ACCEPTED' | 'PAID' | 'CANCELLED';
export type HookActionName = 'Continue' | 'Resolve';
type U64 = string | number;

export interface HoldHop {
  public_key: Buffer;
  short_channel_id: U64;
  base_fee: U64;
  ppm_fee: U64;
  cltv_expiry_delta: U64;
}

export interface InvoiceRequest {
  payment_hash: Buffer;
  amount_msat: U64;
  memo?: string;
  hash?: Buffer;
  description?: 'memo' | 'hash';
  expiry?: U64;
  min_final_cltv_expiry?: U64;
  routing_hints?: { hops: HoldHop[] }[];
}

export interface HoldHtlc {
  id: U64;
  state: HoldState;
  scid: string;
  channel_id: U64;
  msat: U64;
  created_at: U64;
  cltv_expiry?: U64;
}

export interface HoldInvoice {
  id: U64;
  payment_hash: Buffer;
  preimage?: Buffer;
  invoice: string;
  state: HoldState;
  created_at: U64;
  settled_at?: U64;
  htlcs: HoldHtlc[];
  min_cltv_expiry?: U64;
}

export interface ListRequest {
  payment_hash?: Buffer;
  pagination?: { index_start: U64; limit: U64 };
}

export interface OnionMessageProto {
  id: U64;
  pathsecret?: Buffer;
  reply_blindedpath?: {
    first_node_id?: Buffer;
    first_scid?: string;
    first_scid_dir?: U64;
    first_path_key?: Buffer;
    hops: { blinded_node_id?: Buffer; encrypted_recipient_data?: Buffer }[];
  };
  invoice_request?: Buffer;
  invoice?: Buffer;
  invoice_error?: Buffer;
  unknown_fields: { number: U64; value: Buffer }[];
}

export interface OnionMessageResponseProto {
  id: U64;
  action: HookActionName;
}

const definition = loadSync(fileURLToPath(new URL('./hold.proto', import.meta.url)), {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
});

/** The generated client class of `hold.Hold`; its `service` is what a server implements. */
export const HoldService = (loadPackageDefinition(definition).hold as { Hold: ServiceClientConstructor }).Hold;
