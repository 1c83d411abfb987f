// The "magic routing hint" of reverse swaps: a receiving wallet that would get coins on chain anyway asks the service
// to put its own claim key into the swap invoice's routing hints, under a short channel id no real channel has
// (0846c900051c0000), and signs its address with that key. A payer who finds the hint fetches the signed BIP21
// (GET /v2/swap/reverse/{invoice}/bip21), checks the address signature against the key in the invoice (which the
// service's node signed), the asset and the amount, and pays the receiver on chain directly: no Lightning payment,
// no swap fee, no second round trip. The facts (the id, the hop's fee and CLTV fields, the BIP340 signature over
// SHA256 of the address text) are the reference's, so wallets of either side interoperate.
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { Bolt11Invoice, RouteHintHop } from './bolt11/types.ts';

/** Block 542409, transaction 1308, output 0: a channel id that stands for "this hop is the receiver's key". */
export const MAGIC_ROUTING_HINT_SCID = '0846c900051c0000';

/** The hint a service puts into a reverse swap's invoice for a receiver whose claim key is `claimPublicKey`. */
export function magicRoutingHint(claimPublicKey: Uint8Array): RouteHintHop[] {
  return [{ pubkey: hex.encode(claimPublicKey), shortChannelId: MAGIC_ROUTING_HINT_SCID, feeBaseMsat: 0, feeProportionalMillionths: 21, cltvExpiryDelta: 81 }];
}

/** The receiver's key from an invoice's magic routing hint, or undefined when it has none. */
export function findMagicRoutingHint(invoice: Pick<Bolt11Invoice, 'routeHints'>): { publicKey: string } | undefined {
  for (const hops of invoice.routeHints) {
    const hop = hops.find((candidate) => candidate.shortChannelId === MAGIC_ROUTING_HINT_SCID);
    if (hop !== undefined) return { publicKey: hop.pubkey };
  }
  return undefined;
}

const addressDigest = (address: string): Uint8Array => sha256(new TextEncoder().encode(address));
const xOnly = (key: Uint8Array): Uint8Array => (key.length === 33 ? key.subarray(1) : key);

/** The receiver's `addressSignature`: BIP340 over SHA256 of the address text, by its claim key. */
export function signAddress(address: string, claimPrivateKey: Uint8Array): Uint8Array {
  return schnorr.sign(addressDigest(address), claimPrivateKey);
}

/** Whether `signature` is the holder of `publicKey` (33-byte compressed or 32-byte x-only) signing `address`. */
export function verifyAddressSignature(address: string, signature: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return schnorr.verify(signature, addressDigest(address), xOnly(publicKey));
  } catch {
    return false;
  }
}

export interface Bip21 {
  /** bitcoin, liquidnetwork, liquidtestnet, ... */
  scheme: string;
  address: string;
  /** sat, when the URI names an amount. */
  amount?: number;
  /** Liquid: the asset to pay. */
  assetId?: string;
  label?: string;
}

/** Reads a BIP21 URI; throws for text that is none. Amounts are BTC with at most 8 decimals. */
export function parseBip21(uri: string): Bip21 {
  const match = /^([a-z][a-z0-9+.-]*):([^?]+)(?:\?(.*))?$/i.exec(uri);
  if (match === null) throw new Error('not a BIP21 URI');
  const params = new URLSearchParams(match[3] ?? '');
  const out: Bip21 = { scheme: match[1].toLowerCase(), address: match[2] };
  const amount = params.get('amount');
  if (amount !== null) {
    const parts = /^(\d{1,8})(?:\.(\d{1,8}))?$/.exec(amount);
    if (parts === null) throw new Error(`invalid BIP21 amount: ${amount}`);
    out.amount = Number(parts[1]) * 100_000_000 + Number((parts[2] ?? '').padEnd(8, '0'));
  }
  const assetId = params.get('assetid');
  if (assetId !== null) out.assetId = assetId;
  const label = params.get('label');
  if (label !== null) out.label = label;
  return out;
}

/** What a payer may pay on chain instead of the invoice: the receiver's address, asset and amount. */
export interface DirectPayment {
  address: string;
  amount: number;
  assetId?: string;
  bip21: string;
}

/**
 * Checks the service's answer for an invoice with a magic routing hint: the address signed by the key in the hint,
 * on the expected chain (scheme) and asset, for no more than the invoice asks. Throws saying which check failed.
 */
export function checkDirectPayment(
  invoice: Pick<Bolt11Invoice, 'routeHints' | 'amountMsat'>,
  answer: { bip21: string; signature: string },
  expected: { schemes: readonly string[]; assetId?: string },
): DirectPayment {
  const hint = findMagicRoutingHint(invoice);
  if (hint === undefined) throw new Error('the invoice has no magic routing hint');
  const bip21 = parseBip21(answer.bip21);
  if (!expected.schemes.includes(bip21.scheme)) throw new Error(`the BIP21 is for ${bip21.scheme}, not ${expected.schemes.join(' or ')}`);
  if (!/^[0-9a-fA-F]{128}$/.test(answer.signature)) throw new Error('the address signature is not 64 bytes of hex');
  if (!verifyAddressSignature(bip21.address, hex.decode(answer.signature.toLowerCase()), hex.decode(hint.publicKey))) {
    throw new Error('the address signature does not match the key in the invoice');
  }
  if (expected.assetId !== undefined && bip21.assetId !== expected.assetId) throw new Error(`the BIP21 asks for asset ${bip21.assetId ?? '(none)'}, not ${expected.assetId}`);
  if (bip21.amount === undefined || bip21.amount <= 0) throw new Error('the BIP21 names no amount');
  if (invoice.amountMsat !== undefined && BigInt(bip21.amount) * 1000n > invoice.amountMsat) {
    throw new Error(`the BIP21 asks for ${bip21.amount} sat, more than the invoice's ${invoice.amountMsat / 1000n}`);
  }
  return { address: bip21.address, amount: bip21.amount, ...(bip21.assetId !== undefined && { assetId: bip21.assetId }), bip21: answer.bip21 };
}
