// A reverse swap's second invoice, the prepay: the client pays it beside the swap's hold invoice and Ferry locks only
// once both are held (reverse-machine.ts). Two protocols share it:
// - gasless (`gasless: true`, or the earlier `prepayMinerFee: true`) on a contract chain: a client with no RBTC
//   cannot pay for its `claim`, so Ferry's lock sends the invoice's worth of gas to its claim address in the same
//   transaction (lockPrepayMinerfee);
// - the miner fee prepay (operator option `swap.prepayMinerFee`, v1 swaps on UTXO chains): the lockup's miner fee is
//   taken off the hold invoice and asked for up front, so a client that never pays the swap's invoice still paid for
//   nothing Ferry spent (it is cancelled with the swap if Ferry never locks).
// Its preimage is Ferry's own: the invoice is held, settled once the lock is out, and cancelled with the swap's
// invoice if the swap fails before.
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { AnyChain } from '../context.ts';
import type { LightningBackend } from '../../lightning/backend.ts';
import { SwapError, invalidParameter, type CreateReverseRequest } from '@ferry/sdk/protocol/index.js';
import type { GasPrepay } from '@ferry/sdk/swaps/reverse-machine.js';
import type { MinerFees, PairConfig } from '../../swaps/pairs.ts';
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';

/** The gas sent pays the client's claim twice over at today's gas price: room for a rise before it claims. */
const GAS_PREPAY_CLAIMS = 2;

/** Which name the request used, if it asked for gas; refused on a chain whose lockup needs no gas (UTXO). */
export function requestedGas(request: CreateReverseRequest, contract: ContractChain | undefined): GasPrepay['requestedAs'] | undefined {
  const requestedAs = request.gasless === true ? 'gasless' : request.prepayMinerFee === true ? 'prepayMinerFee' : undefined;
  if (requestedAs !== undefined && contract === undefined) throw invalidParameter(requestedAs);
  return requestedAs;
}

export interface PrepayTerms {
  pair: PairConfig;
  fees: MinerFees;
  chain: AnyChain;
  requestedAs: GasPrepay['requestedAs'];
  expirySeconds: number;
  cltvExpiry: number;
}

/** What the prepay invoice asks (sat of the Lightning side) and what Ferry sends with its lock for it (chain units). */
function prepayAmounts(terms: PrepayTerms): { invoiceAmount: number; amount: number } {
  if (terms.requestedAs === 'minerFee') return { invoiceAmount: Math.ceil(terms.fees.reverse.lockup / terms.pair.rate), amount: 0 };
  const amount = GAS_PREPAY_CLAIMS * terms.fees.reverse.claim;
  return { invoiceAmount: Math.ceil(amount / terms.pair.rate), amount };
}

/** The prepay invoice's amount for these terms, before it is created (the swap's hold invoice is the rest). */
export const prepayInvoiceAmount = (terms: PrepayTerms): number => prepayAmounts(terms).invoiceAmount;

/** Creates the prepay invoice (its expiry and HTLC delta those of the swap's invoice). */
export async function createGasInvoice(lightning: LightningBackend, terms: PrepayTerms): Promise<GasPrepay> {
  const { invoiceAmount, amount } = prepayAmounts(terms);
  if (invoiceAmount <= 0 || (terms.requestedAs !== 'minerFee' && amount <= 0)) throw new SwapError('invalid', 'no gas price to prepay');
  const preimage = randomBytes(32);
  const preimageHash = hex.encode(sha256(preimage));
  const { paymentRequest } = await lightning.createHoldInvoice({
    paymentHash: preimageHash,
    amountMsat: BigInt(invoiceAmount) * 1000n,
    memo: terms.requestedAs === 'minerFee' ? `Miner fee of the ${terms.chain.symbol} lockup` : `Gas for the ${terms.chain.symbol} claim`,
    expirySeconds: terms.expirySeconds,
    cltvExpiry: terms.cltvExpiry,
  });
  return { invoice: paymentRequest, preimageHash, preimage: preimage.toString('hex'), invoiceAmount, amount, requestedAs: terms.requestedAs };
}

/** The answer's fields for it, under the name the request used. */
export function gasAnswer(gas: GasPrepay): Record<string, string | number> {
  if (gas.requestedAs === 'minerFee') return { minerFeeInvoice: gas.invoice };
  return gas.requestedAs === 'gasless'
    ? { gasAssetAmount: gas.amount, gaslessInvoice: gas.invoice }
    : { prepayMinerFeeAmount: gas.amount, minerFeeInvoice: gas.invoice };
}
