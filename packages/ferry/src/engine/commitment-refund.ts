// The cooperative refund of a commitment lockup no swap took (POST /v2/commitment/{currency}/refund): the user
// proves the refund address is theirs by signing the reference's authorization text (EIP-191), and Ferry answers
// its EIP-712 Refund signature of the lockup's values (preimage hash bytes32(0)) for `refundCooperative`. The
// lockup is marked refunded first, under its commitment's lock, so it can never be committed to a swap afterwards;
// a lockup already committed is refunded through its swap (GET /v2/swap/submarine/{id}/refund) instead.
import { verifyMessage } from 'ethers';
import { notEligibleForRefund, type CommitmentRefundRequest } from '@ferry/sdk/protocol/index.js';
import type { EngineContext } from './context.ts';
import { COMMITMENT_HASH, commitmentChain, commitmentKey, findLockup } from './commitments.ts';

/** What the kv keeps for a commitment lockup refunded cooperatively. */
export const REFUNDED = 'refunded';

/** The text the refund address signs (EIP-191 `personal_sign`), as the reference words it. */
export const commitmentRefundMessage = (currency: string, transactionHash: string, logIndex?: number): string =>
  ['Boltz commitment refund authorization', `chain: ${currency}`, `transactionHash: ${transactionHash}`, `logIndex: ${logIndex ?? 'none'}`].join('\n');

export async function refundCommitment(ctx: EngineContext, currency: string, request: CommitmentRefundRequest): Promise<{ signature: string }> {
  const chain = commitmentChain(ctx, currency);
  const lockup = await findLockup(chain, request.transactionHash, request.logIndex);
  if (lockup.refusal !== undefined) throw notEligibleForRefund(lockup.refusal);
  if (lockup.claimAddress.toLowerCase() !== chain.serviceAddress.toLowerCase()) throw notEligibleForRefund('claim address mismatch');
  if (lockup.preimageHash !== COMMITMENT_HASH) throw notEligibleForRefund('commitment preimage hash has to be all zeros');
  let signer: string;
  try {
    signer = verifyMessage(commitmentRefundMessage(currency, request.transactionHash, request.logIndex), request.refundAddressSignature);
  } catch {
    throw notEligibleForRefund('invalid refund address signature');
  }
  if (signer.toLowerCase() !== lockup.refundAddress.toLowerCase()) throw notEligibleForRefund('refund address signature mismatch');
  const values = { preimageHash: COMMITMENT_HASH, amount: lockup.amount, claimAddress: lockup.claimAddress, refundAddress: lockup.refundAddress, timelock: lockup.timelock };
  const key = commitmentKey(currency, lockup);
  return ctx.locks.run(key, async () => {
    const taken = await ctx.storage.kv.get(key);
    if (taken !== undefined && taken !== REFUNDED) throw notEligibleForRefund(`the commitment is linked to swap ${taken}: refund it through the swap`);
    if (!(await chain.isLocked(values))) throw notEligibleForRefund('the commitment is not locked in the contract');
    await ctx.storage.kv.set(key, REFUNDED);
    ctx.logger.info('signed the cooperative refund of a commitment lockup', { chain: currency, txHash: lockup.txHash, logIndex: lockup.logIndex });
    return { signature: await chain.signCooperativeRefund(values) };
  });
}
