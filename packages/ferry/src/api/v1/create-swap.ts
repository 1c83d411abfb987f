// v1 POST /createswap: legacy swaps, as v1 clients expect them — a submarine lockup to a P2SH-nested P2WSH address
// and a reverse lockup to a P2WSH one, each with the redeem script the client checks it against and spends with
// the preimage or its refund key; on EVM the swap contract, with the addresses instead of keys. The request's shape and the v1 pair (order side, pair hash, limits) are checked
// here; the engine creates the swap, with every semantic check of its v2 counterpart.
import type { SwapService, V1PairBody } from '@ferry/sdk/protocol/index.js';
import { decodeBolt11, type Bolt11Invoice } from '@ferry/sdk/lightning/bolt11/index.js';
import { limitViolation, reverseInvoiceAmount } from '../../swaps/amounts.ts';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import {
  bodyObject,
  optionalAmount,
  optionalBoolean,
  optionalString,
  requirePreimageHash,
  requirePublicKey,
  requireString,
} from '../http/validate.ts';
import { withoutUndefined } from '../v2/swap-submarine.ts';
import { v1Call, v1Unsupported } from './answers.ts';

export const SWAP_TYPES = { submarine: 'submarine', reverse: 'reversesubmarine' } as const;
type SwapTypeV1 = (typeof SWAP_TYPES)[keyof typeof SWAP_TYPES];

// Values echoed in error texts are short or not echoed at all.
const longestEcho = 64;
const pairIdPattern = /^[A-Za-z0-9-]{1,16}\/[A-Za-z0-9-]{1,16}$/;

function swapType(input: Record<string, unknown>): SwapTypeV1 {
  const type = requireString(input, 'type');
  const lower = type.toLowerCase();
  if (lower === SWAP_TYPES.submarine || lower === SWAP_TYPES.reverse) return lower;
  throw badRequest(type.length > longestEcho ? 'invalid parameter: type' : `could not find swap type: ${type}`);
}

function orderSide(input: Record<string, unknown>): 'buy' | 'sell' {
  const side = requireString(input, 'orderSide');
  const lower = side.toLowerCase();
  if (lower === 'buy' || lower === 'sell') return lower;
  throw badRequest(side.length > longestEcho ? 'invalid parameter: orderSide' : `could not find order side: ${side}`);
}

/**
 * The asset on the Lightning side. A submarine swap sells the base for the quote on Lightning (`sell`) or
 * the other way round (`buy`); a reverse swap is the mirror image.
 */
function lightningAsset(type: SwapTypeV1, side: 'buy' | 'sell', base: string, quote: string): string {
  const quoteOnLightning = type === SWAP_TYPES.submarine ? side === 'sell' : side === 'buy';
  return quoteOnLightning ? quote : base;
}

function checkInvoice(paymentRequest: string, pair: V1PairBody, preimageHash: string | undefined): void {
  let invoice: Bolt11Invoice;
  try {
    invoice = decodeBolt11(paymentRequest);
  } catch (error) {
    throw badRequest(`invalid invoice: ${(error as Error).message}`);
  }
  if (invoice.amountMsat === undefined || invoice.amountMsat <= 0n) throw badRequest('invoice has no amount');
  const violation = limitViolation(Number((invoice.amountMsat + 999n) / 1000n), pair.limits);
  if (violation !== undefined) throw badRequest(violation);
  if (preimageHash !== undefined && preimageHash !== invoice.paymentHash) {
    throw badRequest('invoice payment hash does not match the preimage hash');
  }
}

function checkSubmarine(input: Record<string, unknown>, pair: V1PairBody) {
  const invoice = optionalString(input, 'invoice');
  const preimageHash = input.preimageHash === undefined || input.preimageHash === null ? undefined : requirePreimageHash(input);
  if (invoice === undefined && preimageHash === undefined) throw badRequest('undefined parameter: invoice');
  // EVM: no key (the lock names its refund address); the engine says which its chain needs.
  const refundPublicKey = input.refundPublicKey === undefined ? undefined : requirePublicKey(input, 'refundPublicKey');
  if (invoice !== undefined) checkInvoice(invoice, pair, preimageHash);
  return { invoice, preimageHash, refundPublicKey };
}

function checkReverse(input: Record<string, unknown>, pair: V1PairBody) {
  const preimageHash = requirePreimageHash(input);
  // EVM: claimAddress instead of a key, and optionally gas for the claim; the engine says which its chain needs.
  const claimAddress = optionalString(input, 'claimAddress');
  const claimPublicKey = claimAddress !== undefined && input.claimPublicKey === undefined ? undefined : requirePublicKey(input, 'claimPublicKey');
  const gasless = optionalBoolean(input, 'gasless');
  const prepayMinerFee = optionalBoolean(input, 'prepayMinerFee');
  const invoiceAmount = optionalAmount(input, 'invoiceAmount');
  const onchainAmount = optionalAmount(input, 'onchainAmount');
  if (invoiceAmount !== undefined && onchainAmount !== undefined) throw badRequest('invoice and onchain amount were specified');
  if (invoiceAmount === undefined && onchainAmount === undefined) throw badRequest('no amount was specified');
  const { percentage, minerFees } = pair.fees;
  const amount = invoiceAmount ?? reverseInvoiceAmount(onchainAmount!, pair.rate, percentage, minerFees.baseAsset.reverse.lockup);
  const violation = limitViolation(amount, pair.limits);
  if (violation !== undefined) throw badRequest(violation);
  return { preimageHash, claimPublicKey, claimAddress, gasless, prepayMinerFee, invoiceAmount, onchainAmount };
}

/** lightningAssets: the chain symbols Ferry has a Lightning node for. */
export function createSwapRouteV1(router: Router, swaps: SwapService, lightningAssets: readonly string[]): void {
  router.post('/createswap', ({ body }) =>
    v1Call(async () => {
      const input = bodyObject(body);
      const type = swapType(input);
      const pairId = requireString(input, 'pairId');
      if (!pairIdPattern.test(pairId)) throw badRequest('invalid parameter: pairId');
      const side = orderSide(input);
      const [base, quote] = pairId.split('/');
      const lightning = lightningAsset(type, side, base, quote);
      if (!lightningAssets.includes(lightning)) throw badRequest(`${lightning} has no lightning support`);
      if (!swaps.v1Pairs) throw v1Unsupported();
      const pair = (await swaps.v1Pairs())[pairId];
      if (pair === undefined) throw badRequest(`could not find pair with id: ${pairId}`);
      // The v1 pair's hash is checked here: the engine's pair hashes are v2's.
      const pairHash = optionalString(input, 'pairHash');
      if (pairHash !== undefined && pairHash !== pair.hash) throw badRequest('invalid pair hash');
      const referralId = optionalString(input, 'referralId');
      const chain = lightning === quote ? base : quote;
      if (type === SWAP_TYPES.submarine) {
        const checked = checkSubmarine(input, pair);
        if (!swaps.createLegacySubmarine) throw v1Unsupported();
        const request = { from: chain, to: lightning, ...checked, referralId };
        return { status: 201, body: await swaps.createLegacySubmarine(withoutUndefined(request)) };
      }
      const checked = checkReverse(input, pair);
      if (!swaps.createLegacyReverse) throw v1Unsupported();
      const request = { from: lightning, to: chain, ...checked, referralId };
      return { status: 201, body: await swaps.createLegacyReverse(withoutUndefined(request)) };
    }),
  );
}
