// Creating a reverse swap: price it, derive its key and tree, and put a hold invoice for the user's preimage
// hash on the operator's node; the engine then waits for the user to pay it.
import { hex } from '@scure/base';
import { reverseSwapTree } from 'boltz-core';
import { UniqueViolation, type SwapRecord } from '../../db/index.ts';
import { swapOutputKey } from '../../keys/index.ts';
import { limitViolation, reverseInvoiceAmount, reverseOnchainAmount } from '../../swaps/amounts.ts';
import { generateSwapId } from '../../swaps/ids.ts';
import { reversePairBody } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '../../swaps/status.ts';
import { currentMinerFees, pairOf, type EngineContext } from '../context.ts';
import { serializeTree, type ReverseData } from '../data.ts';
import { invalidPairHash, preimageHashExists } from '../errors.ts';
import { positiveInteger, preimageHash as parsePreimageHash, publicKey } from '../input.ts';
import { SwapError, type CreateReverseRequest, type CreateReverseResponse } from '../service.ts';

/** Dust limit of a Taproot output: smaller lockups could not be claimed. */
const TAPROOT_DUST = 330;
const DEFAULT_MEMO = 'Send to BTC address';

export async function createReverse(ctx: EngineContext, request: CreateReverseRequest): Promise<CreateReverseResponse> {
  // A reverse swap goes from Lightning (the pair's quote) to the chain (its base).
  const pair = pairOf(ctx, request.to, request.from);
  const fees = await currentMinerFees(ctx);
  if (request.pairHash !== undefined && request.pairHash !== reversePairBody(pair, fees).hash) throw invalidPairHash();
  const claimPublicKey = publicKey(request.claimPublicKey, 'claimPublicKey');
  const hashBytes = parsePreimageHash(request.preimageHash);
  const paymentHash = hex.encode(hashBytes);

  if (request.invoiceAmount !== undefined && request.onchainAmount !== undefined) {
    throw new SwapError(400, 'invoice and onchain amount were specified');
  }
  if (request.invoiceAmount === undefined && request.onchainAmount === undefined) {
    throw new SwapError(400, 'no amount was specified');
  }
  const { rate } = pair;
  const percent = pair.fees.percentage;
  const lockupFee = fees.reverse.lockup;
  let invoiceAmount: number;
  let onchainAmount: number;
  if (request.invoiceAmount !== undefined) {
    invoiceAmount = positiveInteger(request.invoiceAmount, 'invoiceAmount');
    onchainAmount = reverseOnchainAmount(invoiceAmount, rate, percent, lockupFee);
  } else {
    onchainAmount = positiveInteger(request.onchainAmount, 'onchainAmount');
    invoiceAmount = reverseInvoiceAmount(onchainAmount, rate, percent, lockupFee);
  }
  const violation = limitViolation(invoiceAmount, pair.limits);
  if (violation !== undefined) throw new SwapError(400, violation);
  if (onchainAmount < TAPROOT_DUST + fees.reverse.claim) throw new SwapError(400, 'onchain amount is too low');
  if (await ctx.storage.swaps.getByPreimageHash(paymentHash)) throw preimageHashExists();

  const timeoutBlockHeight = (await ctx.chain.height()) + pair.timeouts.reverse;
  const keyIndex = await ctx.storage.counters.nextSwapKeyIndex();
  const key = ctx.keys.keyAt(keyIndex);
  const tree = reverseSwapTree(false, hashBytes, claimPublicKey, key.publicKey, timeoutBlockHeight);
  const { outputScript } = swapOutputKey(key.publicKey, claimPublicKey, tree);
  const lockupAddress = ctx.chain.addressOf(outputScript);

  let paymentRequest: string;
  try {
    ({ paymentRequest } = await ctx.lightning.createHoldInvoice({
      paymentHash,
      amountMsat: BigInt(invoiceAmount) * 1000n,
      memo: request.description ?? DEFAULT_MEMO,
      expirySeconds: ctx.settings.invoiceExpirySeconds,
      // The payer's HTLC must outlive the on-chain timeout, so a preimage learned at the last block still settles.
      cltvExpiry: pair.timeouts.reverse + ctx.settings.reverseCltvMarginBlocks,
    }));
  } catch (error) {
    if (/already exists/i.test((error as Error).message)) throw preimageHashExists();
    throw error;
  }
  const decoded = await ctx.lightning.decodeInvoice(paymentRequest);
  const data: ReverseData = {
    claimPublicKey: hex.encode(claimPublicKey),
    refundPublicKey: hex.encode(key.publicKey),
    swapTree: serializeTree(tree),
    lockupScript: hex.encode(outputScript),
    invoiceAmount,
    onchainAmount,
    invoiceExpiresAt: decoded.timestamp + decoded.expiry,
    // The invoice converted at the rate without any fee, less what is locked and the lockup fee estimate.
    serviceFee: reverseOnchainAmount(invoiceAmount, rate, 0, 0) - onchainAmount - lockupFee,
    ...(request.referralId !== undefined && { referralId: request.referralId }),
  };

  let record: SwapRecord | undefined;
  while (record === undefined) {
    try {
      record = await ctx.swaps.insert({
        id: generateSwapId(),
        type: SwapType.Reverse,
        pair: pair.id,
        status: S.Created,
        preimageHash: paymentHash,
        invoice: paymentRequest,
        keyIndex,
        timeoutBlockHeight,
        lockupAddress,
        data,
      });
    } catch (error) {
      if (!(error instanceof UniqueViolation)) throw error;
      if (error.column === 'preimage_hash' || error.column === 'invoice') {
        // Another swap took the hash between the check and the insert: its invoice is not ours to keep.
        await ctx.lightning.cancelHoldInvoice(paymentHash).catch(() => {});
        throw preimageHashExists();
      }
    }
  }
  ctx.watching.script(record.id, data.lockupScript);
  ctx.logger.info('reverse swap created', { swap: record.id, invoiceAmount, onchainAmount, timeoutBlockHeight });
  return {
    id: record.id,
    invoice: paymentRequest,
    swapTree: data.swapTree,
    lockupAddress,
    refundPublicKey: data.refundPublicKey,
    timeoutBlockHeight,
    onchainAmount,
  };
}
