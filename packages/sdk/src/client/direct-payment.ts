// The payer's side of a magic routing hint (../lightning/magic-routing-hint.ts): before swapping chain coins into an
// invoice, look whether the invoice's receiver takes them on chain directly. Only an answer that passes every check
// (the address signed by the key in the invoice the receiver's node signed, the chain's URI scheme and asset, an
// amount within the invoice's) is returned; a service that has no BIP21 for the invoice means "swap as usual".
import { paymentUriScheme, policyAsset } from '../chains/liquid/network.ts';
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import { checkDirectPayment, findMagicRoutingHint, type DirectPayment } from '../lightning/magic-routing-hint.ts';
import type { ReverseBip21Body } from '../protocol/wire.ts';
import type { ServiceApi } from './api.ts';
import { ServiceError, VerificationError } from './errors.ts';
import type { NetworkName } from './network.ts';

export type { DirectPayment } from '../lightning/magic-routing-hint.ts';

/** The URI schemes and asset a direct payment on `currency` may name. */
function expectedFor(currency: string, network: NetworkName): { schemes: string[]; assetId?: string } {
  if (currency === 'BTC') return { schemes: ['bitcoin'] };
  if (currency === 'L-BTC') {
    // The reference writes liquidnetwork on regtest too; Ferry writes the testnet scheme there.
    const schemes = network === 'mainnet' ? ['liquidnetwork'] : [paymentUriScheme(network), 'liquidnetwork'];
    return { schemes, assetId: policyAsset(network) };
  }
  throw new Error(`direct payments on ${currency} are not supported (only BTC and L-BTC)`);
}

export async function directPaymentOf(api: ServiceApi, invoice: string, currency: string, network: NetworkName): Promise<DirectPayment | undefined> {
  const decoded = decodeBolt11(invoice);
  if (findMagicRoutingHint(decoded) === undefined) return undefined;
  let answer: ReverseBip21Body;
  try {
    answer = await api.request<ReverseBip21Body>('GET', `/v2/swap/reverse/${encodeURIComponent(invoice.toLowerCase())}/bip21`);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) return undefined;
    throw error;
  }
  try {
    return checkDirectPayment(decoded, answer, expectedFor(currency, network));
  } catch (error) {
    throw new VerificationError(`the direct payment the service offers for this invoice fails a check: ${(error as Error).message}`);
  }
}
