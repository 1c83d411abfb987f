// The submarine swap (chain → Lightning) = a user lockup leg + a pay invoice leg: creating it, setting its invoice
// later, the cooperative refund of a failed one, and the read-only calls about it.
import { hex } from '@scure/base';
import { UniqueViolation, type SwapRecord } from '../../db/index.ts';
import {
  SwapError,
  RefundRefusal,
  invalidPairHash,
  invoiceExists,
  noLegacySwaps,
  noLockup,
  notEligibleForRefund,
  paymentInProgress,
  preimageHashExists,
  swapHasInvoice,
  undefinedParameter,
  type CreateSubmarineRequest,
  type CreateSubmarineResponse,
  type LockupTransactionBody,
  type PartialSignatureBody,
  type RefundRequest,
  type SetInvoiceResponse,
} from '../../protocol/index.ts';
import { submarineExpectedAmount, submarineInvoiceAmount } from '../../swaps/amounts.ts';
import { statusesAfter, statusesReachedBy, statusesWith } from '../../swaps/derive.ts';
import { submarinePairBody, type PairConfig } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '../../swaps/status.ts';
import { submarineMachine } from '../../swaps/submarine-machine.ts';
import { currentMinerFees, quotedPair, swapLightning, type EngineContext } from '../context.ts';
import { submarineData, type SubmarineData, type SubmarinePricing } from '../data.ts';
import { preimageHash as parsePreimageHash, publicKey } from '../input.ts';
import { coSignClientSpend } from '../legs/cosign.ts';
import { checkInvoice, type CheckedInvoice } from '../legs/invoice-check.ts';
import { legChain, userLockupOf } from '../legs/lockup-leg.ts';
import { chainBlocksFor, etaOf } from '../block-time.ts';
import { treeOf, type ChainBackend, type SwapOutput, type SwapOutputKind } from '../../chains/backend.ts';

const bip21 = (chain: ChainBackend, address: string, amount: number): string =>
  chain.paymentUri(address, amount, `Send to ${chain.symbol} lightning`);

/**
 * Blocks until the timeout: the pair's minimum, longer when the invoice's final CLTV delta (Lightning blocks) needs
 * room in the chain's blocks.
 */
