// The v2 calls about a chain swap after its creation: the pair list, the answer to a create, its lockups, the
// client's claim (the preimage, and Ferry's co-signature of the client's claim of Ferry's lockup) and the
// cooperative refund of the user's lockup. Signing goes through cosign.ts, as for the other swap types.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import {
  RefundRefusal,
  SwapError,
  noLockup,
  type CreateEvmChainResponse,
  type EvmChainSwapDetailsBody,
  incorrectPreimage,
  invalid,
  notEligibleForClaim,
  notEligibleForRefund,
  type ChainClaimDetailsBody,
  type ChainClaimRequest,
  type ChainPairBody,
  type ChainSwapDetailsBody,
  type ChainTransactionsBody,
  type CreateChainResponse,
  type PairList,
  type PartialSignatureBody,
  type RefundRequest,
} from '@ferry/sdk/protocol/index.js';
import { treeOf } from '@ferry/sdk/chains/backend.js';
import type { ChainSide } from '@ferry/sdk/swaps/chain-machine.js';
import { chainMachine } from '@ferry/sdk/swaps/chain-machine.js';
import { statusesWith } from '@ferry/sdk/swaps/derive.js';
import { pairHash, type PairConfig } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { etaOf } from '../block-time.ts';
import { anyChainOf, chainOf, servesChain, type EngineContext } from '../context.ts';
import { chainData } from '../data.ts';
import { hexBytes } from '../input.ts';
import { coSignClientSpend } from '../legs/cosign.ts';
import type { CooperativeClaims } from '../legs/user-lockup.ts';
import { legContractChain, serverLockupOf, userLockupOf } from '../legs/lockup-leg.ts';
import { chainMinerFees, chainPairOf, type ChainMinerFees, type CreateChainResult } from './chain.ts';
import { limitViolation, reverseOnchainAmount } from '../../swaps/amounts.ts';
import type { SwapRecord } from '../../db/index.ts';

/** Both directions of every configured pair between two chains Ferry serves. */
export async function chainPairs(ctx: EngineContext): Promise<PairList<ChainPairBody>> {
  const out: PairList<ChainPairBody> = {};
  for (const pair of ctx.settings.pairs.values()) {
    if (!servesChain(ctx, pair.base) || !servesChain(ctx, pair.quote) || pair.base === pair.quote) continue;
    for (const [from, to] of [[pair.base, pair.quote], [pair.quote, pair.base]]) {
      (out[from] ??= {})[to] = chainPairBody(pair, await chainMinerFees(ctx, from, to));
    }
  }
  return out;
}

/** One direction of a chain pair as listed, with the hash a creation names it by. */
export function chainPairBody(pair: PairConfig, minerFees: ChainMinerFees): ChainPairBody {
  const rest = {
    rate: pair.rate,
    limits: { maximal: pair.limits.maximal, minimal: pair.limits.minimal, maximalZeroConf: pair.limits.maximalZeroConf },
    fees: { percentage: pair.fees.percentageChain, minerFees },
  };
  return { hash: pairHash(rest), ...rest };
}

function details(side: ChainSide, serverPublicKey: string): ChainSwapDetailsBody | EvmChainSwapDetailsBody {
  if (side.contract !== undefined) {
    // A contract side: the contract, who claims and (Ferry's lock) the refund address the client's claim names.
    const { address, claimAddress, refundAddress } = side.contract;
    return { lockupAddress: address, claimAddress, ...(refundAddress !== undefined && { refundAddress }), timeoutBlockHeight: side.timeoutBlockHeight, amount: side.amount };
  }
  return {
    swapTree: treeOf({ tree: side.swapTree }),
    lockupAddress: side.address,
    serverPublicKey,
    timeoutBlockHeight: side.timeoutBlockHeight,
    amount: side.amount,
    ...(side.blindingKey !== undefined && { blindingKey: side.blindingKey }),
  };
}

/** POST /v2/swap/chain's answer: where the client claims (Ferry's lockup) and where it locks (its own). */
export function chainCreateResponse(ctx: EngineContext, created: CreateChainResult, referralId?: string): CreateChainResponse | CreateEvmChainResponse {
  const { user, server } = created;
  const fromChain = user.contract === undefined ? chainOf(ctx, user.chain) : undefined;
  return {
    id: created.id,
    ...(referralId !== undefined && { referralId }),
    claimDetails: details(server, server.refundPublicKey),
    lockupDetails: {
      ...details(user, user.claimPublicKey),
      // A zero-amount swap (amount 0) takes whatever is locked within limits: there is no amount to ask for.
      ...(fromChain !== undefined && user.amount > 0 && { bip21: fromChain.paymentUri(user.address, user.amount, `Send to ${server.chain}`) }),
    },
  } as CreateChainResponse | CreateEvmChainResponse;
}

