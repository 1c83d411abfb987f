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
  type CreateEvmSubmarineResponse,
  type LockupTransactionBody,
  type PartialSignatureBody,
  type RefundRequest,
  type SetInvoiceResponse,
} from '@ferry/sdk/protocol/index.js';
import { submarineExpectedAmount, submarineInvoiceAmount } from '../../swaps/amounts.ts';
import { statusesAfter, statusesReachedBy, statusesWith } from '@ferry/sdk/swaps/derive.js';
import { submarinePairBody, type PairConfig } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { submarineMachine } from '@ferry/sdk/swaps/submarine-machine.js';
import { currentV1Pair } from '../v1-pairs.ts';
import { currentMinerFees, quotedPair, recentMinerFees, swapLightning, type AnyChain, type EngineContext } from '../context.ts';
import { submarineData, type SubmarineData, type SubmarinePricing } from '../data.ts';
import { preimageHash as parsePreimageHash, publicKey } from '../input.ts';
import { coSignClientSpend } from '../legs/cosign.ts';
import { checkInvoice, type CheckedInvoice } from '../legs/invoice-check.ts';
import { legAnyChain, legContractChain, userLockupOf } from '../legs/lockup-leg.ts';
import { chainBlocksFor, etaOf } from '../block-time.ts';
import { creationHeight } from '../coalesced-reads.ts';
import { treeOf, type ChainBackend, type SwapOutput, type SwapOutputKind } from '@ferry/sdk/chains/backend.js';
import { isContractChain, type ContractChain } from '@ferry/sdk/chains/contract-chain.js';

const bip21 = (chain: ChainBackend, address: string, amount: number): string =>
  chain.paymentUri(address, amount, `Send to ${chain.symbol} lightning`);

/**
 * Blocks until the timeout: the pair's minimum, longer when the invoice's final CLTV delta (Lightning blocks) needs
 * room in the chain's blocks.
 */