function timeoutDelta(chain: ChainBackend, pair: PairConfig, invoice: CheckedInvoice | undefined, safetyBlocks: number): number {
  const { swapMinimal, swapMaximal } = pair.timeouts;
  if (invoice === undefined) return swapMinimal;
  const needed = chainBlocksFor(chain, invoice.minFinalCltvExpiry + safetyBlocks + 1);
  if (needed > swapMaximal) throw new SwapError('invalid', 'invoice min final CLTV expiry is too long for the swap timeout');
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

/** A submarine swap as created, for the v2 and v1 answers to shape. */
export interface CreatedSubmarine {
  record: SwapRecord;
  data: SubmarineData;
  output: SwapOutput;
  bip21?: string;
}

export async function createSubmarine(ctx: EngineContext, request: CreateSubmarineRequest): Promise<CreateSubmarineResponse> {
  const { record, data, output, bip21 } = await createSubmarineSwap(ctx, request, 'taproot');
  return {
    id: record.id,
    address: output.address,
    swapTree: treeOf(output),
    claimPublicKey: data.claimPublicKey,
    timeoutBlockHeight: record.timeoutBlockHeight!,
    ...(output.blindingKey !== undefined && { blindingKey: output.blindingKey }),
    ...(bip21 !== undefined && { expectedAmount: data.expectedAmount, acceptZeroConf: data.acceptZeroConf, bip21 }),
  };
}

/** Creates a submarine swap whose lockup output is of `outputKind` (Taproot for v2, legacy for v1). */
export async function createSubmarineSwap(ctx: EngineContext, request: CreateSubmarineRequest, outputKind: SwapOutputKind): Promise<CreatedSubmarine> {
  const { pair, chain, lightning, fees } = await quotedPair(
    ctx,
    { base: request.from, quote: request.to },
    request.pairHash,
    (quoted, now) => submarinePairBody(quoted, now).hash,
  );
  const refundPublicKey = publicKey(request.refundPublicKey, 'refundPublicKey');
  if (outputKind === 'legacy' && chain.legacyOutputs !== true) throw noLegacySwaps(chain.symbol);

  let invoice: CheckedInvoice | undefined;
  let paymentHash: string;
  if (request.invoice !== undefined) {
    invoice = await checkInvoice(ctx, lightning, request.invoice, pair);
    paymentHash = invoice.paymentHash;
    if (request.preimageHash !== undefined && hex.encode(parsePreimageHash(request.preimageHash)) !== paymentHash) {
      throw new SwapError('invalid', 'invoice payment hash does not match the preimage hash');
    }
    if (await ctx.storage.swaps.getByInvoice(invoice.paymentRequest)) throw invoiceExists();
  } else if (request.preimageHash !== undefined) {
    paymentHash = hex.encode(parsePreimageHash(request.preimageHash));
  } else {
    throw undefinedParameter('invoice');
  }
  if (await ctx.storage.swaps.getByPreimageHash(paymentHash)) throw preimageHashExists();

  const timeoutBlockHeight = (await chain.height()) + timeoutDelta(chain, pair, invoice, ctx.settings.paymentSafetyBlocks);
  // Taken outside any transaction: an index handed out is never handed out again, even if this swap fails.
  const keyIndex = await ctx.storage.counters.nextSwapKeyIndex();
  const key = ctx.keys.keyAt(keyIndex);
  const output = chain.swapOutput({
    kind: 'submarine',
    outputKind,
    preimageHash: hex.decode(paymentHash),
    claimPublicKey: key.publicKey,
    refundPublicKey,
    timeoutBlockHeight,
    servicePublicKey: key.publicKey,
  });
  const address = output.address;
  const pricing: SubmarinePricing = {
    rate: pair.rate,
    percentage: pair.fees.percentageSwapIn,
    minerFee: fees.normal,
    maximalZeroConf: pair.limits.maximalZeroConf,
  };
  const data: SubmarineData = {
    refundPublicKey: hex.encode(refundPublicKey),
    claimPublicKey: hex.encode(key.publicKey),
    ...(output.tree !== undefined && { swapTree: output.tree }),
    ...(output.legacy !== undefined && { legacy: output.legacy }),
    lockupScript: output.script,
    ...(output.blindingKey !== undefined && { blindingKey: output.blindingKey }),
    pricing,
    ...(request.referralId !== undefined && { referralId: request.referralId }),
    ...(invoice && invoiceFields(pricing, invoice)),
  };

  let record: SwapRecord;
  try {
    record = await ctx.swaps.insertNew({
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
    if (error instanceof UniqueViolation && error.column === 'invoice') throw invoiceExists();
    if (error instanceof UniqueViolation && error.column === 'preimage_hash') throw preimageHashExists();
    throw error;
  }
  ctx.watching.script(chain.symbol, data.lockupScript, { swapId: record.id, leg: 'userLockup' });
  ctx.logger.info('submarine swap created', { swap: record.id, address, timeoutBlockHeight, expectedAmount: data.expectedAmount });

  return { record, data, output, ...(invoice && { bip21: bip21(chain, address, data.expectedAmount!) }) };
}

/** Statuses in which an invoice may still be given. */
const SETTABLE = statusesWith(submarineMachine, 'invoice.provided');
/** Statuses a given invoice leads to: a second invoice there meets "has an invoice already". */
const INVOICE_GIVEN = statusesReachedBy(submarineMachine, 'invoice.provided');
/** Statuses in which Ferry is paying or has paid the invoice: all that follow the decision to pay, unless it failed. */
const PAYING = statusesAfter(submarineMachine, 'payment.start', ['payment.failed']);
/** Statuses in which a cooperative refund may be signed; REFERENCE.md "Cooperative refund". */
const REFUNDABLE = statusesWith(submarineMachine, 'refund.signed');

export function setSubmarineInvoice(
  ctx: EngineContext,
  id: string,
  paymentRequest: string,
  pairHash?: string,
): Promise<SetInvoiceResponse> {
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Submarine);
    const data = submarineData(swap);
    const pair = ctx.settings.pairs.get(swap.pair)!;
    const chain = legChain(ctx, userLockupOf(swap));
    if (pairHash !== undefined && pairHash !== submarinePairBody(pair, await currentMinerFees(chain)).hash) throw invalidPairHash();
    if (swap.invoice !== null && PAYING.includes(swap.status)) throw paymentInProgress(swap.invoice);
    if (!SETTABLE.includes(swap.status) && !INVOICE_GIVEN.includes(swap.status)) {
      throw new SwapError('invalid', `cannot set an invoice in status ${swap.status}`);
    }
    if (swap.invoice !== null) throw swapHasInvoice(id);

    const invoice = await checkInvoice(ctx, swapLightning(ctx, swap), paymentRequest, pair);
    if (invoice.paymentHash !== swap.preimageHash) {
      throw new SwapError('invalid', 'invoice payment hash does not match the preimage hash of the swap');
    }
    const blocksLeft = swap.timeoutBlockHeight! - (await chain.height());
    if (chainBlocksFor(chain, invoice.minFinalCltvExpiry + ctx.settings.paymentSafetyBlocks) >= blocksLeft) {
      throw new SwapError('invalid', 'invoice min final CLTV expiry is too long for the swap timeout');
    }
    const fields = invoiceFields(data.pricing, invoice);
    if (data.lockup !== undefined && data.lockup.value < fields.expectedAmount) {
      const maximal = submarineInvoiceAmount(data.lockup.value, data.pricing.rate, data.pricing.percentage, data.pricing.minerFee);
      throw new SwapError('invalid', `invoice amount exceeds the maximal of ${maximal}`);
    }
    if (await ctx.storage.swaps.getByInvoice(paymentRequest)) throw invoiceExists();
    try {
      const result = await ctx.swaps.applyLocked(id, { type: 'invoice.provided', data: fields });
      if (!result.applied) throw new SwapError('invalid', `cannot set an invoice in status ${result.swap.status}`);
    } catch (error) {
      if (error instanceof UniqueViolation) throw invoiceExists();
      throw error;
    }
    return {
      bip21: bip21(chain, swap.lockupAddress!, fields.expectedAmount),
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
): Promise<LockupTransactionBody> {
  const swap = await ctx.swaps.require(id, SwapType.Submarine);
  const { lockup } = submarineData(swap);
  if (lockup === undefined) throw noLockup();
  const timeoutBlockHeight = swap.timeoutBlockHeight!;
  const chain = legChain(ctx, userLockupOf(swap));
  const blocksLeft = timeoutBlockHeight - (await chain.height());
  return {
    id: lockup.txid,
    hex: lockup.hex,
    timeoutBlockHeight,
    ...(blocksLeft > 0 && { timeoutEta: etaOf(chain, blocksLeft) }),
  };
}

export async function submarinePreimageOf(ctx: EngineContext, id: string): Promise<{ preimage: string }> {
  const swap = await ctx.swaps.require(id, SwapType.Submarine);
  const { preimage } = submarineData(swap);
  if (preimage === undefined) throw new SwapError('invalid', 'the invoice of this swap has not been paid yet');
  return { preimage };
}

/**
 * Cooperative (key path) refund of a failed submarine swap. The order matters for safety: eligibility is checked
 * (status, then the Lightning node's record of a payment), "refund signed" is committed, and only then is the
 * partial signature made. Because payment.start refuses once refundSigned is set and refund.signed exists only
 * in failed statuses, the invoice of a swap with a signed refund is never paid.
 */
export function submarineRefund(ctx: EngineContext, id: string, request: RefundRequest): Promise<PartialSignatureBody> {
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Submarine);
    if (!REFUNDABLE.includes(swap.status)) throw notEligibleForRefund(RefundRefusal.status);
    const payment = await swapLightning(ctx, swap).lookupPayment(swap.preimageHash);
    if (payment !== undefined && payment.status !== 'FAILED') throw notEligibleForRefund(RefundRefusal.paymentPending);
    const signed = await coSignClientSpend(ctx, userLockupOf(swap), request, {
      recordedLockupOnly: false,
      beforeSigning: async () => {
        const recorded = await ctx.swaps.applyLocked(id, { type: 'refund.signed' });
        if (!recorded.applied) throw notEligibleForRefund(RefundRefusal.status);
      },
    });
    ctx.logger.info('signed a cooperative refund', { swap: id, status: swap.status });
    return signed;
  });
}
