// v2 Chain Swap endpoints (chain -> chain): shapes are checked here, every semantic check is the engine's. Served:
// the pair list, creation with an amount, the lockups, the client's claim (preimage, co-signature of its claim of
// Ferry's lockup) and the cooperative refund. Not yet: Ferry's cooperative claim (GET/POST .../claim signature,
// Ferry claims through its claim leaf instead), quotes and zero-amount swaps.
import type { SwapService } from '../../protocol/index.ts';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import {
  bodyObject,
  optionalAmount,
  optionalString,
  requireHex,
  requireIndex,
  requirePreimage,
  requirePreimageHash,
  requirePublicKey,
  requirePubNonce,
  requireString,
  requireSwapId,
} from '../http/validate.ts';
import { engineCall, getById } from './swap-errors.ts';
import { withoutUndefined } from './swap-submarine.ts';

/** A client transaction for Ferry to sign at one input: the cooperative refund, and `toSign` of a claim. */
function toSign(input: Record<string, unknown>) {
  return { pubNonce: requirePubNonce(input), transaction: requireHex(input, 'transaction'), index: requireIndex(input) };
}

export function chainSwapRoutes(router: Router, swaps: SwapService): void {
  router.get('/v2/swap/chain', async () => ({ body: await engineCall(() => swaps.chainPairs()) }));

  router.post('/v2/swap/chain', async ({ body }) => {
    const input = bodyObject(body);
    if (input.claimAddress !== undefined) throw badRequest('invalid parameter: claimAddress');
    const request = {
      from: requireString(input, 'from'),
      to: requireString(input, 'to'),
      preimageHash: requirePreimageHash(input),
      claimPublicKey: requirePublicKey(input, 'claimPublicKey'),
      refundPublicKey: requirePublicKey(input, 'refundPublicKey'),
      userLockAmount: optionalAmount(input, 'userLockAmount'),
      serverLockAmount: optionalAmount(input, 'serverLockAmount'),
      pairHash: optionalString(input, 'pairHash'),
      referralId: optionalString(input, 'referralId'),
    };
    if (request.userLockAmount !== undefined && request.serverLockAmount !== undefined) {
      throw badRequest('userLockAmount and serverLockAmount were specified');
    }
    if (request.userLockAmount === undefined && request.serverLockAmount === undefined) {
      throw badRequest('zero-amount chain swaps are not supported yet: specify userLockAmount or serverLockAmount');
    }
    return { status: 201, body: await engineCall(() => swaps.createChain(withoutUndefined(request))) };
  });

  getById(router, '/v2/swap/chain/{id}/transactions', (id) => swaps.chainTransactions(id));

  router.post('/v2/swap/chain/{id}/claim', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    if (input.signature !== undefined && input.signature !== null) {
      throw badRequest("Ferry claims the user's lockup through its claim leaf: no signature is taken yet");
    }
    const preimage = input.preimage === undefined || input.preimage === null ? undefined : requirePreimage(input);
    if (input.toSign !== undefined && input.toSign !== null && (typeof input.toSign !== 'object' || Array.isArray(input.toSign))) {
      throw badRequest('invalid parameter: toSign');
    }
    const signing = input.toSign === undefined || input.toSign === null ? undefined : toSign(input.toSign as Record<string, unknown>);
    if (preimage === undefined && signing === undefined) throw badRequest('undefined parameter: preimage');
    return { body: await engineCall(() => swaps.chainClaim(id, withoutUndefined({ preimage, toSign: signing }))) };
  });

  router.post('/v2/swap/chain/{id}/refund', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    return { body: await engineCall(() => swaps.chainRefund(id, toSign(bodyObject(body)))) };
  });
}
