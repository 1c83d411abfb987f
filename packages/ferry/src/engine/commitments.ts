// Commitment swaps on a contract chain (EtherSwap version 6): the user locks first, with preimage hash bytes32(0)
// and any amount, and commits that lockup to a submarine swap afterwards with an EIP-712 Commit signature of the
// swap's preimage hash and the lockup's values. Ferry finds the lockup in its transaction, checks it (its claim
// address, a timelock that outlasts the swap's, the amount against the swap's) and the signature (the contract's own
// checkCommitmentSignature); the lockup then becomes the swap's user lockup, judged and paid like a Lockup event of
// the swap's hash, and Ferry's claim goes through the signature. Anything refused leaves the lockup untouched: the
// user refunds it after its timelock. A lockup commits to one swap only, kept by its transaction and log index.
import { Signature } from 'ethers';
import type { ContractChain, ContractLockupEvent, ContractLockupValues } from '@ferry/sdk/chains/contract-chain.js';
import { invalid, swapNotFound, type CommitmentLockupDetailsBody, type CommitmentRequest } from '@ferry/sdk/protocol/index.js';
import { SwapStatus, SwapType } from '@ferry/sdk/swaps/status.js';
import type { EngineContext } from './context.ts';
import { userLockupOf } from './legs/lockup-leg.ts';
import { onUserContractLockup } from './legs/user-lockup.ts';

/** What a commitment lockup names as preimage hash. */
export const COMMITMENT_HASH = '0'.repeat(64);

/** Where the commitment a swap took is kept: a second lockup committed to it would pay one invoice twice over. */
const swapKey = (id: string) => `commitment-swap:${id}`;

/** Where a lockup's commitment is kept: the swap it committed to, or `refunded` (commitment-refund.ts). */
export const commitmentKey = (currency: string, lockup: ContractLockupEvent) => `commitment:${currency}:${lockup.txHash.toLowerCase()}:${lockup.logIndex}`;

export type CommitmentChain = ContractChain & Required<Pick<ContractChain, 'lockupsIn' | 'checkCommitmentSignature'>>;

export function commitmentChain(ctx: EngineContext, currency: string): CommitmentChain {
  const chain = ctx.contracts.get(currency);
  if (chain?.lockupsIn === undefined || chain.checkCommitmentSignature === undefined) throw invalid('currency does not support commitment swaps');
  return chain as CommitmentChain;
}

/** GET /v2/commitment/{currency}/details: the timelock lies `commitmentTimelockMinutes` of blocks ahead. */
export async function commitmentDetails(ctx: EngineContext, currency: string): Promise<CommitmentLockupDetailsBody> {
  const chain = commitmentChain(ctx, currency);
  const height = await chain.height();
  return {
    contract: chain.contractAddress,
    claimAddress: chain.serviceAddress,
    timelock: height + Math.ceil((ctx.settings.commitmentTimelockMinutes * 60) / chain.blockSeconds),
  };
}

/** The one lockup of the transaction (or the one at `logIndex`). */
export async function findLockup(chain: CommitmentChain, transactionHash: string, logIndex: number | undefined): Promise<ContractLockupEvent> {
  const lockups = await chain.lockupsIn(transactionHash);
  if (lockups === undefined) throw invalid('transaction not found');
  const candidates = logIndex === undefined ? lockups : lockups.filter((lockup) => lockup.logIndex === logIndex);
  if (candidates.length === 0) throw invalid('lockup event not found');
  if (candidates.length > 1) throw invalid('multiple lockup events found; logIndex has to be specified');
  return candidates[0];
}

