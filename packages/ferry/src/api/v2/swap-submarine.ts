// v2 Submarine Swap endpoints (chain -> Lightning): shapes are checked here, every semantic check is the engine's.
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import {
  bodyObject,
  optionalString,
  requireHex,
  requireIndex,
  requirePartialSignature,
  requirePreimageHash,
  requirePublicKey,
  requirePubNonce,
  requireString,
  requireSwapId,
} from '../http/validate.ts';
import { engineCall, getById } from './swap-errors.ts';

export function submarineRoutes(router: Router, swaps: SwapService): void {
  router.get('/v2/swap/submarine', async () => ({ body: await engineCall(() => swaps.submarinePairs()) }));

  router.post('/v2/swap/submarine', async ({ body }) => {
    const input = bodyObject(body);
    const from = requireString(input, 'from');
    const to = requireString(input, 'to');
    const invoice = optionalString(input, 'invoice');
    // the invoice takes precedence; a preimage hash alone means the invoice is set later
    const preimageHash = input.preimageHash === undefined || input.preimageHash === null ? undefined : requirePreimageHash(input);
    if (invoice === undefined && preimageHash === undefined) throw badRequest('undefined parameter: invoice');
    const request = {
      from,
      to,
      invoice,
      preimageHash,
      // Absent for an EVM lockup (its `lock` names the refund address); the engine requires it for UTXO chains.
      refundPublicKey: input.refundPublicKey === undefined ? undefined : requirePublicKey(input, 'refundPublicKey'),
      pairHash: optionalString(input, 'pairHash'),
      referralId: optionalString(input, 'referralId'),
    };
    return { status: 201, body: await engineCall(() => swaps.createSubmarine(withoutUndefined(request))) };
  });

  getById(router, '/v2/swap/submarine/{id}/transaction', (id) => swaps.submarineTransaction(id));

  router.post('/v2/swap/submarine/{id}/invoice', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    const invoice = requireString(input, 'invoice');
    const pairHash = optionalString(input, 'pairHash');
    return { body: await engineCall(() => swaps.setSubmarineInvoice(id, invoice, pairHash)) };
  });

  getById(router, '/v2/swap/submarine/{id}/invoice/amount', (id) => swaps.submarineInvoiceAmount(id));

  getById(router, '/v2/swap/submarine/{id}/preimage', (id) => swaps.submarinePreimage(id));

  getById(router, '/v2/swap/submarine/{id}/claim', (id) => swaps.submarineClaimDetails(id));

  router.post('/v2/swap/submarine/{id}/claim', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    const signature = { pubNonce: requirePubNonce(input), partialSignature: requirePartialSignature(input) };
    return { body: await engineCall(() => swaps.submarineClaimSignature(id, signature)) };
  });

  router.get('/v2/swap/submarine/{id}/refund', async ({ params }) => {
    // As the reference: the swap's id or its preimage hash, all a lockup found again in the contract's logs knows.
    const id = /^[0-9a-fA-F]{64}$/.test(params.id) ? params.id.toLowerCase() : requireSwapId(params.id);
    return { body: await engineCall(() => swaps.submarineRefundSignature(id)) };
  });

  router.post('/v2/swap/submarine/{id}/refund', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    const request = {
      pubNonce: requirePubNonce(input),
      transaction: requireHex(input, 'transaction'),
      index: requireIndex(input),
    };
    return { body: await engineCall(() => swaps.submarineRefund(id, request)) };
  });
}

/** Leaves absent optional fields out, so the engine never has to tell "absent" from "undefined". */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
