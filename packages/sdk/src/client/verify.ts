// The checks a client makes on a service's creation answer before anything is paid or locked: the swap
// tree is the one we would build on the swap's chain, the address commits to that tree and both keys (and on
// Liquid is blinded to the blindingKey the service returned), the invoice pays our hash for the right amount,
// the amounts are within the advertised fees, and the timeout is sane.
import type { SwapOutputTerms } from '../chains/backend.ts';
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import type { Bolt11Invoice } from '../lightning/bolt11/types.ts';
import { swapChain, type SwapChain } from './chains/index.ts';
import { VerificationError } from './errors.ts';
import { equalBytes, fromHex, keyPairOf, publicKeyFromHex, toHex, type KeyPair } from './keys.ts';
import { INVOICE_NETWORK, type NetworkName } from './network.ts';
import { checkClaimCovenant } from './covenant.ts';
import { sameTree, type SwapTree } from './taproot.ts';
import type { ReversePair, SubmarinePair } from './types.ts';

/** How far in the future a swap's timeout may be, in blocks from the current tip. */
export interface TimeoutPolicy {
  /** Fewer blocks leave too little time to get a transaction confirmed. */
  minBlocks: number;
  /** More blocks lock coins for longer than anyone should accept. */
  maxBlocks: number;
}

export const DEFAULT_TIMEOUT_POLICY: TimeoutPolicy = { minBlocks: 12, maxBlocks: 4320 };

/** Rounding other implementations may do differently: tolerated, in sat. */
export const ROUNDING_SLACK = 1;

export const SWAP_ID = /^[A-Za-z0-9]{1,64}$/;

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new VerificationError(message);
}

export function guard<T>(what: () => T): T {
  try {
    return what();
  } catch (error) {
    if (error instanceof VerificationError) throw error;
    throw new VerificationError((error as Error).message);
  }
}

export function checkTimeout(timeout: unknown, height: number, policy: TimeoutPolicy): number {
  check(Number.isSafeInteger(timeout), `timeoutBlockHeight is not an integer: ${JSON.stringify(timeout)}`);
  const blocks = (timeout as number) - height;
  check(blocks >= policy.minBlocks, `timeoutBlockHeight ${timeout} is only ${blocks} block(s) after the tip ${height} (at least ${policy.minBlocks} wanted)`);
  check(blocks <= policy.maxBlocks, `timeoutBlockHeight ${timeout} is ${blocks} blocks after the tip ${height} (at most ${policy.maxBlocks} accepted)`);
  return timeout as number;
}

export function checkInvoiceNetwork(invoice: Bolt11Invoice, network: NetworkName): void {
  check(invoice.network === INVOICE_NETWORK[network], `the invoice is for network "${invoice.network}", not ${network}`);
}

const ppm = (percent: number) => BigInt(Math.round(percent * 10_000));
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
export const percentOf = (amount: number, percent: number) => Number(ceilDiv(BigInt(amount) * ppm(percent), 1_000_000n));

/** The most a submarine lockup may cost for an invoice, by the pair's advertised rate and fees. */
export function submarineMaximalLockup(invoiceAmount: number, pair: SubmarinePair): number {
  const converted = Math.ceil(invoiceAmount / pair.rate);
  return converted + percentOf(converted, pair.fees.percentage) + pair.fees.minerFees + ROUNDING_SLACK;
}

/** The least a reverse swap may lock for an invoice, by the pair's advertised rate and fees. */
export function reverseMinimalOnchain(invoiceAmount: number, pair: ReversePair): number {
  const converted = Math.floor(invoiceAmount * pair.rate);
  return converted - percentOf(converted, pair.fees.percentage) - pair.fees.minerFees.lockup - ROUNDING_SLACK;
}

export interface Checked {
  id: string;
  currency: string;
  servicePublicKey: Uint8Array;
  tree: SwapTree;
  outputScript: Uint8Array;
  address: string;
  /** Liquid: the private key that blinds the lockup address (and unblinds the lockup). */
  blindingKey?: Uint8Array;
  timeoutBlockHeight: number;
}

/** On a confidential chain, the blindingKey of the answer: a private key, whose public key the address must carry. */
function checkBlindingKey(chain: SwapChain, value: unknown): KeyPair | undefined {
  if (!chain.confidential) return undefined;
  check(value !== undefined, `no blindingKey in the answer: lockup addresses of ${chain.currency} are confidential`);
  return guard(() => keyPairOf(fromHex(value, 'blindingKey', 32)));
}

/**
 * The tree the terms give on the swap's chain, its output (MuSig2 of [service, client] tweaked that chain's way)
 * and its address, blinded on Liquid to the public key of the answer's blindingKey; checked against the answer.
 */
