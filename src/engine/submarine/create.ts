// Creating a submarine swap, setting its invoice later, and the read-only calls about it.
import { hex } from '@scure/base';
import { swapTree } from 'boltz-core';
import { UniqueViolation, type SwapRecord } from '../../db/index.ts';
import { swapOutputKey } from '../../keys/index.ts';
import { submarineExpectedAmount, submarineInvoiceAmount } from '../../swaps/amounts.ts';
import { generateSwapId } from '../../swaps/ids.ts';
import { submarinePairBody, type PairConfig } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '../../swaps/status.ts';
import { currentMinerFees, pairOf, type EngineContext } from '../context.ts';
import { serializeTree, submarineData, type SubmarineData, type SubmarinePricing } from '../data.ts';
import {
  invalidPairHash,
  invoiceExists,
  noLockup,
  paymentInProgress,
  preimageHashExists,
  swapHasInvoice,
  undefinedParameter,
} from '../errors.ts';
import { preimageHash as parsePreimageHash, publicKey } from '../input.ts';
import { checkInvoice, type CheckedInvoice } from '../invoice-check.ts';
import { SwapError, type CreateSubmarineRequest, type CreateSubmarineResponse } from '../service.ts';

/** Seconds per block used for time estimates. */
const BLOCK_SECONDS = 600;

function bip21(address: string, amount: number): string {
  const btc = (amount / 1e8).toFixed(8).replace(/\.?0+$/, '');
  return `bitcoin:${address}?amount=${btc}&label=${encodeURIComponent('Send to BTC lightning')}`;
}

/** Blocks until the timeout: the pair's minimum, longer when the invoice's final CLTV delta needs room. */
function timeoutDelta(pair: PairConfig, invoice: CheckedInvoice | undefined, safetyBlocks: number): number {
  const { swapMinimal, swapMaximal } = pair.timeouts;
  if (invoice === undefined) return swapMinimal;
  const needed = invoice.minFinalCltvExpiry + safetyBlocks + 1;
  if (needed > swapMaximal) throw new SwapError(400, 'invoice min final CLTV expiry is too long for the swap timeout');
  return Math.max(swapMinimal, needed);
}

function invoiceFields(pricing: SubmarinePricing, invoice: CheckedInvoice) {
  const expectedAmount = submarineExpectedAmount(invoice.amount, pricing.rate, pricing.percentage, pricing.minerFee);
  return {
    invoice: invoice.paymentRequest,
    invoiceAmount: invoice.amount,
    expectedAmount,
    acceptZeroConf: pricing.maximalZeroConf > 0 && expectedAmount <= pricing.maximalZeroConf,
    minFinalCltvExpiry: invoice.minFinalCltvExpiry,
  };
}

export async function createSubmarine(ctx: EngineContext, request: CreateSubmarineRequest): Promise<CreateSubmarineResponse> {
  const pair = pairOf(ctx, request.from, request.to);
  const fees = await currentMinerFees(ctx);
  if (request.pairHash !== undefined && request.pairHash !== submarinePairBody(pair, fees).hash) throw invalidPairHash();
  const refundPublicKey = publicKey(request.refundPublicKey, 'refundPublicKey');

  let invoice: CheckedInvoice | undefined;
  let paymentHash: string;
  if (request.invoice !== undefined) {
    invoice = await checkInvoice(ctx, request.invoice, pair);
    paymentHash = invoice.paymentHash;
    if (request.preimageHash !== undefined && hex.encode(parsePreimageHash(request.preimageHash)) !== paymentHash) {
      throw new SwapError(400, 'invoice payment hash does not match the preimage hash');
    }
    if (await ctx.storage.swaps.getByInvoice(invoice.paymentRequest)) throw invoiceExists();
  } else if (request.preimageHash !== undefined) {
    paymentHash = hex.encode(parsePreimageHash(request.preimageHash));
  } else {
    throw undefinedParameter('invoice');
  }
  if (await ctx.storage.swaps.getByPreimageHash(paymentHash)) throw preimageHashExists();

  const timeoutBlockHeight = (await ctx.chain.height()) + timeoutDelta(pair, invoice, ctx.settings.paymentSafetyBlocks);
  // Taken outside any transaction: an index handed out is never handed out again, even if this swap fails.
  const keyIndex = await ctx.storage.counters.nextSwapKeyIndex();
  const key = ctx.keys.keyAt(keyIndex);
  const tree = swapTree(false, hex.decode(paymentHash), key.publicKey, refundPublicKey, timeoutBlockHeight);
  const { outputScript } = swapOutputKey(key.publicKey, refundPublicKey, tree);
  const address = ctx.chain.addressOf(outputScript);
  const pricing: SubmarinePricing = {
    rate: pair.rate,
    percentage: pair.fees.percentageSwapIn,
    minerFee: fees.normal,
    maximalZeroConf: pair.limits.maximalZeroConf,
  };
  const data: SubmarineData = {
    refundPublicKey: hex.encode(refundPublicKey),
    claimPublicKey: hex.encode(key.publicKey),
    swapTree: serializeTree(tree),
    lockupScript: hex.encode(outputScript),
    pricing,
    ...(request.referralId !== undefined && { referralId: request.referralId }),
    ...(invoice && invoiceFields(pricing, invoice)),
  };

  let record: SwapRecord | undefined;
  while (record === undefined) {
    try {
      record = await ctx.swaps.insert({
        id: generateSwapId(),
        type: SwapType.Submarine,
        pair: pair.id,
        status: invoice ? S.InvoiceSet : S.Created,
        preimageHash: paymentHash,
        invoice: invoice?.paymentRequest ?? null,
        keyIndex,
        timeoutBlockHeight,
        lockupAddress: address,
        data,
      });
    } catch (error) {
      if (!(error instanceof UniqueViolation)) throw error;
      if (error.column === 'invoice') throw invoiceExists();
      if (error.column === 'preimage_hash') throw preimageHashExists();
      // An id collision: draw another.
    }
  }
  ctx.watching.script(record.id, data.lockupScript);
  ctx.logger.info('submarine swap created', { swap: record.id, address, timeoutBlockHeight, expectedAmount: data.expectedAmount });

  return {
    id: record.id,
    address,
    swapTree: data.swapTree,
    claimPublicKey: data.claimPublicKey,
    timeoutBlockHeight,
    ...(invoice && {
      expectedAmount: data.expectedAmount,
      acceptZeroConf: data.acceptZeroConf,
      bip21: bip21(address, data.expectedAmount!),
    }),
  };
}