/** GET /v2/swap/chain/{id}/transactions: both lockups seen so far, with their timeouts. */
export async function chainTransactions(ctx: EngineContext, id: string): Promise<ChainTransactionsBody> {
  const swap = await ctx.swaps.require(id, SwapType.Chain);
  const data = chainData(swap);
  const body: ChainTransactionsBody = {};
  const timeout = async (side: ChainSide) => {
    const chain = anyChainOf(ctx, side.chain);
    const blocksLeft = side.timeoutBlockHeight - (await chain.height());
    return { blockHeight: side.timeoutBlockHeight, ...(blocksLeft > 0 && { eta: etaOf(chain, blocksLeft) }) };
  };
  if (data.lockup) body.userLock = { transaction: { id: data.lockup.txid, hex: data.lockup.hex }, timeout: await timeout(data.user) };
  if (data.serverLockup) body.serverLock = { transaction: { id: data.serverLockup.txid, hex: data.serverLockup.hex }, timeout: await timeout(data.server) };
  return body;
}

/**
 * Statuses in which the client's preimage is news: Ferry's lockup is out and not yet claimed. Not a failed swap
 * whose lockup is lost: there only the user's claim on chain counts, since a preimage known stops Ferry's refund.
 */
const PREIMAGE_WANTED = statusesWith(chainMachine, 'preimage.learned').filter((status) => status !== S.TransactionFailed);
/** Statuses in which the preimage is known: Ferry co-signs the client's claim of its lockup. */
const CLAIMING = [...statusesWith(chainMachine, 'claim.broadcast'), ...chainMachine.succeeded];
/** Statuses in which the user's refund may be signed; the machine's guard decides whether it is. */
const REFUNDABLE = statusesWith(chainMachine, 'refund.signed');

/** Statuses in which Ferry's claim of the user's lockup may be prepared: its own lockup is out, or it is claiming. */
const CLAIM_DETAILS = [...statusesWith(chainMachine, 'refund.broadcast'), ...statusesWith(chainMachine, 'claim.broadcast')];

/** GET /v2/swap/chain/{id}/claim: Ferry's key-path claim of the user's lockup, for the client to sign. */
export async function chainClaimDetails(ctx: EngineContext, claims: CooperativeClaims, id: string): Promise<ChainClaimDetailsBody> {
  const { pubNonce, publicKey, transactionHash } = await claims.details(id, SwapType.Chain, (swap) => CLAIM_DETAILS.includes(swap.status));
  return { pubNonce, publicKey, transactionHash };
}

/**
 * POST /v2/swap/chain/{id}/claim, in this order: the preimage (which moves the swap to Ferry's claim of the user's
 * lockup), the client's partial signature of Ferry's claim from GET (Ferry broadcasts it), and Ferry's partial
 * signature for the client's key-path claim of Ferry's lockup, given only once the preimage is known.
 */
export async function chainClaim(
  ctx: EngineContext,
  claims: CooperativeClaims,
  id: string,
  request: ChainClaimRequest,
): Promise<PartialSignatureBody | Record<string, never>> {
  if (request.preimage !== undefined) {
    await ctx.locks.run(id, async () => {
      const swap = await ctx.swaps.require(id, SwapType.Chain);
      const preimage = hexBytes(request.preimage, 'preimage');
      if (preimage.length !== 32 || hex.encode(sha256(preimage)) !== swap.preimageHash) throw incorrectPreimage();
      if (PREIMAGE_WANTED.includes(swap.status) && chainData(swap).preimage === undefined) {
        await ctx.swaps.applyLocked(id, { type: 'preimage.learned', data: { preimage: hex.encode(preimage) } });
      }
    });
  }
  if (request.signature !== undefined) await claims.sign(id, request.signature, SwapType.Chain);
  if (request.toSign === undefined) return {};
  const toSign = request.toSign;
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Chain);
    if (chainData(swap).preimage === undefined || !CLAIMING.includes(swap.status)) throw notEligibleForClaim();
    return coSignClientSpend(ctx, serverLockupOf(swap), toSign, { recordedLockupOnly: true });
  });
}

/** Statuses in which a new server amount may be quoted: the user's lockup was refused for its amount. */
const QUOTABLE = statusesWith(chainMachine, 'quote.accepted');

