// Claiming a paid submarine swap's lockup: cooperatively with the client's MuSig2 partial signature (key path),
// or, when the client stays silent for claimDelayMs, alone through the claim leaf with the preimage.
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction } from 'boltz-core';
import { RpcError } from '../../chains/bitcoin-rpc.ts';
import type { EffectRecord, SwapRecord } from '../../db/index.ts';
import { InvalidNonce, InvalidPartialSignature, KeyPathSession, swapOutputKey } from '../../keys/index.ts';
import { minerFee } from '../../swaps/amounts.ts';
import { TYPICAL_VSIZE } from '../../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '../../swaps/status.ts';
import type { EngineContext } from '../context.ts';
import { bytes, deserializeTree, submarineData } from '../data.ts';
import { Defer } from '../effects.ts';
import { invalidParameter, invalidPartialSignature, notEligibleForClaim } from '../errors.ts';
import { hexBytes } from '../input.ts';
import { SwapError, type PartialSignatureBody } from '../service.ts';

/** The cooperative claim being negotiated with a client: our nonce and the unsigned transaction it signs. */
interface ClaimNegotiation {
  session: KeyPathSession;
  transaction: ReturnType<typeof constructClaimTransaction>;
}

export class SubmarineClaims {
  private readonly negotiations = new Map<string, ClaimNegotiation>();

  constructor(private readonly ctx: EngineContext) {}

  /** GET /swap/submarine/{id}/claim: the same nonce and transaction until they are used. */
  details(id: string): Promise<{ preimage: string; pubNonce: string; publicKey: string; transactionHash: string }> {
    return this.ctx.swaps.locks.run(id, async () => {
      const swap = await this.ctx.swaps.require(id, SwapType.Submarine);
      if (swap.status !== S.TransactionClaimPending) throw notEligibleForClaim();
      const data = submarineData(swap);
      let negotiation = this.negotiations.get(id);
      if (negotiation === undefined || negotiation.session.consumed) {
        negotiation = await this.negotiate(swap);
        this.negotiations.set(id, negotiation);
      }
      return {
        preimage: data.preimage!,
        pubNonce: hex.encode(negotiation.session.pubNonce),
        publicKey: data.claimPublicKey,
        transactionHash: hex.encode(negotiation.session.message),
      };
    });
  }

  /** POST /swap/submarine/{id}/claim: verify the client's partial signature, aggregate, broadcast. */
  sign(id: string, body: PartialSignatureBody): Promise<Record<string, never>> {
    return this.ctx.swaps.locks.run(id, async () => {
      const swap = await this.ctx.swaps.require(id, SwapType.Submarine);
      if (swap.status !== S.TransactionClaimPending) throw notEligibleForClaim();
      const negotiation = this.negotiations.get(id);
      if (negotiation === undefined || negotiation.session.consumed) {
        throw new SwapError(400, 'no claim details were requested for this swap');
      }
      const clientNonce = hexBytes(body.pubNonce, 'pubNonce');
      const clientPartial = hexBytes(body.partialSignature, 'partialSignature');
      let signature: Uint8Array;
      try {
        signature = negotiation.session.complete(clientNonce, clientPartial);
      } catch (error) {
        if (error instanceof InvalidPartialSignature) throw invalidPartialSignature();
        if (error instanceof InvalidNonce) throw invalidParameter('pubNonce');
        throw error;
      }
      this.negotiations.delete(id);
      const { transaction } = negotiation;
      transaction.updateInput(0, { finalScriptWitness: [signature] }, true);
      const txHex = hex.encode(transaction.toBytes(true, true));
      try {
        await this.ctx.chain.broadcast(txHex);
      } catch (error) {
        // The node refused the claim (e.g. the lockup is spent already): the swap stays claim.pending, new claim
        // details can be requested, and Ferry's own script-path claim still follows after the delay.
        if (error instanceof RpcError) throw new SwapError(400, `could not broadcast the claim: ${error.message}`);
        throw error;
      }
      await this.ctx.swaps.applyLocked(id, {
        type: 'claim.broadcast',
        data: { claimTransaction: { txid: transaction.id, hex: txHex } },
      });
      this.ctx.logger.info('submarine swap claimed cooperatively', { swap: id, txid: transaction.id });
      return {};
    });
  }

