// Gasless reverse swaps to a contract chain (`gasless: true`, or the earlier `prepayMinerFee: true`): a client with
// no RBTC cannot pay for its `claim`, so it pays a second hold invoice and Ferry's lock sends that much gas to its
// claim address in the same transaction (lockPrepayMinerfee). The gas invoice's preimage is Ferry's own: it is
// settled once the lock is out, and cancelled with the swap's invoice if the swap fails before (reverse-machine.ts).
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { ContractChain } from '../../chains/contract-chain.ts';
import type { LightningBackend } from '../../lightning/backend.ts';
import { SwapError, invalidParameter, type CreateReverseRequest } from '../../protocol/index.ts';
import type { GasPrepay } from '../../swaps/reverse-machine.ts';
import type { MinerFees, PairConfig } from '../../swaps/pairs.ts';

/** The gas sent pays the client's claim twice over at today's gas price: room for a rise before it claims. */
const GAS_PREPAY_CLAIMS = 2;

/** Which name the request used, if it asked for gas; refused on a chain whose lockup needs no gas (UTXO). */
export function requestedGas(request: CreateReverseRequest, contract: ContractChain | undefined): GasPrepay['requestedAs'] | undefined {
  const requestedAs = request.gasless === true ? 'gasless' : request.prepayMinerFee === true ? 'prepayMinerFee' : undefined;
  if (requestedAs !== undefined && contract === undefined) throw invalidParameter(requestedAs);
  return requestedAs;
}

/** Creates the gas invoice (its expiry and HTLC delta those of the swap's invoice). */
export async function createGasInvoice(
  lightning: LightningBackend,
  terms: { pair: PairConfig; fees: MinerFees; chain: ContractChain; requestedAs: GasPrepay['requestedAs']; expirySeconds: number; cltvExpiry: number },
): Promise<GasPrepay> {
  const amount = GAS_PREPAY_CLAIMS * terms.fees.reverse.claim;
  const invoiceAmount = Math.ceil(amount / terms.pair.rate);
  if (amount <= 0 || invoiceAmount <= 0) throw new SwapError('invalid', 'no gas price to prepay');
  const preimage = randomBytes(32);
  const preimageHash = hex.encode(sha256(preimage));
  const { paymentRequest } = await lightning.createHoldInvoice({
    paymentHash: preimageHash,
    amountMsat: BigInt(invoiceAmount) * 1000n,
    memo: `Gas for the ${terms.chain.symbol} claim`,
    expirySeconds: terms.expirySeconds,
    cltvExpiry: terms.cltvExpiry,
  });
  return { invoice: paymentRequest, preimageHash, preimage: preimage.toString('hex'), invoiceAmount, amount, requestedAs: terms.requestedAs };
}

/** The answer's fields for it, under the name the request used. */
export function gasAnswer(gas: GasPrepay): Record<string, string | number> {
  return gas.requestedAs === 'gasless'
    ? { gasAssetAmount: gas.amount, gaslessInvoice: gas.invoice }
    : { prepayMinerFeeAmount: gas.amount, minerFeeInvoice: gas.invoice };
}
