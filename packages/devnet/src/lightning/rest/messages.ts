// The request messages the devnet's LND REST takes in a JSON body: each field's proto name and protojson kind, so
// a body is decoded as LND's gateway decodes it (protojson: unknown fields refused, 64-bit integers as numbers or
// strings, bytes as base64, enums by name or number). Derived from LND's REST swagger at v0.20.3-beta
// (test/fixtures/lnd/*.swagger.json); the fields a newer LND added are refused by an older one, which the devnet,
// answering as one LND, does not tell apart.

export type FieldKind = string; // 'bytes' | 'int64' | 'uint64' | 'int32' | 'uint32' | 'bool' | 'string' | 'double' | 'float' | 'enum:X' | 'message:X' | 'repeated:K' | 'map:K'

export const ENUMS: Record<string, string[]> = {
  "InvoiceInvoiceState": [
    "OPEN",
    "SETTLED",
    "CANCELED",
    "ACCEPTED"
  ],
  "lnrpcInvoiceHTLCState": [
    "ACCEPTED",
    "SETTLED",
    "CANCELED"
  ],
  "lnrpcFeatureBit": [
    "DATALOSS_PROTECT_REQ",
    "DATALOSS_PROTECT_OPT",
    "INITIAL_ROUING_SYNC",
    "UPFRONT_SHUTDOWN_SCRIPT_REQ",
    "UPFRONT_SHUTDOWN_SCRIPT_OPT",
    "GOSSIP_QUERIES_REQ",
    "GOSSIP_QUERIES_OPT",
    "TLV_ONION_REQ",
    "TLV_ONION_OPT",
    "EXT_GOSSIP_QUERIES_REQ",
    "EXT_GOSSIP_QUERIES_OPT",
    "STATIC_REMOTE_KEY_REQ",
    "STATIC_REMOTE_KEY_OPT",
    "PAYMENT_ADDR_REQ",
    "PAYMENT_ADDR_OPT",
    "MPP_REQ",
    "MPP_OPT",
    "WUMBO_CHANNELS_REQ",
    "WUMBO_CHANNELS_OPT",
    "ANCHORS_REQ",
    "ANCHORS_OPT",
    "ANCHORS_ZERO_FEE_HTLC_REQ",
    "ANCHORS_ZERO_FEE_HTLC_OPT",
    "ROUTE_BLINDING_REQUIRED",
    "ROUTE_BLINDING_OPTIONAL",
    "AMP_REQ",
    "AMP_OPT"
  ]
};

