// The messages of the hold plugin's gRPC service (hold.proto, beside this file: the plugin's own, v0.3.3), as Ferry's
// hold client and the devnet's hold plugin both read and write them: proto field names, uint64 as decimal strings,
// bytes as Buffers, enums by name. Each side loads hold.proto with its own gRPC library; only the shapes are shared.
import type { HeldOnionMessage } from '../onion-message-hook.ts';

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

const optional = (buffer: Buffer | undefined): Uint8Array | undefined => (buffer === undefined ? undefined : new Uint8Array(buffer));

/** The plugin's message in the shape Ferry's responder reads. */
export function heldOnionMessage(message: OnionMessageProto): HeldOnionMessage {
  const path = message.reply_blindedpath;
  return {
    id: BigInt(message.id),
    pathSecret: optional(message.pathsecret),
    replyBlindedPath: path && {
      firstNodeId: optional(path.first_node_id),
      firstScid: path.first_scid,
      firstScidDir: path.first_scid_dir === undefined ? undefined : Number(path.first_scid_dir),
      firstPathKey: optional(path.first_path_key),
      hops: path.hops.map((hop) => ({ blindedNodeId: optional(hop.blinded_node_id), encryptedRecipientData: optional(hop.encrypted_recipient_data) })),
    },
    invoiceRequest: optional(message.invoice_request),
    invoice: optional(message.invoice),
    invoiceError: optional(message.invoice_error),
    unknownFields: message.unknown_fields.map((field) => ({ number: BigInt(field.number), value: new Uint8Array(field.value) })),
  };
}

const bytesOf = (value: Uint8Array | undefined): Buffer | undefined => (value === undefined ? undefined : Buffer.from(value));

/** The other way, as a node's plugin sends it (the devnet's CLN node). */
export function onionMessageProto(message: HeldOnionMessage): OnionMessageProto {
  const path = message.replyBlindedPath;
  return {
    id: message.id.toString(),
    pathsecret: bytesOf(message.pathSecret),
    reply_blindedpath: path && {
      first_node_id: bytesOf(path.firstNodeId),
      first_scid: path.firstScid,
      first_scid_dir: path.firstScidDir,
      first_path_key: bytesOf(path.firstPathKey),
      hops: path.hops.map((hop) => ({ blinded_node_id: bytesOf(hop.blindedNodeId), encrypted_recipient_data: bytesOf(hop.encryptedRecipientData) })),
    },
    invoice_request: bytesOf(message.invoiceRequest),
    invoice: bytesOf(message.invoice),
    invoice_error: bytesOf(message.invoiceError),
    unknown_fields: message.unknownFields.map((field) => ({ number: field.number.toString(), value: Buffer.from(field.value) })),
  };
}
