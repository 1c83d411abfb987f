// Claim covenants on reverse swaps to L-BTC (`claimCovenant: true` with `address`, as the reference's POST
// /v2/swap/reverse): the lockup's tree gets boltz-core's covenant claim leaf, so that anyone holding the preimage —
// Ferry's covenant claimer, for a wallet gone offline — can claim, but only paying `address` the amount committed.
import type { ChainBackend, ClaimCovenantTerms, SwapOutputKind } from '@ferry/sdk/chains/backend.js';
import { claimCovenantTerms, covenantClaimFee, covenantExpectedAmount } from '@ferry/sdk/chains/liquid/covenant.js';
import { swapChain } from '@ferry/sdk/client/chains/index.js';
import { SwapError, type CreateReverseRequest } from '@ferry/sdk/protocol/index.js';
import type { EngineContext } from '../context.ts';

/**
 * The covenant leaf's terms for a request that asks for one, undefined otherwise: output 0 pays `address` what the
 * lockup holds less a covenant claim's fee at the chain's rate and the satoshi of the claim's blinded OP_RETURN. Refused off Liquid, for legacy
 * outputs, without an address or with an address of another chain or network (the reference's error texts).
 */
export async function reverseClaimCovenant(
  ctx: EngineContext,
  chain: ChainBackend | undefined,
  request: Pick<CreateReverseRequest, 'claimCovenant' | 'address'>,
  outputKind: SwapOutputKind,
  onchainAmount: number,
  claimFee: number,
): Promise<ClaimCovenantTerms | undefined> {
  if (request.claimCovenant !== true) return undefined;
  if (chain === undefined || outputKind !== 'taproot' || !isLiquid(chain.symbol)) throw new SwapError('invalid', 'claim covenant only supported on Liquid');
  if (request.address === undefined) throw new SwapError('invalid', 'userAddress for covenant not specified');
  const expectedAmount = covenantExpectedAmount(onchainAmount, covenantClaimFee(await chain.feeRate(), claimFee));
  if (expectedAmount <= 0) throw new SwapError('invalid', 'onchain amount is too low');
  try {
    return claimCovenantTerms(request.address, expectedAmount, ctx.settings.network);
  } catch {
    throw new SwapError('invalid', 'invalid address');
  }
}

function isLiquid(symbol: string): boolean {
  try {
    return swapChain(symbol).currency === 'L-BTC';
  } catch {
    return false;
  }
}