/** The refusal of a locked amount (API units) for a swap that expects `expected`, if any. */
function amountRefusal(ctx: EngineContext, chain: ContractChain, lockup: ContractLockupEvent, expected: number, maxOverpaymentPercentage?: number): string | undefined {
  const value = chain.toApiUnits(BigInt(lockup.amount));
  if (value === undefined) return `locked ${lockup.amount} is not a whole number of 10^-8 ${chain.symbol}`;
  if (value < expected) return `insufficient amount: ${value} < ${expected}`;
  // The client may only narrow Ferry's tolerance: a lockup above it would be refused once recorded.
  const percent = Math.min(maxOverpaymentPercentage ?? Infinity, ctx.settings.overpaymentTolerancePercent);
  if (value > expected + Math.floor((expected * percent) / 100)) return `overpaid amount: ${value} > ${expected}`;
  return undefined;
}

/** POST /v2/commitment/{currency}: checks the commitment, records it, and hands the lockup to the swap's leg. */
export async function commit(ctx: EngineContext, currency: string, request: CommitmentRequest): Promise<Record<string, never>> {
  const chain = commitmentChain(ctx, currency);
  const lockup = await findLockup(chain, request.transactionHash, request.logIndex);
  if (lockup.refusal !== undefined) throw invalid(lockup.refusal);
  if (lockup.claimAddress.toLowerCase() !== chain.serviceAddress.toLowerCase()) {
    throw invalid(`claim address mismatch: ${lockup.claimAddress} !== ${chain.serviceAddress}`);
  }
  if (lockup.preimageHash !== COMMITMENT_HASH) throw invalid('commitment preimage hash has to be all zeros');
  let signature: string;
  try {
    signature = Signature.from(request.signature).serialized;
  } catch (error) {
    throw invalid(`invalid signature: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lockupValues: ContractLockupValues = {
    preimageHash: COMMITMENT_HASH,
    amount: lockup.amount,
    claimAddress: lockup.claimAddress,
    refundAddress: lockup.refundAddress,
    timelock: lockup.timelock,
  };

  const key = commitmentKey(currency, lockup);
  const committed = await ctx.locks.run(key, async () => {
    if ((await ctx.storage.kv.get(key)) !== undefined) throw invalid('commitment exists already');
    const swap = await ctx.locks.run(request.swapId, async () => {
      const found = await ctx.swaps.get(request.swapId);
      if (found === undefined) throw swapNotFound(request.swapId);
      if (found.type !== SwapType.Submarine) throw invalid('only submarine swaps take commitments');
      const leg = userLockupOf(found);
      if (leg.chain !== currency || leg.contract === undefined) throw invalid(`swap ${found.id} is not locked on ${currency}`);
      if (leg.expectedAmount === undefined) throw invalid('swap amount not found');
      if (found.status !== SwapStatus.InvoiceSet || leg.lockup !== undefined) throw invalid(`swap ${found.id} takes no lockup in status ${found.status}`);
      if ((await ctx.storage.kv.get(swapKey(found.id))) !== undefined) throw invalid(`swap ${found.id} has a commitment already`);
      if (lockup.timelock < leg.timeoutBlockHeight) throw invalid('commitment timelock expires before swap timeout');
      const refusal = amountRefusal(ctx, chain, lockup, leg.expectedAmount, request.maxOverpaymentPercentage);
      if (refusal !== undefined) throw invalid(refusal);
      // Claimed or refunded meanwhile, there is nothing left to commit.
      if (!(await chain.isLocked(lockupValues))) throw invalid('commitment lockup is not locked in the contract');
      const committedValues = { ...lockupValues, preimageHash: found.preimageHash, commitment: signature };
      if (!(await chain.checkCommitmentSignature(committedValues))) throw invalid('invalid signature');
      await ctx.storage.kv.set(key, found.id);
      await ctx.storage.kv.set(swapKey(found.id), key);
      return found;
    });
    ctx.logger.info('commitment lockup committed to a swap', { swap: swap.id, chain: currency, txHash: lockup.txHash, logIndex: lockup.logIndex });
    return swap;
  });
  // Judged as the swap's own lockup from here: under the swap's lock, outside the commitment's.
  await onUserContractLockup(ctx, committed, { ...lockup, preimageHash: committed.preimageHash, commitment: signature });
  return {};
}
