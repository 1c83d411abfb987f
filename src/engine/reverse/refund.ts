// After the timeout Ferry takes an unclaimed reverse lockup back through the refund leaf (nLockTime = timeout).
// The hold invoice is cancelled only when that refund is in a block; a claim that wins the race instead reveals
// the preimage on chain, and the invoice is settled.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { OutputType, constructRefundTransaction } from 'boltz-core';
import type { SpendEvent } from '../../chains/events.ts';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { swapOutputKey } from '../../keys/index.ts';
import { minerFee } from '../../swaps/amounts.ts';
import { TYPICAL_VSIZE } from '../../swaps/pairs.ts';
import { SwapStatus as S } from '../../swaps/status.ts';
import type { EngineContext } from '../context.ts';
import { bytes, deserializeTree, reverseData } from '../data.ts';

const LOCKED: readonly string[] = [S.TransactionMempool, S.TransactionConfirmed];

export function refundLockup(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  return ctx.swaps.locks.run(effect.swapId, async () => {
    const swap = await ctx.swaps.require(effect.swapId);
    if (!LOCKED.includes(swap.status)) return;
    const data = reverseData(swap);
    const lockup = data.lockup!;
    if (data.preimage !== undefined) {
      // The client handed over the preimage before the timeout: once the held payment settles it has paid, and the
      // lockup is its. Refunding while settling is still possible would take both sides; retried until settled.
      const invoice = await ctx.lightning.lookupInvoice(swap.preimageHash);
      if (invoice?.state === 'ACCEPTED' || invoice?.state === 'SETTLED') {
        throw new Error(`not refunding: the preimage is known and the hold invoice is ${invoice.state}`);
      }
    }
    // Spent already: by the user's claim (the spend handler settles) or by a refund broadcast before a crash.
    if (!(await ctx.chain.isUnspent(lockup.txid, lockup.vout))) return;
    const key = ctx.keys.keyAt(swap.keyIndex!);
    const tree = deserializeTree(data.swapTree);
    const { internalKey } = swapOutputKey(key.publicKey, bytes(data.claimPublicKey), tree);
    const fee = minerFee(await ctx.chain.feeRate(), TYPICAL_VSIZE.claim);
    const transaction = constructRefundTransaction(
      [
        {
          type: OutputType.Taproot,
          transactionId: lockup.txid,
          vout: lockup.vout,
          script: bytes(data.lockupScript),
          amount: BigInt(lockup.value),
          privateKey: key.privateKey,
          swapTree: tree,
          internalKey,
        },
      ],
      await ctx.chain.walletScript(),
      swap.timeoutBlockHeight!,
      BigInt(fee),
      true,
    );
    const txHex = hex.encode(transaction.toBytes(true, true));
    await ctx.chain.broadcast(txHex);
    await ctx.swaps.applyLocked(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: transaction.id, hex: txHex } } });
    ctx.logger.info('reverse lockup refunded', { swap: swap.id, txid: transaction.id });
  });
}

/** A 32-byte witness item hashing to the swap's preimage hash. */
export function preimageInWitness(witness: readonly string[], preimageHash: string): string | undefined {
  return witness.find((item) => item.length === 64 && hex.encode(sha256(hex.decode(item))) === preimageHash);
}

export async function onReverseSpend(ctx: EngineContext, swap: SwapRecord, event: SpendEvent): Promise<void> {
  const preimage = preimageInWitness(event.witness, swap.preimageHash);
  if (preimage !== undefined) {
    ctx.logger.info('reverse lockup claimed on chain', { swap: swap.id, txid: event.txid });
    await ctx.swaps.dispatch(swap.id, { type: 'preimage.learned', data: { preimage } });
    return;
  }
  // No preimage: a key-path claim Ferry co-signed after settling, or Ferry's own refund.
  const data = reverseData(swap);
  if (LOCKED.includes(swap.status) && data.refundRequested === true) {
    await ctx.swaps.dispatch(swap.id, { type: 'refund.broadcast', data: { refundTransaction: { txid: event.txid, hex: event.txHex } } });
  }
  if (event.confirmations > 0) {
    const current = await ctx.swaps.require(swap.id);
    if (current.status === S.TransactionRefunded && reverseData(current).refundTransaction?.txid === event.txid) {
      await ctx.swaps.dispatch(swap.id, { type: 'refund.confirmed' });
    }
  }
}
