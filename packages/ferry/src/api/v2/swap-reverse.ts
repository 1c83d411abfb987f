// v2 Reverse Swap endpoints (Lightning -> chain): shapes are checked here, every semantic check is the engine's.
import type { CovenantRegistration, SwapService } from '@ferry/sdk/protocol/index.js';
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
  optionalBoolean,
} from '../http/validate.ts';
import { engineCall, getById } from './swap-errors.ts';
import { withoutUndefined } from './swap-submarine.ts';

// BOLT11 descriptions are limited to 639 bytes (the tagged field's length limit).
const maxDescriptionBytes = 639;

/** The receiver's signed address for a magic routing hint: a bounded string and 64 bytes of hex, or neither. */
function magicHintFields(input: Record<string, unknown>): { address?: string; addressSignature?: string } {
  const address = optionalString(input, 'address');
  if (address !== undefined && (address.length === 0 || address.length > 200)) throw badRequest('invalid parameter: address');
  const addressSignature = optionalString(input, 'addressSignature');
  if (addressSignature !== undefined && !/^[0-9a-fA-F]{128}$/.test(addressSignature)) throw badRequest('invalid parameter: addressSignature');
  return { address, addressSignature };
}

export function reverseRoutes(router: Router, swaps: SwapService): void {
  router.get('/v2/swap/reverse', async () => ({ body: await engineCall(() => swaps.reversePairs()) }));

  router.post('/v2/swap/reverse', async ({ body }) => {
    const input = bodyObject(body);
    const from = requireString(input, 'from');
    const to = requireString(input, 'to');
    const preimageHash = requirePreimageHash(input);
    // EVM: claimAddress instead of a key; the engine says which its chain needs.
    const claimAddress = optionalString(input, 'claimAddress');
    const claimPublicKey = claimAddress !== undefined && input.claimPublicKey === undefined ? undefined : requirePublicKey(input, 'claimPublicKey');
    const invoiceAmount = optionalAmount(input, 'invoiceAmount');
    const onchainAmount = optionalAmount(input, 'onchainAmount');
    if (invoiceAmount !== undefined && onchainAmount !== undefined) {
      throw badRequest('invoice and onchain amount were specified');
    }
    // a wallet's BOLT12 invoice (lni) names its own amount
    const invoice = optionalString(input, 'invoice');
    if (invoice !== undefined && invoice.length > 8192) throw badRequest('invalid parameter: invoice');
    if (invoiceAmount === undefined && onchainAmount === undefined && invoice === undefined) throw badRequest('no amount was specified');
    const description = optionalString(input, 'description');
    if (description !== undefined && Buffer.byteLength(description) > maxDescriptionBytes) {
      throw badRequest('invalid parameter: description');
    }
    const request = {
      from,
      to,
      preimageHash,
      claimPublicKey,
      claimAddress,
      invoiceAmount,
      onchainAmount,
      pairHash: optionalString(input, 'pairHash'),
      referralId: optionalString(input, 'referralId'),
      description,
      invoice,
      gasless: optionalBoolean(input, 'gasless'),
      prepayMinerFee: optionalBoolean(input, 'prepayMinerFee'),
      claimCovenant: optionalBoolean(input, 'claimCovenant'),
      ...magicHintFields(input),
    };
    return { status: 201, body: await engineCall(() => swaps.createReverse(withoutUndefined(request))) };
  });

  getById(router, '/v2/swap/reverse/{id}/transaction', (id) => swaps.reverseTransaction(id));

  // Claim covenants: the receiver's preimage for Ferry's covenant claimer (covclaim's body); the engine checks it all.
  router.post('/v2/swap/covenant', async ({ body }) => {
    const input = bodyObject(body);
    const tree = input.tree;
    if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) throw badRequest('invalid parameter: tree');
    const request = {
      address: requireString(input, 'address'),
      preimage: requirePreimage(input),
      tree: tree as CovenantRegistration['tree'],
      blindingKey: requireHex(input, 'blindingKey'),
      claimPublicKey: requireHex(input, 'claimPublicKey'),
      refundPublicKey: requireHex(input, 'refundPublicKey'),
    };
    return { status: 201, body: await engineCall(() => swaps.registerCovenant(request)) };
  });

  router.post('/v2/swap/reverse/{id}/claim', async ({ params, body }) => {
    const id = requireSwapId(params.id);
    const input = bodyObject(body);
    const preimage = requirePreimage(input);
    // pubNonce, transaction and index come together (a cooperative claim) or not at all (settle only)
    const signing = ['pubNonce', 'transaction', 'index'].some((name) => input[name] !== undefined && input[name] !== null);
    const request = signing
      ? { preimage, pubNonce: requirePubNonce(input), transaction: requireHex(input, 'transaction'), index: requireIndex(input) }
      : { preimage };
    return { body: await engineCall(() => swaps.reverseClaim(id, request)) };
  });
}
