// v2 Chain Swap endpoints (chain -> chain): shapes are checked here, every semantic check is the engine's. Served:
// the pair list, creation with an amount (claimAddress for an EVM `to`, no refund key for an EVM `from`), the
// lockups, both cooperative claims (GET .../claim for Ferry's claim the client signs; POST .../claim with the
// preimage, that signature, and the client's claim for Ferry to co-sign), the cooperative refund (MuSig2, or EVM's
// EIP-712 signature), quotes for a lockup of another amount, and zero-amount swaps (neither amount given).
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import {
  bodyObject,
  optionalAmount,
  optionalString,
  requireHex,
  requireIndex,
  requirePartialSignature,
  requirePreimage,
  requirePreimageHash,
  requirePublicKey,
  requirePubNonce,
  requireString,
  requireSwapId,
} from '../http/validate.ts';
import { engineCall, getById } from './swap-errors.ts';
import { withoutUndefined } from './swap-submarine.ts';

/** A nested object of the body, or undefined; anything else is a 400. */
function optionalObject(input: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(`invalid parameter: ${name}`);
  return value as Record<string, unknown>;
}

/** A client transaction for Ferry to sign at one input: the cooperative refund, and `toSign` of a claim. */
function toSign(input: Record<string, unknown>) {
  return { pubNonce: requirePubNonce(input), transaction: requireHex(input, 'transaction'), index: requireIndex(input) };
}

export function chainSwapRoutes(router: Router, swaps: SwapService): void {
  router.get('/v2/swap/chain', async () => ({ body: await engineCall(() => swaps.chainPairs()) }));

  router.post('/v2/swap/chain', async ({ body }) => {
    const input = bodyObject(body);
    const optionalKey = (name: string) => (input[name] === undefined || input[name] === null ? undefined : requirePublicKey(input, name));
    // Which of the keys and claimAddress a side needs depends on its chain (EVM or UTXO): the engine says.
    const request = {
      from: requireString(input, 'from'),
      to: requireString(input, 'to'),
      preimageHash: requirePreimageHash(input),
      claimPublicKey: optionalKey('claimPublicKey'),
      refundPublicKey: optionalKey('refundPublicKey'),
      claimAddress: optionalString(input, 'claimAddress'),
      userLockAmount: optionalAmount(input, 'userLockAmount'),
      serverLockAmount: optionalAmount(input, 'serverLockAmount'),
      pairHash: optionalString(input, 'pairHash'),
      referralId: optionalString(input, 'referralId'),
    };
    if (request.userLockAmount !== undefined && request.serverLockAmount !== undefined) {
      throw badRequest('userLockAmount and serverLockAmount were specified');
    }
    return { status: 201, body: await engineCall(() => swaps.createChain(withoutUndefined(request))) };
  });

  getById(router, '/v2/swap/chain/{id}/transactions', (id) => swaps.chainTransactions(id));
  getById(router, '/v2/swap/chain/{id}/claim', (id) => swaps.chainClaimDetails(id));

  router.post('/v2/swap/chain/{id}/claim', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    const signature = optionalObject(input, 'signature');
    const preimage = input.preimage === undefined || input.preimage === null ? undefined : requirePreimage(input);
    const signing = optionalObject(input, 'toSign');
    if (preimage === undefined && signature === undefined && signing === undefined) throw badRequest('undefined parameter: preimage');
    const request = {
      preimage,
      signature: signature && { pubNonce: requirePubNonce(signature), partialSignature: requirePartialSignature(signature) },
      toSign: signing && toSign(signing),
    };
    return { body: await engineCall(() => swaps.chainClaim(id, withoutUndefined(request))) };
  });

  getById(router, '/v2/swap/chain/{id}/quote', (id) => swaps.chainQuote(id));

  router.post('/v2/swap/chain/{id}/quote', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const amount = optionalAmount(bodyObject(body), 'amount');
    if (amount === undefined) throw badRequest('undefined parameter: amount');
    return { body: await engineCall(() => swaps.acceptChainQuote(id, amount)) };
  });

  // EVM lockups: Ferry's EIP-712 signature for refundCooperative. As the reference: the swap's id or its preimage
  // hash, all a lock found again in the contract's logs knows.
  router.get('/v2/swap/chain/{id}/refund', async ({ params }) => {
    const id = /^[0-9a-fA-F]{64}$/.test(params.id) ? params.id.toLowerCase() : requireSwapId(params.id);
    return { body: await engineCall(() => swaps.chainRefundSignature(id)) };
  });

  router.post('/v2/swap/chain/{id}/refund', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    return { body: await engineCall(() => swaps.chainRefund(id, toSign(bodyObject(body)))) };
  });
}