export function checkOutput(chain: SwapChain, terms: SwapOutputTerms, answer: Record<string, unknown>, addressField: string, network: NetworkName, what: string) {
  const blinding = checkBlindingKey(chain, answer.blindingKey);
  const built = guard(() => chain.swapOutput(terms, network, blinding?.publicKey));
  check(sameTree(answer.swapTree, built.tree, chain.parseTree), `the swap tree is not the one for ${what}, both keys and the timeout on ${chain.currency}`);
  const given = answer[addressField];
  if (given === built.address) return { ...built, blindingKey: blinding?.privateKey };
  check(typeof given === 'string', `no ${addressField} in the answer`);
  let decoded: { script: Uint8Array; blindingPublicKey?: Uint8Array };
  try {
    decoded = chain.decodeAddress(given, network);
  } catch {
    throw new VerificationError(`the lockup address ${given} is not a ${network} address of ${chain.currency} (expected ${built.address})`);
  }
  check(
    equalBytes(decoded.script, built.outputScript),
    `the lockup address ${given} does not commit to the swap tree and both keys (expected ${built.address}: its script ` +
      `${toHex(decoded.script)} is not ${toHex(built.outputScript)}, the MuSig2 key of [service, client] tweaked with the tree)`,
  );
  check(
    blinding === undefined || (decoded.blindingPublicKey !== undefined && equalBytes(decoded.blindingPublicKey, blinding.publicKey)),
    `the lockup address ${given} is blinded to ${decoded.blindingPublicKey ? toHex(decoded.blindingPublicKey) : 'no key'}, not to ` +
      `${toHex(blinding!.publicKey)}, the public key of the blindingKey the service returned (expected ${built.address})`,
  );
  throw new VerificationError(`the lockup address ${given} is not ${built.address}`);
}

/** A BIP21-style URI must pay the lockup address the amount asked, in the chain's asset. */
export function checkPaymentUri(chain: SwapChain, bip21: unknown, address: string, amount: number, network: NetworkName): void {
  check(typeof bip21 === 'string', 'bip21 is not a string');
  const uri = guard(() => new URL(bip21));
  const { scheme, assetId } = chain.paymentUri(network);
  check(uri.protocol === `${scheme}:` && uri.pathname.toLowerCase() === address.toLowerCase(), `bip21 ${bip21} does not pay the lockup address`);
  const coins = uri.searchParams.get('amount');
  check(coins !== null && Math.round(Number(coins) * 1e8) === amount, `bip21 ${bip21} does not ask for ${amount} sat`);
  check(assetId === undefined || uri.searchParams.get('assetid') === assetId, `bip21 ${bip21} does not ask for the asset ${assetId} (${chain.currency})`);
}

export interface CheckedSubmarine extends Checked {
  invoice: Bolt11Invoice;
  invoiceAmount: number;
  expectedAmount: number;
  acceptZeroConf: boolean;
  bip21?: string;
}

export interface SubmarineCheck {
  answer: unknown;
  key: KeyPair;
  /** The invoice we asked the service to pay. */
  invoice: string;
  pair?: SubmarinePair;
  height: number;
  network: NetworkName;
  /** The chain the coins are locked on; default BTC. */
  currency?: string;
  policy?: TimeoutPolicy;
}

export function verifySubmarine(input: SubmarineCheck): CheckedSubmarine {
  const answer = input.answer as Record<string, unknown>;
  check(typeof answer === 'object' && answer !== null, 'the creation answer is not an object');
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `not a swap id: ${JSON.stringify(answer.id)}`);
  const invoice = guard(() => decodeBolt11(input.invoice));
  checkInvoiceNetwork(invoice, input.network);
  check(invoice.amountMsat !== undefined && invoice.amountMsat % 1000n === 0n, 'the invoice must ask for a whole number of sat');
  const invoiceAmount = Number(invoice.amountMsat / 1000n);
  const servicePublicKey = guard(() => publicKeyFromHex(answer.claimPublicKey, 'claimPublicKey'));
  const timeoutBlockHeight = checkTimeout(answer.timeoutBlockHeight, input.height, input.policy ?? DEFAULT_TIMEOUT_POLICY);
  const chain = swapChain(input.currency ?? 'BTC');
  const preimageHash = fromHex(invoice.paymentHash, 'payment hash', 32);
  const terms = { kind: 'submarine', preimageHash, claimPublicKey: servicePublicKey, refundPublicKey: input.key.publicKey, timeoutBlockHeight, servicePublicKey } as const;
  const output = checkOutput(chain, terms, answer, 'address', input.network, "the invoice's payment hash");
  const { address } = output;

  const expectedAmount = answer.expectedAmount;
  check(Number.isSafeInteger(expectedAmount) && (expectedAmount as number) > 0, `expectedAmount is not a positive integer: ${JSON.stringify(expectedAmount)}`);
  if (input.pair) {
    const maximal = submarineMaximalLockup(invoiceAmount, input.pair);
    check((expectedAmount as number) <= maximal, `expectedAmount ${expectedAmount} is more than the advertised fees allow (${maximal}) for an invoice of ${invoiceAmount}`);
  }
  if (answer.bip21 !== undefined) checkPaymentUri(chain, answer.bip21, address, expectedAmount as number, input.network);
  return {
    id: answer.id,
    currency: chain.currency,
    servicePublicKey,
    ...output,
    timeoutBlockHeight,
    invoice,
    invoiceAmount,
    expectedAmount: expectedAmount as number,
    acceptZeroConf: answer.acceptZeroConf === true,
    bip21: answer.bip21 as string | undefined,
  };
}

