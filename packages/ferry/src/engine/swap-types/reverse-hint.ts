// A reverse swap's magic routing hint (the receiver side; the facts are in @ferry/sdk/lightning/magic-routing-hint):
// a wallet that sends `address` and `addressSignature` with its claim key gets that key into the hold invoice's
// routing hints, and the signed BIP21 of its address is kept with the swap for GET /v2/swap/reverse/{invoice}/bip21.
// A payer who pays that BIP21 on chain never pays the invoice: the swap then ends as an unpaid invoice does, with
// nothing locked by Ferry.
import { hex } from '@scure/base';
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import { swapChain } from '@ferry/sdk/client/chains/index.js';
import { findMagicRoutingHint, magicRoutingHint, verifyAddressSignature } from '@ferry/sdk/lightning/magic-routing-hint.js';
import type { RouteHintHop } from '@ferry/sdk/lightning/bolt11/index.js';
import { SwapError, type CreateReverseRequest, type ReverseBip21Body } from '@ferry/sdk/protocol/index.js';
import type { LightningBackend } from '../../lightning/backend.ts';
import type { EngineContext } from '../context.ts';
import { reverseData } from '../data.ts';

export interface ReverseHint {
  routeHints: RouteHintHop[][];
  directPayment: ReverseBip21Body;
}

/**
 * The hint and BIP21 for a request that asks for one (both `address` and `addressSignature`, as the reference
 * needs); undefined otherwise. Refuses an address of another chain or network, and a signature not by the claim key.
 */
export function reverseHint(
  ctx: EngineContext,
  chain: ChainBackend,
  request: Pick<CreateReverseRequest, 'address' | 'addressSignature'>,
  claimPublicKey: Uint8Array,
  receivedAmount: number,
  label: string,
): ReverseHint | undefined {
  const { address, addressSignature } = request;
  if (address === undefined || addressSignature === undefined) return undefined;
  try {
    swapChain(chain.symbol).decodeAddress(address, ctx.settings.network);
  } catch {
    throw new SwapError('invalid', 'invalid address');
  }
  if (!/^[0-9a-fA-F]{128}$/.test(addressSignature) || !verifyAddressSignature(address, hex.decode(addressSignature.toLowerCase()), claimPublicKey)) {
    throw new SwapError('invalid', 'invalid address signature');
  }
  return {
    routeHints: [magicRoutingHint(claimPublicKey)],
    directPayment: { bip21: chain.paymentUri(address, receivedAmount, label), signature: addressSignature.toLowerCase() },
  };
}

/** A node that dropped the hint would leave payers no way to find the BIP21: refuse such an invoice. */
export async function requireHintInInvoice(lightning: LightningBackend, paymentRequest: string, paymentHash: string): Promise<void> {
  if (findMagicRoutingHint(await lightning.decodeInvoice(paymentRequest)) !== undefined) return;
  await lightning.cancelHoldInvoice(paymentHash).catch(() => undefined);
  throw new Error('the Lightning node made the hold invoice without the routing hint it was asked for');
}

/** GET /v2/swap/reverse/{invoice}/bip21: the BIP21 of a reverse swap created with a signed address. */
export async function reverseBip21(ctx: EngineContext, invoice: string): Promise<ReverseBip21Body | undefined> {
  const swap = await ctx.storage.swaps.getByInvoice(invoice);
  if (swap === undefined || swap.type !== 'reverse') return undefined;
  return reverseData(swap).directPayment;
}