  forget(id: string): void {
    this.negotiations.delete(id);
  }

  private async negotiate(swap: SwapRecord): Promise<ClaimNegotiation> {
    const data = submarineData(swap);
    const lockup = data.lockup!;
    const key = this.ctx.keys.keyAt(swap.keyIndex!);
    const tree = deserializeTree(data.swapTree);
    const script = bytes(data.lockupScript);
    const fee = minerFee(await this.ctx.chain.feeRate(), TYPICAL_VSIZE.reverseClaim);
    const transaction = constructClaimTransaction(
      [
        {
          type: OutputType.Taproot,
          cooperative: true,
          transactionId: lockup.txid,
          vout: lockup.vout,
          script,
          amount: BigInt(lockup.value),
          privateKey: key.privateKey,
          preimage: new Uint8Array(32),
        },
      ],
      await this.ctx.chain.walletScript(),
      BigInt(fee),
    );
    const sighash = transaction.preimageWitnessV1(0, [script], SigHash.DEFAULT, [BigInt(lockup.value)]);
    const session = new KeyPathSession(key.privateKey, [key.publicKey, bytes(data.refundPublicKey)], tree, sighash);
    return { session, transaction };
  }
}

/**
 * claimWhenSilent: once the cooperative window is over, claim through the script path. If the lockup is already
 * spent (a cooperative claim broadcast just before a crash), that spend is the claim.
 */
export async function claimWhenSilent(ctx: EngineContext, effect: EffectRecord): Promise<void> {
  const first = await ctx.swaps.require(effect.swapId);
  if (first.status !== S.TransactionClaimPending) return;
  const due = (submarineData(first).claimPendingSince ?? 0) + ctx.settings.claimDelayMs;
  if (Date.now() < due) throw new Defer(due);
  await ctx.swaps.locks.run(first.id, async () => {
    const swap = await ctx.swaps.require(first.id);
    if (swap.status !== S.TransactionClaimPending) return;
    const data = submarineData(swap);
    const lockup = data.lockup!;
    if (!(await ctx.chain.isUnspent(lockup.txid, lockup.vout))) {
      // A lockup the node no longer knows was double-spent or reorganised away: nothing to claim, try later.
      if (!(await ctx.chain.isKnown(lockup.txid))) throw new Error(`lockup ${lockup.txid} is unknown to the node`);
      await ctx.swaps.applyLocked(swap.id, { type: 'lockup.spent' });
      return;
    }
    const key = ctx.keys.keyAt(swap.keyIndex!);
    const tree = deserializeTree(data.swapTree);
    const { internalKey } = swapOutputKey(key.publicKey, bytes(data.refundPublicKey), tree);
    const fee = minerFee(await ctx.chain.feeRate(), TYPICAL_VSIZE.claim);
    const transaction = constructClaimTransaction(
      [
        {
          type: OutputType.Taproot,
          transactionId: lockup.txid,
          vout: lockup.vout,
          script: bytes(data.lockupScript),
          amount: BigInt(lockup.value),
          privateKey: key.privateKey,
          preimage: bytes(data.preimage!),
          swapTree: tree,
          internalKey,
        },
      ],
      await ctx.chain.walletScript(),
      BigInt(fee),
    );
    const txHex = hex.encode(transaction.toBytes(true, true));
    await ctx.chain.broadcast(txHex);
    await ctx.swaps.applyLocked(swap.id, { type: 'claim.broadcast', data: { claimTransaction: { txid: transaction.id, hex: txHex } } });
    ctx.logger.info('submarine swap claimed through the script path', { swap: swap.id, txid: transaction.id });
  });
}