export const MESSAGES: Record<string, Record<string, FieldKind>> = {
  "lnrpcMacaroonPermission": {
    "entity": "string",
    "action": "string"
  },
  "lnrpcBakeMacaroonRequest": {
    "permissions": "repeated:message:lnrpcMacaroonPermission",
    "root_key_id": "uint64",
    "allow_external_permissions": "bool"
  },
  "lnrpcCheckMacPermRequest": {
    "macaroon": "bytes",
    "permissions": "repeated:message:lnrpcMacaroonPermission",
    "fullMethod": "string",
    "check_default_perms_from_full_method": "bool"
  },
  "lnrpcInvoice": {
    "memo": "string",
    "r_preimage": "bytes",
    "r_hash": "bytes",
    "value": "int64",
    "value_msat": "int64",
    "settled": "bool",
    "creation_date": "int64",
    "settle_date": "int64",
    "payment_request": "string",
    "description_hash": "bytes",
    "expiry": "int64",
    "fallback_addr": "string",
    "cltv_expiry": "uint64",
    "route_hints": "repeated:message:lnrpcRouteHint",
    "private": "bool",
    "add_index": "uint64",
    "settle_index": "uint64",
    "amt_paid": "int64",
    "amt_paid_sat": "int64",
    "amt_paid_msat": "int64",
    "state": "enum:InvoiceInvoiceState",
    "htlcs": "repeated:message:lnrpcInvoiceHTLC",
    "features": "map:message:lnrpcFeature",
    "is_keysend": "bool",
    "payment_addr": "bytes",
    "is_amp": "bool",
    "amp_invoice_state": "map:message:lnrpcAMPInvoiceState",
    "is_blinded": "bool",
    "blinded_path_config": "message:lnrpcBlindedPathConfig"
  },
  "lnrpcRouteHint": {
    "hop_hints": "repeated:message:lnrpcHopHint"
  },
  "lnrpcHopHint": {
    "node_id": "string",
    "chan_id": "uint64",
    "fee_base_msat": "int32",
    "fee_proportional_millionths": "int32",
    "cltv_expiry_delta": "int32"
  },
  "lnrpcInvoiceHTLC": {
    "chan_id": "uint64",
    "htlc_index": "uint64",
    "amt_msat": "uint64",
    "accept_height": "int32",
    "accept_time": "int64",
    "resolve_time": "int64",
    "expiry_height": "int32",
    "state": "enum:lnrpcInvoiceHTLCState",
    "custom_records": "map:bytes",
    "mpp_total_amt_msat": "uint64",
    "amp": "message:lnrpcAMP",
    "custom_channel_data": "bytes"
  },
  "lnrpcAMP": {
    "root_share": "bytes",
    "set_id": "bytes",
    "child_index": "int32",
    "hash": "bytes",
    "preimage": "bytes"
  },
  "lnrpcFeature": {
    "name": "string",
    "is_required": "bool",
    "is_known": "bool"
  },
  "lnrpcAMPInvoiceState": {
    "state": "enum:lnrpcInvoiceHTLCState",
    "settle_index": "uint64",
    "settle_time": "int64",
    "amt_paid_msat": "int64"
  },
  "lnrpcBlindedPathConfig": {
    "min_num_real_hops": "int32",
    "num_hops": "int32",
    "max_num_paths": "int32",
    "node_omission_list": "repeated:bytes",
    "incoming_channel_list": "repeated:uint64"
  },
  "invoicesrpcAddHoldInvoiceRequest": {
    "memo": "string",
    "hash": "bytes",
    "value": "int64",
    "value_msat": "int64",
    "description_hash": "bytes",
    "expiry": "int64",
    "fallback_addr": "string",
    "cltv_expiry": "uint64",
    "route_hints": "repeated:message:lnrpcRouteHint",
    "private": "bool"
  },
  "invoicesrpcSettleInvoiceMsg": {
    "preimage": "bytes"
  },
  "invoicesrpcCancelInvoiceMsg": {
    "payment_hash": "bytes"
  },
  "routerrpcSendPaymentRequest": {
    "dest": "bytes",
    "amt": "int64",
    "payment_hash": "bytes",
    "final_cltv_delta": "int32",
    "payment_request": "string",
    "timeout_seconds": "int32",
    "fee_limit_sat": "int64",
    "outgoing_chan_id": "uint64",
    "cltv_limit": "int32",
    "route_hints": "repeated:message:lnrpcRouteHint",
    "dest_custom_records": "map:bytes",
    "amt_msat": "int64",
    "fee_limit_msat": "int64",
    "last_hop_pubkey": "bytes",
    "allow_self_payment": "bool",
    "dest_features": "repeated:enum:lnrpcFeatureBit",
    "max_parts": "int32",
    "no_inflight_updates": "bool",
    "outgoing_chan_ids": "repeated:uint64",
    "payment_addr": "bytes",
    "max_shard_size_msat": "uint64",
    "amp": "bool",
    "time_pref": "double",
    "cancelable": "bool",
    "first_hop_custom_records": "map:bytes"
  },
  "lnrpcSendRequest": {
    "dest": "bytes",
    "dest_string": "string",
    "amt": "int64",
    "amt_msat": "int64",
    "payment_hash": "bytes",
    "payment_hash_string": "string",
    "payment_request": "string",
    "final_cltv_delta": "int32",
    "fee_limit": "message:lnrpcFeeLimit",
    "outgoing_chan_id": "uint64",
    "last_hop_pubkey": "bytes",
    "cltv_limit": "int32",
    "dest_custom_records": "map:bytes",
    "allow_self_payment": "bool",
    "dest_features": "repeated:enum:lnrpcFeatureBit",
    "payment_addr": "bytes"
  },
  "lnrpcFeeLimit": {
    "fixed": "int64",
    "fixed_msat": "int64",
    "percent": "int64"
  }
};