/** The server amount Ferry would lock now for the user's refused lockup; a 400 when none can be offered. */
async function currentQuote(ctx: EngineContext, swap: SwapRecord): Promise<number> {
  const data = chainData(swap);
  if (!QUOTABLE.includes(swap.status) || data.lockup === undefined || data.refundSigned === true) throw invalid('no quote is available for this swap');
  if (data.failureReason !== undefined && !/^locked \d+ is (less|more) than expected/.test(data.failureReason)) {
    throw invalid('no quote is available for this swap');
  }
  const pair = chainPairOf(ctx, data.user.chain, data.server.chain);
  const violation = limitViolation(data.lockup.value, pair.limits);
  if (violation !== undefined) throw invalid(`no quote is available for this swap: ${violation}`);
  const fees = await chainMinerFees(ctx, data.user.chain, data.server.chain);
  const amount = reverseOnchainAmount(data.lockup.value, pair.rate, pair.fees.percentageChain, fees.server);
  if (amount <= fees.user.claim) throw invalid('no quote is available for this swap: the amount is too low');
  return amount;
}

/** GET /v2/swap/chain/{id}/quote: what Ferry would lock for the amount the user locked instead. */
export async function chainQuote(ctx: EngineContext, id: string): Promise<{ amount: number }> {
  return { amount: await currentQuote(ctx, await ctx.swaps.require(id, SwapType.Chain)) };
}

/** POST /v2/swap/chain/{id}/quote: the client accepts the quote; Ferry locks that amount once the lockup is confirmed. */
export function acceptChainQuote(ctx: EngineContext, id: string, amount: number): Promise<Record<string, never>> {
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Chain);
    const quote = await currentQuote(ctx, swap);
    if (amount !== quote) throw invalid(`invalid quote amount: ${amount} (the quote is ${quote})`);
    if (chainData(swap).lockup?.confirmed !== true) throw invalid('the lockup is not confirmed yet: accept the quote once it is');
    const result = await ctx.swaps.applyLocked(id, { type: 'quote.accepted', data: { quotedAmount: quote } });
    if (!result.applied) throw invalid('no quote is available for this swap');
    ctx.logger.info('chain swap quote accepted', { swap: id, amount: quote });
    return {};
  });
}

/** POST /v2/swap/chain/{id}/refund: co-sign the user's refund of its lockup, only while nothing of Ferry's can be claimed. */
export function chainRefund(ctx: EngineContext, id: string, request: RefundRequest): Promise<PartialSignatureBody> {
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Chain);
    if (userLockupOf(swap).contract !== undefined) throw new SwapError('invalid', 'swap not eligible for a cooperative refund: an EVM lockup is refunded with the signature of GET /v2/swap/chain/{id}/refund');
    if (!REFUNDABLE.includes(swap.status)) throw notEligibleForRefund(RefundRefusal.status);
    const signed = await coSignClientSpend(ctx, userLockupOf(swap), request, {
      recordedLockupOnly: false,
      beforeSigning: async () => {
        const recorded = await ctx.swaps.applyLocked(id, { type: 'refund.signed' });
        if (!recorded.applied) throw notEligibleForRefund(RefundRefusal.status);
      },
    });
    ctx.logger.info('signed a cooperative refund of a chain swap', { swap: id, status: swap.status });
    return signed;
  });
}

/**
 * GET /v2/swap/chain/{id or preimage hash}/refund: Ferry's EIP-712 signature letting the client `refundCooperative` its lock on a
 * contract chain before the timelock. The same rule as the MuSig2 refund: refund.signed is recorded first, and the
 * machine takes it only while nothing of Ferry's can be claimed any more (never locked, or its refund in a block),
 * so no swap has both a refund signature out and a claimable lockup of Ferry's.
 */
export async function chainRefundSignature(ctx: EngineContext, idOrPreimageHash: string): Promise<{ signature: string }> {
  // A preimage hash names its swap (the reference takes either): a lock found in the contract's logs knows no id.
  const byHash = /^[0-9a-f]{64}$/.test(idOrPreimageHash) ? await ctx.storage.swaps.getByPreimageHash(idOrPreimageHash) : undefined;
  const id = byHash?.id ?? idOrPreimageHash;
  return ctx.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Chain);
    const leg = userLockupOf(swap);
    if (leg.contract === undefined) throw new SwapError('invalid', 'swap not eligible for a cooperative refund: not an EVM lockup (POST the refund transaction instead)');
    if (!REFUNDABLE.includes(swap.status)) throw notEligibleForRefund(RefundRefusal.status);
    const values = leg.lockup?.contract;
    if (values === undefined) throw noLockup();
    if (values.claimAddress.toLowerCase() !== leg.contract.claimAddress.toLowerCase()) throw notEligibleForRefund('the lockup does not name Ferry as claim address');
    const recorded = await ctx.swaps.applyLocked(id, { type: 'refund.signed' });
    if (!recorded.applied) throw notEligibleForRefund(RefundRefusal.status);
    const signature = await legContractChain(ctx, leg).signCooperativeRefund(values);
    ctx.logger.info('signed a cooperative EVM refund of a chain swap', { swap: id, status: swap.status });
    return { signature };
  });
}