function timeoutDelta(chain: AnyChain, pair: PairConfig, invoice: CheckedInvoice | undefined, safetyBlocks: number): number {
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

/** A submarine swap as created, for the v2 and v1 answers to shape; `output` is undefined on a contract chain. */
export interface CreatedSubmarine {
  record: SwapRecord;
  data: SubmarineData;
  output?: SwapOutput;
  contract?: ContractChain;
  bip21?: string;
}

export async function createSubmarine(ctx: EngineContext, request: CreateSubmarineRequest): Promise<CreateSubmarineResponse | CreateEvmSubmarineResponse> {
  const { record, data, output, contract, bip21 } = await createSubmarineSwap(ctx, request, 'taproot');
  const { timeoutBlockHeight } = record;
  if (contract !== undefined) {
    return {
      id: record.id,
      address: record.lockupAddress!,
      claimAddress: contract.serviceAddress,
      timeoutBlockHeight: timeoutBlockHeight!,
      ...(data.expectedAmount !== undefined && { expectedAmount: data.expectedAmount, acceptZeroConf: false }),
    };
  }
  return {
    id: record.id,
    address: output!.address,
    swapTree: treeOf(output!),
    claimPublicKey: data.claimPublicKey,
    timeoutBlockHeight: timeoutBlockHeight!,
    ...(output!.blindingKey !== undefined && { blindingKey: output!.blindingKey }),
    ...(bip21 !== undefined && { expectedAmount: data.expectedAmount, acceptZeroConf: data.acceptZeroConf, bip21 }),
  };
}

/** Creates a submarine swap whose lockup output is of `outputKind` (Taproot for v2, legacy for v1; contract chains have their contract). */
export async function createSubmarineSwap(ctx: EngineContext, request: CreateSubmarineRequest, outputKind: SwapOutputKind): Promise<CreatedSubmarine> {
  const { pair, chain, lightning, fees } = await quotedPair(
    ctx,
    { base: request.from, quote: request.to },
    request.pairHash,
    (quoted, now) => submarinePairBody(quoted, now).hash,
    outputKind,
  );
  // A contract chain's lockup names its own refund address; a key would be a client mistaking the chain.
  const contract = isContractChain(chain) ? chain : undefined;
  if (contract !== undefined && request.refundPublicKey !== undefined) {
    throw new SwapError('invalid', `invalid parameter: refundPublicKey (a ${contract.symbol} lockup names its refund address)`);
  }
  const refundPublicKey = contract === undefined ? publicKey(request.refundPublicKey, 'refundPublicKey') : undefined;
  // A contract chain's v1 swap is its v2 swap (the contract is the output); a UTXO chain needs legacy outputs.
  if (outputKind === 'legacy' && contract === undefined && (chain as ChainBackend).legacyOutputs !== true) throw noLegacySwaps(chain.symbol);

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

  const timeoutBlockHeight = (await creationHeight(chain)) + timeoutDelta(chain, pair, invoice, ctx.settings.paymentSafetyBlocks);
  const pricing: SubmarinePricing = {
    rate: pair.rate,
    percentage: pair.fees.percentageSwapIn,
    minerFee: fees.normal,
    // A contract event is delivered once confirmed: there is no unconfirmed lockup to accept.
    maximalZeroConf: contract === undefined ? pair.limits.maximalZeroConf : 0,
  };
  const common = {
    pricing,
    ...(request.referralId !== undefined && { referralId: request.referralId }),
    ...(invoice && invoiceFields(pricing, invoice)),
  };
  let keyIndex: number | undefined;
  let address: string;
  let data: SubmarineData;
  let output: SwapOutput | undefined;
  if (contract === undefined) {
    // Taken outside any transaction: an index handed out is never handed out again, even if this swap fails.
    keyIndex = await ctx.keyIndexes.take();
    const key = ctx.keys.keyAt(keyIndex);
    const made = (chain as ChainBackend).swapOutput({
      kind: 'submarine',
      outputKind,
      preimageHash: hex.decode(paymentHash),
      claimPublicKey: key.publicKey,
      refundPublicKey: refundPublicKey!,
      timeoutBlockHeight,
      servicePublicKey: key.publicKey,
      servicePrivateKey: key.privateKey,
    });
    output = made;
    address = made.address;
    data = {
      refundPublicKey: hex.encode(refundPublicKey!),
      claimPublicKey: hex.encode(key.publicKey),
      ...(made.tree !== undefined && { swapTree: made.tree }),
      ...(made.legacy !== undefined && { legacy: made.legacy }),
      lockupScript: made.script,
      ...(made.blindingKey !== undefined && { blindingKey: made.blindingKey }),
      ...common,
    };
  } else {
    address = contract.contractAddress;
    // No keys, tree or script on a contract chain (SwapOutputData says so): the contract and Ferry's claim address.
    data = { contract: { address, claimAddress: contract.serviceAddress }, ...common } as unknown as SubmarineData;
  }

  let record: SwapRecord;
  try {
    record = await ctx.swaps.insertNew({
      type: SwapType.Submarine,
      pair: pair.id,
      status: invoice ? S.InvoiceSet : S.Created,
      preimageHash: paymentHash,
      invoice: invoice?.paymentRequest ?? null,
      keyIndex: keyIndex ?? null,
      timeoutBlockHeight,
      lockupAddress: address,
      data,
    });
  } catch (error) {
    if (error instanceof UniqueViolation && error.column === 'invoice') throw invoiceExists();
    if (error instanceof UniqueViolation && error.column === 'preimage_hash') throw preimageHashExists();
    throw error;
  }
  ctx.logger.info('submarine swap created', { swap: record.id, address, timeoutBlockHeight, expectedAmount: data.expectedAmount });
  if (contract !== undefined) return { record, data, contract };
  const utxo = chain as ChainBackend;
  ctx.watching.script(utxo.symbol, data.lockupScript, { swapId: record.id, leg: 'userLockup' });
  return { record, data, output, ...(invoice && { bip21: bip21(utxo, address, data.expectedAmount!) }) };
}

/** Statuses in which an invoice may still be given. */
const SETTABLE = statusesWith(submarineMachine, 'invoice.provided');
/** Statuses a given invoice leads to: a second invoice there meets "has an invoice already". */
const INVOICE_GIVEN = statusesReachedBy(submarineMachine, 'invoice.provided');
/** Statuses in which Ferry is paying or has paid the invoice: all that follow the decision to pay, unless it failed. */
const PAYING = statusesAfter(submarineMachine, 'payment.start', ['payment.failed', 'lockup.lost']);
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
    const leg = userLockupOf(swap);
    const chain = legAnyChain(ctx, leg);
    // The swap's prices were fixed at creation: the hash only shows the client saw pair data of the last minute, v2's or v1's.
    const quotedHashes = async () => [await currentMinerFees(chain), ...recentMinerFees(chain)].map((fees) => submarinePairBody(pair, fees).hash);
    if (pairHash !== undefined && !(await quotedHashes()).includes(pairHash) && pairHash !== (await currentV1Pair(ctx, pair)).hash) {
      throw invalidPairHash();
    }
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
      ...(leg.contract === undefined && { bip21: bip21(chain as ChainBackend, swap.lockupAddress!, fields.expectedAmount) }),
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
  const chain = legAnyChain(ctx, userLockupOf(swap));
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
    if (userLockupOf(swap).contract !== undefined) throw new SwapError('invalid', 'swap not eligible for a cooperative refund: an EVM swap is refunded with the signature of GET /v2/swap/submarine/{id}/refund');
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

/**
 * The cooperative refund of a failed submarine swap on a contract chain: Ferry's EIP-712 signature over the
 * lockup's values, with which the refund address calls `refundCooperative` before the timelock. Checked and
 * recorded as the MuSig2 refund is (refund.signed exists only in failed statuses, and payment.start refuses once
 * it is set), so a swap with a signature out is never paid. Only a lockup naming Ferry's claim address can be
 * refunded with Ferry's signature; any other waits for its timelock.
 */
export async function submarineRefundSignature(ctx: EngineContext, idOrPreimageHash: string): Promise<{ signature: string }> {
  // A preimage hash names its swap (the reference takes either): a lockup found in the contract's logs knows no id.
  const byHash = /^[0-9a-f]{64}$/.test(idOrPreimageHash) ? await ctx.storage.swaps.getByPreimageHash(idOrPreimageHash) : undefined;
  const id = byHash?.id ?? idOrPreimageHash;
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Submarine);
    const leg = userLockupOf(swap);
    if (leg.contract === undefined) throw new SwapError('invalid', 'swap not eligible for a cooperative refund: not an EVM swap (POST the refund transaction instead)');
    if (!REFUNDABLE.includes(swap.status)) throw notEligibleForRefund(RefundRefusal.status);
    const values = leg.lockup?.contract;
    if (values === undefined) throw noLockup();
    if (values.claimAddress.toLowerCase() !== leg.contract.claimAddress.toLowerCase()) throw notEligibleForRefund('the lockup does not name Ferry as claim address');
    const payment = await swapLightning(ctx, swap).lookupPayment(swap.preimageHash);
    if (payment !== undefined && payment.status !== 'FAILED') throw notEligibleForRefund(RefundRefusal.paymentPending);
    const recorded = await ctx.swaps.applyLocked(id, { type: 'refund.signed' });
    if (!recorded.applied) throw notEligibleForRefund(RefundRefusal.status);
    const signature = await legContractChain(ctx, leg).signCooperativeRefund(values);
    ctx.logger.info('signed a cooperative EVM refund', { swap: id, status: swap.status });
    return { signature };
  });
}
