// Writes and signs a BOLT11 invoice with a node's secret key, through the bolt11 package. Ours are only the
// checks on the input and the field choices (which fields, in which order, and the defaults Ferry writes).
import { encode, sign, type PaymentRequestObject } from 'bolt11';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { DEFAULT_EXPIRY, DEFAULT_MIN_FINAL_CLTV_EXPIRY } from './decode.ts';
import { featureBitsToPackage } from './features.ts';
import { NETWORKS } from './networks.ts';
import type { Bolt11InvoiceFields } from './types.ts';

// What LND puts in its invoices: var_onion_optin and payment_secret required, basic_mpp optional.
export const DEFAULT_FEATURE_BITS = [8, 14, 17];

const HASH = /^[0-9a-f]{64}$/;

export function encodeBolt11(fields: Bolt11InvoiceFields, secretKey: Uint8Array): string {
  if (!HASH.test(fields.paymentHash)) throw new Error('payment hash must be 32 bytes of hex');
  if (fields.paymentSecret !== undefined && !HASH.test(fields.paymentSecret)) {
    throw new Error('payment secret must be 32 bytes of hex');
  }
  if (fields.descriptionHash !== undefined && !HASH.test(fields.descriptionHash)) {
    throw new Error('description hash must be 32 bytes of hex');
  }
  if ((fields.description === undefined) === (fields.descriptionHash === undefined)) {
    throw new Error('an invoice needs exactly one of description and description hash');
  }
  if (fields.amountMsat !== undefined && fields.amountMsat <= 0n) throw new Error('invoice amount must be positive');
  if (!Number.isSafeInteger(fields.timestamp) || fields.timestamp < 0 || fields.timestamp >= 2 ** 35) {
    throw new Error('timestamp does not fit in 35 bits');
  }

  const tags: PaymentRequestObject['tags'] = [{ tagName: 'payment_hash', data: fields.paymentHash }];
  if (fields.paymentSecret !== undefined) tags.push({ tagName: 'payment_secret', data: fields.paymentSecret });
  if (fields.description !== undefined) tags.push({ tagName: 'description', data: fields.description });
  if (fields.descriptionHash !== undefined) tags.push({ tagName: 'purpose_commit_hash', data: fields.descriptionHash });
  if (fields.expiry !== undefined && fields.expiry !== DEFAULT_EXPIRY) tags.push({ tagName: 'expire_time', data: fields.expiry });
  tags.push({ tagName: 'min_final_cltv_expiry', data: fields.minFinalCltvExpiry ?? DEFAULT_MIN_FINAL_CLTV_EXPIRY });
  for (const hint of fields.routeHints ?? []) {
    const data = hint.map((hop) => ({
      pubkey: hop.pubkey,
      short_channel_id: hop.shortChannelId,
      fee_base_msat: hop.feeBaseMsat,
      fee_proportional_millionths: hop.feeProportionalMillionths,
      cltv_expiry_delta: hop.cltvExpiryDelta,
    }));
    tags.push({ tagName: 'routing_info', data });
  }
  const features = fields.featureBits ?? (fields.paymentSecret === undefined ? [] : DEFAULT_FEATURE_BITS);
  if (features.length > 0) tags.push({ tagName: 'feature_bits', data: featureBitsToPackage(features) });
  if (fields.includeNodeKey === true) {
    tags.push({ tagName: 'payee_node_key', data: bytesToHex(secp256k1.getPublicKey(secretKey, true)) });
  }

  // Without defaults bolt11 writes exactly these fields, in this order.
  const unsigned = encode(
    {
      network: NETWORKS[fields.network],
      timestamp: fields.timestamp,
      millisatoshis: fields.amountMsat?.toString(),
      tags,
    },
    false,
  );
  const signed = sign(unsigned, Buffer.from(secretKey));
  if (signed.paymentRequest === undefined) throw new Error('bolt11 did not sign the invoice');
  return signed.paymentRequest;
}
