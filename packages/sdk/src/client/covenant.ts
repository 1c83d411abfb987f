// The client's check of a claim covenant it asked for (a Liquid reverse swap with claimCovenant): the service's tree
// must hold a covenant leaf paying our address, and the amount it commits to must be all the lockup holds but the
// claim's fee and one blinded satoshi. The leaf's script is then rebuilt from those terms and compared with the rest.
import type { ClaimCovenantTerms } from '../chains/backend.ts';
import { claimCovenantTerms, committedAmount, covenantClaimFee, covenantExpectedAmount } from '../chains/liquid/covenant.ts';
import type { SwapTreeJson } from '../protocol/wire.ts';
import type { NetworkName } from './network.ts';
import type { ReversePair } from './types.ts';

/** Why a covenant answer is refused, or the terms our tree must be built with. */
export function checkClaimCovenant(
  answer: Record<string, unknown>,
  address: string,
  currency: string,
  onchainAmount: number,
  network: NetworkName,
  pair?: ReversePair,
): { terms: ClaimCovenantTerms } | { error: string } {
  if (currency !== 'L-BTC') return { error: `claim covenants are only on L-BTC, not ${currency}` };
  const leaf = (answer.swapTree as Partial<SwapTreeJson> | undefined)?.covenantClaimLeaf;
  if (leaf === undefined || typeof leaf.output !== 'string') return { error: 'the swap tree has no covenant claim leaf, which we asked for' };
  const amount = committedAmount(leaf.output);
  if (amount === undefined || amount <= 0 || amount > onchainAmount) {
    return { error: `the covenant claim leaf commits to ${amount ?? 'no'} sat, not a part of the ${onchainAmount} sat locked` };
  }
  if (pair !== undefined) {
    // The covenant claim is larger than a key-path one: a fee of up to 1 sat/vbyte on its size is tolerated.
    const least = covenantExpectedAmount(onchainAmount, covenantClaimFee(1, pair.fees.minerFees.claim));
    if (amount < least) return { error: `the covenant pays ${amount} sat, less than the ${least} sat a covenant claim's fee leaves` };
  }
  try {
    return { terms: claimCovenantTerms(address, amount, network) };
  } catch {
    return { error: `the covenant address ${address} is not a Liquid ${network} address` };
  }
}
