// The checks a client makes on a service's creation answer before anything is paid or locked: the swap
// tree is the one we would build, the address commits to that tree and both keys, the invoice pays our
// hash for the right amount, the amounts are within the advertised fees, and the timeout is sane.
import { decodeBolt11, type Bolt11Invoice } from '../lightning/bolt11/index.ts';
import { VerificationError } from './errors.ts';
import { equalBytes, fromHex, publicKeyFromHex, toHex, type KeyPair } from './keys.ts';
import { INVOICE_NETWORK, addressOfScript, type NetworkName } from './network.ts';
import { lockupScript, reverseTree, sameTree, submarineTree, type SwapTree } from './taproot.ts';
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
const ROUNDING_SLACK = 1;

const SWAP_ID = /^[A-Za-z0-9]{1,64}$/;

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new VerificationError(message);
}

function guard<T>(what: () => T): T {
  try {
    return what();
  } catch (error) {
    if (error instanceof VerificationError) throw error;
    throw new VerificationError((error as Error).message);
  }
}

function checkTimeout(timeout: unknown, height: number, policy: TimeoutPolicy): number {
  check(Number.isSafeInteger(timeout), `timeoutBlockHeight is not an integer: ${JSON.stringify(timeout)}`);
  const blocks = (timeout as number) - height;
  check(blocks >= policy.minBlocks, `timeoutBlockHeight ${timeout} is only ${blocks} block(s) after the tip ${height} (at least ${policy.minBlocks} wanted)`);
  check(blocks <= policy.maxBlocks, `timeoutBlockHeight ${timeout} is ${blocks} blocks after the tip ${height} (at most ${policy.maxBlocks} accepted)`);
  return timeout as number;
}

function checkInvoiceNetwork(invoice: Bolt11Invoice, network: NetworkName): void {
  check(invoice.network === INVOICE_NETWORK[network], `the invoice is for network "${invoice.network}", not ${network}`);
}

const ppm = (percent: number) => BigInt(Math.round(percent * 10_000));
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const percentOf = (amount: number, percent: number) => Number(ceilDiv(BigInt(amount) * ppm(percent), 1_000_000n));

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

interface Checked {
  id: string;
  servicePublicKey: Uint8Array;
  tree: SwapTree;
  outputScript: Uint8Array;
  address: string;
  timeoutBlockHeight: number;
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

  const tree = submarineTree(fromHex(invoice.paymentHash, 'payment hash', 32), servicePublicKey, input.key.publicKey, timeoutBlockHeight);
  check(sameTree(answer.swapTree, tree), "the swap tree is not the one for the invoice's payment hash, both keys and the timeout");
  const outputScript = lockupScript(input.key.privateKey, input.key.publicKey, servicePublicKey, tree);
  const address = addressOfScript(outputScript, input.network);
  check(answer.address === address, `the lockup address ${answer.address} does not commit to the swap tree and both keys (expected ${address})`);

  const expectedAmount = answer.expectedAmount;
  check(Number.isSafeInteger(expectedAmount) && (expectedAmount as number) > 0, `expectedAmount is not a positive integer: ${JSON.stringify(expectedAmount)}`);
  if (input.pair) {
    const maximal = submarineMaximalLockup(invoiceAmount, input.pair);
    check((expectedAmount as number) <= maximal, `expectedAmount ${expectedAmount} is more than the advertised fees allow (${maximal}) for an invoice of ${invoiceAmount}`);
  }
  if (answer.bip21 !== undefined) {
    check(typeof answer.bip21 === 'string', 'bip21 is not a string');
    const uri = new URL(answer.bip21);
    check(uri.protocol === 'bitcoin:' && uri.pathname.toLowerCase() === address.toLowerCase(), `bip21 ${answer.bip21} does not pay the lockup address`);
    const btc = uri.searchParams.get('amount');
    check(btc !== null && Math.round(Number(btc) * 1e8) === expectedAmount, `bip21 ${answer.bip21} does not ask for ${expectedAmount} sat`);
  }
  return {
    id: answer.id,
    servicePublicKey,
    tree,
    outputScript,
    address,
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
  policy?: TimeoutPolicy;
  now?: number; // seconds; for the invoice expiry check
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
  const tree = reverseTree(input.preimageHash, input.key.publicKey, servicePublicKey, timeoutBlockHeight);
  check(sameTree(answer.swapTree, tree), 'the swap tree is not the one for our preimage hash, both keys and the timeout');
  const outputScript = lockupScript(input.key.privateKey, input.key.publicKey, servicePublicKey, tree);
  const address = addressOfScript(outputScript, input.network);
  check(answer.lockupAddress === address, `the lockup address ${answer.lockupAddress} does not commit to the swap tree and both keys (expected ${address})`);
  return {
    id: answer.id,
    servicePublicKey,
    tree,
    outputScript,
    address,
    timeoutBlockHeight,
    invoice: answer.invoice as string,
    invoiceAmount,
    onchainAmount: onchainAmount as number,
  };
}
