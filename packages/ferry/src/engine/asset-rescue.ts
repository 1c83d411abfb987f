// Asset rescue (POST /v2/asset/{currency}/rescue/setup and .../broadcast): a client that sent another Liquid asset
// than L-BTC to its submarine or chain swap's lockup address cannot refund it, having no L-BTC in it for the fee.
// Ferry drafts a transaction that pays the whole asset to the client's destination, with one L-BTC coin of the
// operator wallet for the fee (chains/liquid/asset-rescue.ts), and opens a MuSig2 session over the lockup input
// (kept as the cooperative claim's are: signing-sessions.ts); with the client's nonce and partial signature it
// aggregates, has the wallet sign its coin and broadcasts. Only a Taproot lockup of a swap that failed or expired
// (the reference's eligibility) is rescued; the lockup must pay the swap's own script.
import { hex } from '@scure/base';
import { TransactionRejected } from '@ferry/sdk/chains/backend.js';
import { AssetRescueError } from '@ferry/sdk/chains/liquid/asset-rescue.js';
import { InvalidNonce, InvalidPartialSignature } from '@ferry/sdk/keys/index.js';
import {
  invalid,
  invalidParameter,
  invalidPartialSignature,
  noAssetRescuePending,
  notEligibleForAssetRescue,
  type AssetRescueBroadcastBody,
  type AssetRescueBroadcastRequest,
  type AssetRescueSetupBody,
  type AssetRescueSetupRequest,
} from '@ferry/sdk/protocol/index.js';
import { LiquidBackend } from '../chains/liquid/backend.ts';
import type { EngineContext } from './context.ts';
import { hexBytes } from './input.ts';
import { legChain, signerOf, userLockupOf } from './legs/lockup-leg.ts';

const RESCUE_SESSION = 'asset-rescue';
const ELIGIBLE = ['transaction.lockupFailed', 'swap.expired'];

/** The swap's lockup leg on `currency` and its Liquid backend, when the swap may be rescued. */
async function rescuable(ctx: EngineContext, currency: string, swapId: string) {
  const swap = await ctx.swaps.require(swapId);
  if (swap.type === 'reverse') throw notEligibleForAssetRescue();
  const leg = userLockupOf(swap);
  if (leg.chain !== currency || leg.contract !== undefined) throw notEligibleForAssetRescue();
  if (leg.legacy !== undefined) throw invalid('legacy swaps do not support asset rescue');
  if (!ELIGIBLE.includes(swap.status)) throw notEligibleForAssetRescue();
  const chain = legChain(ctx, leg);
  if (!(chain instanceof LiquidBackend)) throw notEligibleForAssetRescue();
  return { leg, chain, signer: signerOf(ctx, leg) };
}

function refusal(error: unknown): unknown {
  if (error instanceof AssetRescueError) return invalid(error.message);
  if (error instanceof InvalidPartialSignature) return invalidPartialSignature();
  if (error instanceof InvalidNonce) return invalidParameter('pubNonce');
  if (error instanceof TransactionRejected) return invalid(`could not broadcast the rescue: ${error.message}`);
  return error;
}

export function assetRescueSetup(ctx: EngineContext, currency: string, request: AssetRescueSetupRequest): Promise<AssetRescueSetupBody> {
  return ctx.locks.run(request.swapId, async () => {
    const { leg, chain, signer } = await rescuable(ctx, currency, request.swapId);
    try {
      const draft = await chain.assetRescue.draft({ txid: request.transactionId, vout: request.vout }, request.destination, leg.script);
      const session = await ctx.sessions.open(request.swapId, RESCUE_SESSION, chain, signer, draft.sighash, draft.unsignedHex);
      ctx.logger.info('asset rescue set up', { swap: request.swapId, lockup: `${request.transactionId}:${request.vout}`, asset: draft.asset, amount: Number(draft.amount), fee: Number(draft.fee) });
      return {
        musig: { serverPublicKey: hex.encode(signer.servicePublicKey), pubNonce: hex.encode(session.pubNonce), message: hex.encode(draft.sighash) },
        transaction: draft.unsignedHex,
      };
    } catch (error) {
      throw refusal(error);
    }
  });
}

export function assetRescueBroadcast(ctx: EngineContext, currency: string, request: AssetRescueBroadcastRequest): Promise<AssetRescueBroadcastBody> {
  return ctx.locks.run(request.swapId, async () => {
    const { chain, signer } = await rescuable(ctx, currency, request.swapId);
    const clientNonce = hexBytes(request.pubNonce, 'pubNonce');
    const clientPartial = hexBytes(request.partialSignature, 'partialSignature');
    const open = await ctx.sessions.find(request.swapId, RESCUE_SESSION, chain, signer);
    if (open === undefined) throw noAssetRescuePending();
    try {
      open.session.verify(clientNonce, clientPartial);
      // Only one caller, on any instance, signs with this nonce; the next rescue needs a new setup.
      if (!(await ctx.sessions.claimForSigning(open.record))) throw noAssetRescuePending();
      const signature = open.session.complete(clientNonce, clientPartial);
      const transactionId = await chain.assetRescue.broadcast(open.record.transactionHex, signature);
      ctx.logger.info('asset rescue broadcast', { swap: request.swapId, txid: transactionId });
      return { transactionId };
    } catch (error) {
      throw refusal(error);
    }
  });
}
