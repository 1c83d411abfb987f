// lnrpc.RouteHint lists in a request body (AddHoldInvoiceRequest.route_hints), read as LND's invoicesrpc reads them
// (CreateZpay32HopHints): node_id must be hex of a valid compressed or uncompressed public key, else the call fails
// with the decoder's or btcec's text; chan_id is a uint64 that grpc-gateway takes as a decimal string or a number.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import { GRPC, LndError } from '../errors.ts';
import type { Body } from './request.ts';

const MAX_UINT64 = (1n << 64n) - 1n;

function nodeKey(text: unknown): string {
  const value = typeof text === 'string' ? text : '';
  const bad = /[^0-9a-fA-F]/.exec(value);
  if (bad !== null) throw new LndError(GRPC.UNKNOWN, `encoding/hex: invalid byte: U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(bad[0]).replace(/"/g, "'")}`);
  if (value.length % 2 !== 0) throw new LndError(GRPC.UNKNOWN, 'encoding/hex: odd length hex string');
  const length = value.length / 2;
  if (length !== 33 && length !== 65) throw new LndError(GRPC.UNKNOWN, `malformed public key: invalid length: ${length}`);
  try {
    return secp256k1.Point.fromHex(value.toLowerCase()).toHex(true);
  } catch {
    throw new LndError(GRPC.UNKNOWN, 'invalid public key: x coordinate is not on the secp256k1 curve');
  }
}

function uint(value: unknown, name: string, max: bigint): bigint {
  if (value === undefined || value === null || value === '') return 0n;
  let n: bigint;
  try {
    n = BigInt(typeof value === 'number' || typeof value === 'string' ? value : NaN);
  } catch {
    throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  }
  if (n < 0n || n > max) throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  return n;
}

export function routeHintsField(body: Body, name: string): RouteHintHop[][] {
  const hints = body[name];
  if (!Array.isArray(hints)) return [];
  return hints.map((hint: { hop_hints?: unknown }) =>
    (Array.isArray(hint?.hop_hints) ? hint.hop_hints : []).map((hop: Record<string, unknown>): RouteHintHop => ({
      pubkey: nodeKey(hop.node_id),
      shortChannelId: uint(hop.chan_id, 'chan_id', MAX_UINT64).toString(16).padStart(16, '0'),
      feeBaseMsat: Number(uint(hop.fee_base_msat, 'fee_base_msat', 0xffffffffn)),
      feeProportionalMillionths: Number(uint(hop.fee_proportional_millionths, 'fee_proportional_millionths', 0xffffffffn)),
      // zpay32 keeps a uint16: LND truncates larger values.
      cltvExpiryDelta: Number(uint(hop.cltv_expiry_delta, 'cltv_expiry_delta', 0xffffffffn) & 0xffffn),
    })),
  );
}
