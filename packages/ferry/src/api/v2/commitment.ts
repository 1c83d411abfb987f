// v2 commitment swaps (the reference's "Commitment" tag), on the EVM chain: GET /v2/commitment/{currency}/details
// answers where and to whom a commitment lockup (preimage hash bytes32(0)) goes and a suggested timelock; POST
// /v2/commitment/{currency} commits such a lockup to a submarine swap with the refund address' EIP-712 signature
// (201, {}); POST /v2/commitment/{currency}/refund answers the EIP-712 refund signature of a commitment lockup no
// swap took (201). Shapes are checked here with the reference's texts, every semantic check is the engine's
// (src/engine/commitments.ts, commitment-refund.ts).
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError, badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { bodyObject, requireString, requireSwapId } from '../http/validate.ts';
import { documented } from '../schema/documented.ts';
import { engineCall } from './swap-errors.ts';

const transactionHashPattern = /^0x[0-9a-fA-F]{64}$/;
/** The widest overpayment a client may name (the reference's bound); Ferry's own tolerance still applies. */
const MAX_OVERPAYMENT_PERCENT = 10;

function optionalNumber(input: Record<string, unknown>, name: string, valid: (value: number) => boolean): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || !valid(value)) throw badRequest(`invalid parameter: ${name}`);
  return value;
}

function requireTransactionHash(input: Record<string, unknown>): string {
  const transactionHash = requireString(input, 'transactionHash');
  if (!transactionHashPattern.test(transactionHash)) throw badRequest('invalid parameter: transactionHash');
  return transactionHash;
}

export function commitmentRoutes(router: Router, swaps: SwapService): void {
  const tags = ['Commitment'];
  const details = {
    type: 'object',
    required: ['contract', 'claimAddress', 'timelock'],
    properties: { contract: { type: 'string' }, claimAddress: { type: 'string' }, timelock: { type: 'integer' } },
  };
  const detailsDoc = { summary: 'Where and to whom a commitment lockup on an EVM chain goes, with a suggested timelock', tags, responses: { 200: details } };
  documented(router, 'GET', '/v2/commitment/{currency}/details', detailsDoc, async ({ params }) => {
    if (!swaps.commitmentDetails) throw new HttpError(501, 'the swap engine does not take commitments');
    return { body: await engineCall(() => swaps.commitmentDetails!(params.currency)) };
  });

  const commitDoc = {
    summary: "Commits a lockup made with preimage hash bytes32(0) to a submarine swap with the refund address' signature",
    tags,
    responses: { 201: { type: 'object' } },
  };
  documented(router, 'POST', '/v2/commitment/{currency}', commitDoc, async ({ params, body }) => {
    const input = bodyObject(body);
    const swapId = requireSwapId(requireString(input, 'swapId'), 'swapId');
    const signature = requireString(input, 'signature');
    const transactionHash = requireTransactionHash(input);
    const logIndex = optionalNumber(input, 'logIndex', (value) => Number.isInteger(value) && value >= 0);
    const maxOverpaymentPercentage = optionalNumber(input, 'maxOverpaymentPercentage', (value) => value >= 0 && value <= MAX_OVERPAYMENT_PERCENT);
    const request = {
      swapId,
      signature,
      transactionHash,
      ...(logIndex !== undefined && { logIndex }),
      ...(maxOverpaymentPercentage !== undefined && { maxOverpaymentPercentage }),
    };
    if (!swaps.commit) throw new HttpError(501, 'the swap engine does not take commitments');
    return { status: 201, body: await engineCall(() => swaps.commit!(params.currency, request)) };
  });

  const refundDoc = {
    summary: 'The EIP-712 signature for a cooperative refund of a commitment lockup no swap took',
    tags,
    responses: { 201: { type: 'object', required: ['signature'], properties: { signature: { type: 'string' } } } },
  };
  documented(router, 'POST', '/v2/commitment/{currency}/refund', refundDoc, async ({ params, body }) => {
    const input = bodyObject(body);
    const transactionHash = requireTransactionHash(input);
    const logIndex = optionalNumber(input, 'logIndex', (value) => Number.isInteger(value) && value >= 0);
    const refundAddressSignature = requireString(input, 'refundAddressSignature');
    const request = { transactionHash, refundAddressSignature, ...(logIndex !== undefined && { logIndex }) };
    if (!swaps.refundCommitment) throw new HttpError(501, 'the swap engine does not take commitments');
    return { status: 201, body: await engineCall(() => swaps.refundCommitment!(params.currency, request)) };
  });
}