export interface CheckedReverse extends Checked {
  invoice: string;
  invoiceAmount: number;
  onchainAmount: number;
}

export interface ReverseCheck {
  answer: unknown;
  key: KeyPair;
  preimageHash: Uint8Array;
  /** What we asked for: exactly one of the two. */
  invoiceAmount?: number;
  onchainAmount?: number;
  pair?: ReversePair;
  height: number;
  network: NetworkName;
  /** The chain the coins are locked on; default BTC. */
  currency?: string;
  policy?: TimeoutPolicy;
  now?: number; // seconds; for the invoice expiry check
  /** Liquid: we asked for a claim covenant to this address (claimCovenant). */
  claimCovenant?: { address: string };
}

export function verifyReverse(input: ReverseCheck): CheckedReverse {
  const answer = input.answer as Record<string, unknown>;
  check(typeof answer === 'object' && answer !== null, 'the creation answer is not an object');
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `not a swap id: ${JSON.stringify(answer.id)}`);
  check(typeof answer.invoice === 'string', 'no invoice in the answer');
  const invoice = guard(() => decodeBolt11(answer.invoice as string));
  checkInvoiceNetwork(invoice, input.network);
  check(
    equalBytes(fromHex(invoice.paymentHash, 'payment hash', 32), input.preimageHash),
    `the invoice's payment hash ${invoice.paymentHash} is not the hash of our preimage (${toHex(input.preimageHash)}): paying it would not buy our swap`,
  );
  check(invoice.amountMsat !== undefined && invoice.amountMsat % 1000n === 0n, 'the invoice must ask for a whole number of sat');
  const invoiceAmount = Number(invoice.amountMsat / 1000n);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  check(invoice.timestamp + invoice.expiry > now, 'the invoice has expired already');

  const onchainAmount = answer.onchainAmount;
  check(Number.isSafeInteger(onchainAmount) && (onchainAmount as number) > 0, `onchainAmount is not a positive integer: ${JSON.stringify(onchainAmount)}`);
  if (input.invoiceAmount !== undefined) {
    check(invoiceAmount === input.invoiceAmount, `the invoice asks for ${invoiceAmount} sat, not the ${input.invoiceAmount} we asked for`);
  } else {
    check(onchainAmount === input.onchainAmount, `the service would lock ${onchainAmount} sat, not the ${input.onchainAmount} we asked for`);
  }
  if (input.pair) {
    const minimal = reverseMinimalOnchain(invoiceAmount, input.pair);
    check((onchainAmount as number) >= minimal, `onchainAmount ${onchainAmount} is less than the advertised fees allow (${minimal}) for an invoice of ${invoiceAmount}`);
  }

  const servicePublicKey = guard(() => publicKeyFromHex(answer.refundPublicKey, 'refundPublicKey'));
  const timeoutBlockHeight = checkTimeout(answer.timeoutBlockHeight, input.height, input.policy ?? DEFAULT_TIMEOUT_POLICY);
  const chain = swapChain(input.currency ?? 'BTC');
  let terms: SwapOutputTerms = { kind: 'reverse', preimageHash: input.preimageHash, claimPublicKey: input.key.publicKey, refundPublicKey: servicePublicKey, timeoutBlockHeight, servicePublicKey };
  if (input.claimCovenant !== undefined) {
    const covenant = checkClaimCovenant(answer, input.claimCovenant.address, chain.currency, onchainAmount as number, input.network, input.pair);
    if ('error' in covenant) throw new VerificationError(covenant.error);
    terms = { ...terms, claimCovenant: covenant.terms };
  }
  const output = checkOutput(chain, terms, answer, 'lockupAddress', input.network, 'our preimage hash');
  return {
    id: answer.id,
    currency: chain.currency,
    servicePublicKey,
    ...output,
    timeoutBlockHeight,
    invoice: answer.invoice as string,
    invoiceAmount,
    onchainAmount: onchainAmount as number,
  };
}
