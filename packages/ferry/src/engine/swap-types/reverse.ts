// The reverse swap (Lightning → chain) = a hold invoice leg + a server lockup leg: creating it (price, key, tree
// and a hold invoice for the user's preimage hash on the operator's node), the user's claim request (the preimage
// settles the invoice first; only then is a key-path claim co-signed), and the read-only calls about it.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { decodeOwnBolt11, invoiceExpiresAt as expiryOf } from '@ferry/sdk/lightning/bolt11/index.js';
import { UniqueViolation, type SwapRecord } from '../../db/index.ts';
import {
  noLegacySwaps,
  noHoldInvoices,
  SwapError,
  incorrectPreimage,
  notEligibleForClaim,
  preimageHashExists,
  undefinedParameter,
  invalidParameter,
  type CreateReverseRequest,
  type CreateReverseResponse,
  type CreateEvmReverseResponse,
  type LockupTransactionBody,
  type PartialSignatureBody,
  type ReverseClaimRequest,
} from '@ferry/sdk/protocol/index.js';
import { limitViolation, reverseInvoiceAmount, reverseOnchainAmount } from '../../swaps/amounts.ts';
import { statusesWith } from '@ferry/sdk/swaps/derive.js';
import { reversePairBody } from '../../swaps/pairs.ts';
import { reverseMachine } from '@ferry/sdk/swaps/reverse-machine.js';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { quotedPair, type EngineContext } from '../context.ts';
import { reverseData, type ReverseData } from '../data.ts';
import { hexBytes, positiveInteger, preimageHash as parsePreimageHash, publicKey } from '../input.ts';
import { coSignClientSpend } from '../legs/cosign.ts';
import { serverLockupOf } from '../legs/lockup-leg.ts';
import { lightningBlocksFor } from '../block-time.ts';
import { creationHeight } from '../coalesced-reads.ts';
import { treeOf, type ChainBackend, type SwapOutput, type SwapOutputKind } from '@ferry/sdk/chains/backend.js';
import { isContractChain, type ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import type { GasPrepay } from '@ferry/sdk/swaps/reverse-machine.js';
import { createGasInvoice, gasAnswer, prepayInvoiceAmount, requestedGas } from './reverse-gas.ts';
import { walletBolt12Invoice } from './reverse-bolt12.ts';
import { requireHintInInvoice, reverseHint } from './reverse-hint.ts';
import { reverseClaimCovenant } from './reverse-covenant.ts';

/** Dust limit of a Taproot output: smaller lockups could not be claimed. */
const TAPROOT_DUST = 330;

/** A reverse swap as created, for the v2 and v1 answers to shape; `output` is undefined on a contract chain. */
export interface CreatedReverse {
  record: SwapRecord;
  data: ReverseData;
  output?: SwapOutput;
  contract?: ContractChain;
  /** A reverse swap with a prepay invoice (EVM gas, or the miner fee prepay): its second invoice. */
  gas?: GasPrepay;
}

export async function createReverse(ctx: EngineContext, request: CreateReverseRequest): Promise<CreateReverseResponse | CreateEvmReverseResponse> {
  const { record, data, output, contract, gas } = await createReverseSwap(ctx, request, 'taproot');
  const common = { id: record.id, invoice: record.invoice!, timeoutBlockHeight: record.timeoutBlockHeight!, onchainAmount: data.onchainAmount };
  if (contract !== undefined) {
    return { ...common, lockupAddress: record.lockupAddress!, refundAddress: contract.serviceAddress, ...(gas !== undefined && gasAnswer(gas)) };
  }
  return {
    ...common,
    swapTree: treeOf(output!),
    lockupAddress: output!.address,
    refundPublicKey: data.refundPublicKey,
    ...(output!.blindingKey !== undefined && { blindingKey: output!.blindingKey }),
  };
}

/** Creates a reverse swap whose lockup output is of `outputKind` (Taproot for v2, legacy for v1; contract chains have their contract). */
export async function createReverseSwap(ctx: EngineContext, request: CreateReverseRequest, outputKind: SwapOutputKind): Promise<CreatedReverse> {
  // A reverse swap goes from Lightning (the pair's quote) to the chain (its base).
  const { pair, chain, lightning, fees } = await quotedPair(
    ctx,
    { base: request.to, quote: request.from },
    request.pairHash,
    (quoted, now) => reversePairBody(quoted, now).hash,
    outputKind,
  );
  // Without hold invoices (CLN without the hold plugin's gRPC) a reverse swap cannot be offered at all.
  if (lightning.holdInvoices === false) throw noHoldInvoices();
  // A contract chain's lockup is claimed by an address; a UTXO chain's by a key.
  const contract = isContractChain(chain) ? chain : undefined;
  if (contract !== undefined && request.claimPublicKey !== undefined) {
    throw new SwapError('invalid', `invalid parameter: claimPublicKey (a ${contract.symbol} lockup is claimed by claimAddress)`);
  }
  if (contract !== undefined && request.claimAddress === undefined) throw undefinedParameter('claimAddress');
  if (contract !== undefined && !contract.isAddress(request.claimAddress!)) throw invalidParameter('claimAddress');
  if (contract === undefined && request.claimAddress !== undefined) throw invalidParameter('claimAddress');
  const claimPublicKey = contract === undefined ? publicKey(request.claimPublicKey, 'claimPublicKey') : undefined;
  // A contract chain's v1 swap is its v2 swap (the contract is the output); a UTXO chain needs legacy outputs.
  if (outputKind === 'legacy' && contract === undefined && (chain as ChainBackend).legacyOutputs !== true) throw noLegacySwaps(chain.symbol);
  // The operator's miner fee prepay is a v1 protocol: v2 answers have no field for its invoice.
  const minerFeePrepay = outputKind === 'legacy' && contract === undefined && ctx.settings.prepayMinerFee;
  const gasRequested = requestedGas(request, contract) ?? (minerFeePrepay ? 'minerFee' : undefined);
  const hashBytes = parsePreimageHash(request.preimageHash);
  const paymentHash = hex.encode(hashBytes);

  if (request.invoiceAmount !== undefined && request.onchainAmount !== undefined) {
    throw new SwapError('invalid', 'invoice and onchain amount were specified');
  }
  // The wallet's BOLT12 invoice names the amount itself.
  const walletInvoice = request.invoice === undefined ? undefined : await walletBolt12Invoice(lightning, request.invoice, paymentHash, request.invoiceAmount);
  if (walletInvoice !== undefined && request.onchainAmount !== undefined) throw new SwapError('invalid', 'invoice and onchain amount were specified');
  if (walletInvoice !== undefined && gasRequested !== undefined) throw new SwapError('invalid', 'a BOLT12 invoice cannot prepay gas');
  if (request.invoiceAmount === undefined && request.onchainAmount === undefined && walletInvoice === undefined) {
    throw new SwapError('invalid', 'no amount was specified');
  }
  const { rate } = pair;
  const percent = pair.fees.percentage;
  const lockupFee = fees.reverse.lockup;
  let invoiceAmount: number;
  let onchainAmount: number;
  if (walletInvoice !== undefined || request.invoiceAmount !== undefined) {
    invoiceAmount = walletInvoice?.invoiceAmount ?? positiveInteger(request.invoiceAmount, 'invoiceAmount');
    onchainAmount = reverseOnchainAmount(invoiceAmount, rate, percent, lockupFee);
  } else {
    onchainAmount = positiveInteger(request.onchainAmount, 'onchainAmount');
    invoiceAmount = reverseInvoiceAmount(onchainAmount, rate, percent, lockupFee);
  }
  const violation = limitViolation(invoiceAmount, pair.limits);
  if (violation !== undefined) throw new SwapError('invalid', violation);
  if (onchainAmount < (contract === undefined ? TAPROOT_DUST : 1) + fees.reverse.claim) throw new SwapError('invalid', 'onchain amount is too low');
  const claimCovenant = await reverseClaimCovenant(ctx, contract === undefined ? (chain as ChainBackend) : undefined, request, outputKind, onchainAmount, fees.reverse.claim);
  if (await ctx.storage.swaps.getByPreimageHash(paymentHash)) throw preimageHashExists();

  const timeoutBlockHeight = (await creationHeight(chain)) + pair.timeouts.reverse;
  let keyIndex: number | undefined;
  let servicePublicKey: Uint8Array | undefined;
  let output: SwapOutput | undefined;
  if (contract === undefined) {
    keyIndex = await ctx.keyIndexes.take();
    const key = ctx.keys.keyAt(keyIndex);
    servicePublicKey = key.publicKey;
    output = (chain as ChainBackend).swapOutput({
      kind: 'reverse',
      outputKind,
      preimageHash: hashBytes,
      claimPublicKey: claimPublicKey!,
      refundPublicKey: key.publicKey,
      timeoutBlockHeight,
      servicePublicKey: key.publicKey,
      servicePrivateKey: key.privateKey,
      ...(claimCovenant !== undefined && { claimCovenant }),
    });
  }
  const lockupAddress = output?.address ?? contract!.contractAddress;

  const memo = request.description ?? `Send to ${chain.symbol} address`;
  // A BOLT12 wallet invoice is the wallet's own (the reference checks its payee instead); an EVM swap has no claim key.
  const hint = contract === undefined && walletInvoice === undefined
    ? reverseHint(ctx, chain as ChainBackend, request, claimPublicKey!, onchainAmount - fees.reverse.claim, memo)
    : undefined;

  let paymentRequest: string;
  // The payer's HTLC must outlive the on-chain timeout, so a preimage learned at the last block still settles.
  const cltvExpiry = lightningBlocksFor(chain, pair.timeouts.reverse) + ctx.settings.reverseCltvMarginBlocks;
  const prepayTerms = gasRequested === undefined
    ? undefined
    : { pair, fees, chain, requestedAs: gasRequested, expirySeconds: ctx.settings.invoiceExpirySeconds, cltvExpiry };
  // The miner fee prepay is part of the price: the hold invoice asks for the rest. Gas is on top of it.
  const holdAmount = gasRequested === 'minerFee' ? invoiceAmount - prepayInvoiceAmount(prepayTerms!) : invoiceAmount;
  if (holdAmount <= 0) throw new SwapError('invalid', 'invoice amount is too low to prepay the miner fee');
  try {
    if (walletInvoice !== undefined) {
      await lightning.injectHoldInvoice!(walletInvoice.invoice, cltvExpiry);
      paymentRequest = walletInvoice.invoice;
    } else ({ paymentRequest } = await lightning.createHoldInvoice({
      paymentHash,
      amountMsat: BigInt(holdAmount) * 1000n,
      memo,
      expirySeconds: ctx.settings.invoiceExpirySeconds,
      cltvExpiry,
      ...(hint !== undefined && { routeHints: hint.routeHints }),
    }));
    if (hint !== undefined) await requireHintInInvoice(lightning, paymentRequest, paymentHash);
  } catch (error) {
    if (/already exists/i.test((error as Error).message)) throw preimageHashExists();
    throw error;
  }
  let gas: GasPrepay | undefined;
  if (prepayTerms !== undefined) {
    gas = await createGasInvoice(lightning, prepayTerms).catch(async (error: unknown) => {
      await lightning.cancelHoldInvoice(paymentHash).catch(() => {});
      throw error;
    });
  }
  // Our own node's hold invoice: its signer is not in question, so the payee is not recovered (decodeOwnBolt11).
  const invoiceExpiresAt = walletInvoice?.expiresAt ?? expiryOf(decodeOwnBolt11(paymentRequest));
  const outputData = output === undefined
    ? // No keys, tree or script on a contract chain (SwapOutputData says so): the contract and both addresses.
      { contract: { address: lockupAddress, claimAddress: request.claimAddress!, refundAddress: contract!.serviceAddress } }
    : {
        claimPublicKey: hex.encode(claimPublicKey!),
        refundPublicKey: hex.encode(servicePublicKey!),
        ...(output.tree !== undefined && { swapTree: output.tree }),
        ...(output.legacy !== undefined && { legacy: output.legacy }),
        lockupScript: output.script,
        ...(output.blindingKey !== undefined && { blindingKey: output.blindingKey }),
      };
  const data = {
    ...outputData,
    invoiceAmount,
    onchainAmount,
    invoiceExpiresAt,
    // The invoice converted at the rate without any fee, less what is locked and the lockup fee estimate.
    serviceFee: reverseOnchainAmount(invoiceAmount, rate, 0, 0) - onchainAmount - lockupFee,
    ...(gas !== undefined && { gas }),
    ...(request.referralId !== undefined && { referralId: request.referralId }),
    ...(hint !== undefined && { directPayment: hint.directPayment }),
  } as ReverseData;

  let record: SwapRecord;
  try {
    record = await ctx.swaps.insertNew({
      type: SwapType.Reverse,
      pair: pair.id,
      status: S.Created,
      preimageHash: paymentHash,
      invoice: paymentRequest,
      keyIndex: keyIndex ?? null,
      timeoutBlockHeight,
      lockupAddress,
      data,
    });
  } catch (error) {
    if (error instanceof UniqueViolation && (error.column === 'preimage_hash' || error.column === 'invoice')) {
      // Another swap took the hash between the check and the insert: its invoice is not ours to keep.
      await lightning.cancelHoldInvoice(paymentHash).catch(() => {});
      if (gas !== undefined) await lightning.cancelHoldInvoice(gas.preimageHash).catch(() => {});
      throw preimageHashExists();
    }
    throw error;
  }
  ctx.logger.info('reverse swap created', { swap: record.id, invoiceAmount, onchainAmount, timeoutBlockHeight });
  if (output === undefined) return { record, data, contract, ...(gas !== undefined && { gas }) };
  ctx.watching.script(chain.symbol, data.lockupScript, { swapId: record.id, leg: 'serverLockup' });
  return { record, data, output, ...(gas !== undefined && { gas }) };
}

/**
 * Statuses in which the preimage still buys the lockup: a preimage learned applies (but not once Ferry's refund is
 * out), or the invoice is settled already (a claim to co-sign).
 */
const CLAIMABLE = [...statusesWith(reverseMachine, 'preimage.learned'), ...reverseMachine.succeeded].filter(
  (status) => !statusesWith(reverseMachine, 'refund.confirmed').includes(status),
);

/** POST /swap/reverse/{id}/claim: settle with the preimage, then co-sign the user's key-path claim if asked. */
export async function reverseClaim(ctx: EngineContext, id: string, request: ReverseClaimRequest): Promise<PartialSignatureBody | Record<string, never>> {
  const swap = await ctx.swaps.require(id, SwapType.Reverse);
  const preimage = hexBytes(request.preimage, 'preimage');
  if (preimage.length !== 32 || hex.encode(sha256(preimage)) !== swap.preimageHash) throw incorrectPreimage();
  const given = (['pubNonce', 'transaction', 'index'] as const).filter((name) => request[name] !== undefined);
  if (given.length !== 0 && serverLockupOf(swap).contract !== undefined) throw invalidParameter(given[0]);
  if (given.length !== 0 && given.length !== 3) {
    throw undefinedParameter(['pubNonce', 'transaction', 'index'].find((name) => !given.includes(name as never))!);
  }
  await ctx.locks.run(id, async () => {
    const current = await ctx.swaps.require(id);
    // After Ferry decided to refund, handing over the preimage no longer buys the coins (one handed over before
    // still does: the refund waits for its settlement).
    const data = reverseData(current);
    if (!CLAIMABLE.includes(current.status) || (data.refundRequested === true && data.preimage === undefined)) throw notEligibleForClaim();
    if (!reverseMachine.succeeded.includes(current.status as never)) {
      await ctx.swaps.applyLocked(id, { type: 'preimage.learned', data: { preimage: hex.encode(preimage) } });
    }
  });
  await ctx.effects.whenIdle(id);
  const settled = await ctx.swaps.require(id);
  if (!reverseMachine.succeeded.includes(settled.status as never)) throw new SwapError('invalid', 'the invoice of this swap could not be settled yet');
  if (given.length === 0) return {};
  return coSignClientSpend(ctx, serverLockupOf(settled), request, { recordedLockupOnly: true });
}

export async function reverseLockupTransaction(ctx: EngineContext, id: string): Promise<LockupTransactionBody> {
  const swap = await ctx.swaps.require(id, SwapType.Reverse);
  const { lockup } = reverseData(swap);
  if (lockup === undefined) throw new SwapError('invalid', 'no lockup transaction found');
  return { id: lockup.txid, hex: lockup.hex, timeoutBlockHeight: swap.timeoutBlockHeight! };
}
