// POST /swap/reverse/{id}/claim: the user hands over the preimage; Ferry settles the hold invoice first and,
// if asked, then co-signs the user's key-path claim of the lockup. It never co-signs before it is paid.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { InvalidNonce, signForClient } from '../../keys/index.ts';
import { SwapStatus as S, SwapType } from '../../swaps/status.ts';
import { parseClientTransaction } from '../chain-tools.ts';
import type { EngineContext } from '../context.ts';
import { bytes, deserializeTree, reverseData } from '../data.ts';
import { incorrectPreimage, invalidParameter, notEligibleForClaim, undefinedParameter } from '../errors.ts';
import { hexBytes } from '../input.ts';
import { SwapError, type PartialSignatureBody } from '../service.ts';

const CLAIMABLE: readonly string[] = [S.TransactionMempool, S.TransactionConfirmed, S.InvoiceSettled];

export async function reverseClaim(
  ctx: EngineContext,
  id: string,
  request: { preimage: string; pubNonce?: string; transaction?: string; index?: number },
): Promise<PartialSignatureBody | Record<string, never>> {
  const swap = await ctx.swaps.require(id, SwapType.Reverse);
  const preimage = hexBytes(request.preimage, 'preimage');
  if (preimage.length !== 32 || hex.encode(sha256(preimage)) !== swap.preimageHash) throw incorrectPreimage();
  const given = (['pubNonce', 'transaction', 'index'] as const).filter((name) => request[name] !== undefined);
  if (given.length !== 0 && given.length !== 3) {
    throw undefinedParameter(['pubNonce', 'transaction', 'index'].find((name) => !given.includes(name as never))!);
  }
  await ctx.swaps.locks.run(id, async () => {
    const current = await ctx.swaps.require(id);
    // After Ferry decided to refund, handing over the preimage no longer buys the coins (one handed over before
    // still does: the refund waits for its settlement).
    const data = reverseData(current);
    if (!CLAIMABLE.includes(current.status) || (data.refundRequested === true && data.preimage === undefined)) throw notEligibleForClaim();
    if (current.status !== S.InvoiceSettled) {
      await ctx.swaps.applyLocked(id, { type: 'preimage.learned', data: { preimage: hex.encode(preimage) } });
    }
  });
  await ctx.effects.whenIdle(id);
  const settled = await ctx.swaps.require(id);
  if (settled.status !== S.InvoiceSettled) throw new SwapError(400, 'the invoice of this swap could not be settled yet');
  if (given.length === 0) return {};

  const clientNonce = hexBytes(request.pubNonce, 'pubNonce');
  const transaction = parseClientTransaction(hex.encode(hexBytes(request.transaction, 'transaction')));
  const index = request.index!;
  if (!Number.isSafeInteger(index) || index < 0 || index >= transaction.inputsLength) throw invalidParameter('index');
  const data = reverseData(settled);
  const input = transaction.getInput(index);
  if (data.lockup === undefined || hex.encode(input.txid!) !== data.lockup.txid || input.index !== data.lockup.vout) {
    throw new SwapError(400, 'the input to sign does not spend the lockup of this swap');
  }
  let prevouts;
  try {
    prevouts = await ctx.chain.prevouts(transaction);
  } catch {
    throw new SwapError(400, 'could not find the outputs the transaction spends');
  }
  const sighash = transaction.preimageWitnessV1(index, prevouts.scripts, SigHash.DEFAULT, prevouts.amounts);
  const key = ctx.keys.keyAt(settled.keyIndex!);
  try {
    const signed = signForClient(key.privateKey, [key.publicKey, bytes(data.claimPublicKey)], deserializeTree(data.swapTree), sighash, clientNonce);
    return { pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) };
  } catch (error) {
    if (error instanceof InvalidNonce) throw invalidParameter('pubNonce');
    throw error;
  }
}

export async function reverseLockupTransaction(
  ctx: EngineContext,
  id: string,
): Promise<{ id: string; hex: string; timeoutBlockHeight: number }> {
  const swap = await ctx.swaps.require(id, SwapType.Reverse);
  const { lockup } = reverseData(swap);
  if (lockup === undefined) throw new SwapError(400, 'no lockup transaction found');
  return { id: lockup.txid, hex: lockup.hex, timeoutBlockHeight: swap.timeoutBlockHeight! };
}