/** Statuses in which an invoice may still be given. */
const SETTABLE: readonly string[] = [S.Created, S.TransactionMempool, S.TransactionConfirmed];
/** Statuses in which Ferry is paying or has paid the invoice. */
const PAYING: readonly string[] = [S.InvoicePending, S.InvoicePaid, S.TransactionClaimPending, S.TransactionClaimed];

export function setSubmarineInvoice(
  ctx: EngineContext,
  id: string,
  paymentRequest: string,
  pairHash?: string,
): Promise<{ bip21?: string; expectedAmount?: number; acceptZeroConf?: boolean }> {
  return ctx.swaps.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Submarine);
    const data = submarineData(swap);
    const pair = ctx.settings.pairs.get(swap.pair)!;
    if (pairHash !== undefined && pairHash !== submarinePairBody(pair, await currentMinerFees(ctx)).hash) throw invalidPairHash();
    if (swap.invoice !== null && PAYING.includes(swap.status)) throw paymentInProgress(swap.invoice);
    if (!SETTABLE.includes(swap.status) && swap.status !== S.InvoiceSet) {
      throw new SwapError(400, `cannot set an invoice in status ${swap.status}`);
    }
    if (swap.invoice !== null) throw swapHasInvoice(id);

    const invoice = await checkInvoice(ctx, paymentRequest, pair);
    if (invoice.paymentHash !== swap.preimageHash) {
      throw new SwapError(400, 'invoice payment hash does not match the preimage hash of the swap');
    }
    const blocksLeft = swap.timeoutBlockHeight! - (await ctx.chain.height());
    if (invoice.minFinalCltvExpiry + ctx.settings.paymentSafetyBlocks >= blocksLeft) {
      throw new SwapError(400, 'invoice min final CLTV expiry is too long for the swap timeout');
    }
    const fields = invoiceFields(data.pricing, invoice);
    if (data.lockup !== undefined && data.lockup.value < fields.expectedAmount) {
      const maximal = submarineInvoiceAmount(data.lockup.value, data.pricing.rate, data.pricing.percentage, data.pricing.minerFee);
      throw new SwapError(400, `invoice amount exceeds the maximal of ${maximal}`);
    }
    if (await ctx.storage.swaps.getByInvoice(paymentRequest)) throw invoiceExists();
    try {
      const result = await ctx.swaps.applyLocked(id, { type: 'invoice.provided', data: fields });
      if (!result.applied) throw new SwapError(400, `cannot set an invoice in status ${result.swap.status}`);
    } catch (error) {
      if (error instanceof UniqueViolation) throw invoiceExists();
      throw error;
    }
    return {
      bip21: bip21(swap.lockupAddress!, fields.expectedAmount),
      expectedAmount: fields.expectedAmount,
      acceptZeroConf: fields.acceptZeroConf,
    };
  });
}

export async function submarineInvoiceAmountFor(ctx: EngineContext, id: string): Promise<{ invoiceAmount: number }> {
  const swap = await ctx.swaps.require(id, SwapType.Submarine);
  const { lockup, pricing } = submarineData(swap);
  if (lockup === undefined) throw noLockup();
  return { invoiceAmount: submarineInvoiceAmount(lockup.value, pricing.rate, pricing.percentage, pricing.minerFee) };
}

export async function submarineLockupTransaction(
  ctx: EngineContext,
  id: string,
): Promise<{ id: string; hex: string; timeoutBlockHeight: number; timeoutEta?: number }> {
  const swap = await ctx.swaps.require(id, SwapType.Submarine);
  const { lockup } = submarineData(swap);
  if (lockup === undefined) throw noLockup();
  const timeoutBlockHeight = swap.timeoutBlockHeight!;
  const blocksLeft = timeoutBlockHeight - (await ctx.chain.height());
  return {
    id: lockup.txid,
    hex: lockup.hex,
    timeoutBlockHeight,
    ...(blocksLeft > 0 && { timeoutEta: Math.floor(Date.now() / 1000) + blocksLeft * BLOCK_SECONDS }),
  };
}

export async function submarinePreimageOf(ctx: EngineContext, id: string): Promise<{ preimage: string }> {
  const swap = await ctx.swaps.require(id, SwapType.Submarine);
  const { preimage } = submarineData(swap);
  if (preimage === undefined) throw new SwapError(400, 'the invoice of this swap has not been paid yet');
  return { preimage };
}
