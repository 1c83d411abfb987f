// v2 asset rescue (the reference's "Asset Rescue" tag): POST /v2/asset/{currency}/rescue/setup answers the rescue
// transaction of another Liquid asset locked by mistake and Ferry's MuSig2 nonce (201), POST .../broadcast takes the
// client's nonce and partial signature and answers the broadcast transaction's id. Shapes are checked here, every
// semantic check is the engine's (src/engine/asset-rescue.ts). Only L-BTC (Liquid) is served, as by the reference.
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError, badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { bodyObject, requireIndex, requirePartialSignature, requirePubNonce, requireString, requireSwapId, requireTxid } from '../http/validate.ts';
import { documented } from '../schema/documented.ts';
import { engineCall } from './swap-errors.ts';

const RESCUE_CURRENCY = 'L-BTC';

function checkCurrency(currency: string): void {
  if (currency !== RESCUE_CURRENCY) throw badRequest(`only ${RESCUE_CURRENCY} is supported`);
}

export function assetRescueRoutes(router: Router, swaps: SwapService): void {
  const tags = ['Asset Rescue'];
  const setupDoc = { summary: 'Sets up the cooperative rescue of another Liquid asset locked for a failed or expired swap', tags };
  documented(router, 'POST', '/v2/asset/{currency}/rescue/setup', setupDoc, async ({ params, body }) => {
    checkCurrency(params.currency);
    const input = bodyObject(body);
    const request = {
      swapId: requireSwapId(requireString(input, 'swapId'), 'swapId'),
      transactionId: requireTxid(requireString(input, 'transactionId'), 'transactionId'),
      vout: requireIndex(input, 'vout'),
      destination: requireString(input, 'destination'),
    };
    if (request.destination.length > 200) throw badRequest('invalid parameter: destination');
    if (!swaps.assetRescueSetup) throw new HttpError(501, 'the swap engine does not rescue assets');
    return { status: 201, body: await engineCall(() => swaps.assetRescueSetup!(params.currency, request)) };
  });

  const broadcastDoc = { summary: "Aggregates the client's partial signature into the asset rescue and broadcasts it", tags };
  documented(router, 'POST', '/v2/asset/{currency}/rescue/broadcast', broadcastDoc, async ({ params, body }) => {
    checkCurrency(params.currency);
    const input = bodyObject(body);
    const request = {
      swapId: requireSwapId(requireString(input, 'swapId'), 'swapId'),
      pubNonce: requirePubNonce(input),
      partialSignature: requirePartialSignature(input),
    };
    if (!swaps.assetRescueBroadcast) throw new HttpError(501, 'the swap engine does not rescue assets');
    return { body: await engineCall(() => swaps.assetRescueBroadcast!(params.currency, request)) };
  });
}
