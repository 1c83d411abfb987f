// Cooperative (key path) refund of a failed submarine swap. The order matters for safety: eligibility is checked
// (status, then the Lightning node's record of a payment), "refund signed" is committed, and only then is the
// partial signature made. Because payment.start refuses once refundSigned is set and refund.signed exists only
// in failed statuses, the invoice of a swap with a signed refund is never paid.
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { InvalidNonce, checkPublicNonce, signForClient } from '../../keys/index.ts';
import { REFUNDABLE_STATUSES, SwapType } from '../../swaps/status.ts';
import { parseClientTransaction } from '../chain-tools.ts';
import type { EngineContext } from '../context.ts';
import { bytes, deserializeTree, submarineData } from '../data.ts';
import { RefundRefusal, invalidParameter, notEligibleForRefund } from '../errors.ts';
import { hexBytes } from '../input.ts';
import { SwapError, type PartialSignatureBody } from '../service.ts';

export function submarineRefund(
  ctx: EngineContext,
  id: string,
  request: { pubNonce: string; transaction: string; index: number },
): Promise<PartialSignatureBody> {
  return ctx.swaps.locks.run(id, async () => {
    const swap = await ctx.swaps.require(id, SwapType.Submarine);
    if (!REFUNDABLE_STATUSES.includes(swap.status as never)) throw notEligibleForRefund(RefundRefusal.status);
    const payment = await ctx.lightning.lookupPayment(swap.preimageHash);
    if (payment !== undefined && payment.status !== 'FAILED') throw notEligibleForRefund(RefundRefusal.paymentPending);

    const clientNonce = hexBytes(request.pubNonce, 'pubNonce');
    // Checked before "refund signed" is committed, so a request that can get no signature records none.
    try {
      checkPublicNonce(clientNonce);
    } catch {
      throw invalidParameter('pubNonce');
    }
    const transaction = parseClientTransaction(hex.encode(hexBytes(request.transaction, 'transaction')));
    if (!Number.isSafeInteger(request.index) || request.index < 0 || request.index >= transaction.inputsLength) {
      throw invalidParameter('index');
    }
    const data = submarineData(swap);
    let prevouts;
    try {
      prevouts = await ctx.chain.prevouts(transaction);
    } catch {
      throw new SwapError(400, 'could not find the outputs the transaction spends');
    }
    if (hex.encode(prevouts.scripts[request.index]) !== data.lockupScript) {
      throw new SwapError(400, 'the input to sign does not spend the lockup of this swap');
    }
    const sighash = transaction.preimageWitnessV1(request.index, prevouts.scripts, SigHash.DEFAULT, prevouts.amounts);

    const recorded = await ctx.swaps.applyLocked(id, { type: 'refund.signed' });
    if (!recorded.applied) throw notEligibleForRefund(RefundRefusal.status);

    const key = ctx.keys.keyAt(swap.keyIndex!);
    try {
      const signed = signForClient(
        key.privateKey,
        [key.publicKey, bytes(data.refundPublicKey)],
        deserializeTree(data.swapTree),
        sighash,
        clientNonce,
      );
      ctx.logger.info('signed a cooperative refund', { swap: id, status: swap.status });
      return { pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) };
    } catch (error) {
      if (error instanceof InvalidNonce) throw invalidParameter('pubNonce');
      throw error;
    }
  });
}
