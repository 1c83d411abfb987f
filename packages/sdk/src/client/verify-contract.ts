// The checks a client makes on a service's answer for a swap on a contract chain (RBTC) before a wei moves or an
// invoice is paid: the contract is the one the client connected to and checked (contract address), the service's
// account is a plain address, not ours, and the one this service named before (claim / refund address), the
// timelock is within the policy, the amounts within the advertised fees, and a reverse swap's invoice buys our hash.
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import type { Bolt11Invoice } from '../lightning/bolt11/types.ts';
import type { ContractChain } from './chains/contract.ts';
import { toHex } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { ReversePair, SubmarinePair } from './types.ts';
import { SWAP_ID, check, checkInvoiceNetwork, checkTimeout, guard, reverseMinimalOnchain, submarineMaximalLockup, type TimeoutPolicy } from './verify.ts';

/** RSK's 30-second blocks: a timelock 1 hour to 4 days ahead (the service's own are 1 to 2 days). */
export const DEFAULT_CONTRACT_TIMEOUT_POLICY: TimeoutPolicy = { minBlocks: 120, maxBlocks: 11_520 };

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

interface ContractCheck {
  answer: unknown;
  chain: ContractChain;
  height: number;
  network: NetworkName;
  policy?: TimeoutPolicy;
  /** The service's account as it named it before (in a stored swap, or as given); undefined on first use. */
  knownServiceAddress?: string;
}

export interface CheckedContractSwap {
  id: string;
  serviceAddress: string;
  timeoutBlockHeight: number;
}

/**
 * The contract an answer names is the one the client checked, and the service's account there a plain address: not
 * zero, not ours, not the contract, and the one this service named before.
 */
export function checkContractParties(
  chain: ContractChain,
  contractValue: unknown,
  contractField: string,
  serviceValue: unknown,
  serviceField: string,
  knownServiceAddress: string | undefined,
): string {
  const contract = guard(() => chain.normalizeAddress(contractValue as string));
  check(contract === chain.contractAddress, `${contractField} ${contract} is not ${chain.contractAddress}, the EtherSwap the service's contracts endpoint names and the client checked`);
  const serviceAddress = guard(() => chain.normalizeAddress(serviceValue as string));
  check(serviceAddress !== ZERO_ADDRESS, `${serviceField} is the zero address`);
  check(serviceAddress !== chain.address, `${serviceField} ${serviceAddress} is our own account`);
  check(serviceAddress !== chain.contractAddress, `${serviceField} ${serviceAddress} is the swap contract`);
  if (knownServiceAddress !== undefined) {
    check(
      serviceAddress === chain.normalizeAddress(knownServiceAddress),
      `${serviceField} ${serviceAddress} is not ${knownServiceAddress}, the account this service used before`,
    );
  }
  return serviceAddress;
}

function checkCommon(input: ContractCheck, contractField: string, serviceField: string): CheckedContractSwap & { answer: Record<string, unknown> } {
  const answer = input.answer as Record<string, unknown>;
  check(typeof answer === 'object' && answer !== null, 'the creation answer is not an object');
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `not a swap id: ${JSON.stringify(answer.id)}`);
  const serviceAddress = checkContractParties(input.chain, answer[contractField], contractField, answer[serviceField], serviceField, input.knownServiceAddress);
  const timeoutBlockHeight = checkTimeout(answer.timeoutBlockHeight, input.height, input.policy ?? DEFAULT_CONTRACT_TIMEOUT_POLICY);
  return { id: answer.id, serviceAddress, timeoutBlockHeight, answer };
}

export interface CheckedContractSubmarine extends CheckedContractSwap {
  invoice: Bolt11Invoice;
  invoiceAmount: number;
  expectedAmount: number;
}

/** A submarine answer (`address` = contract, `claimAddress` = the service's account) for our invoice. */
export function verifyContractSubmarine(input: ContractCheck & { invoice: string; pair: SubmarinePair }): CheckedContractSubmarine {
  const { answer, ...checked } = checkCommon(input, 'address', 'claimAddress');
  const invoice = guard(() => decodeBolt11(input.invoice));
  checkInvoiceNetwork(invoice, input.network);
  check(invoice.amountMsat !== undefined && invoice.amountMsat % 1000n === 0n, 'the invoice must ask for a whole number of sat');
  const invoiceAmount = Number(invoice.amountMsat / 1000n);
  const expectedAmount = answer.expectedAmount;
  check(Number.isSafeInteger(expectedAmount) && (expectedAmount as number) > 0, `expectedAmount is not a positive integer: ${JSON.stringify(expectedAmount)}`);
  const maximal = submarineMaximalLockup(invoiceAmount, input.pair);
  check((expectedAmount as number) <= maximal, `expectedAmount ${expectedAmount} is more than the advertised fees allow (${maximal}) for an invoice of ${invoiceAmount}`);
  return { ...checked, invoice, invoiceAmount, expectedAmount: expectedAmount as number };
}

export interface CheckedContractReverse extends CheckedContractSwap {
  invoice: string;
  invoiceAmount: number;
  onchainAmount: number;
}

/** A reverse answer (`lockupAddress` = contract, `refundAddress` = the service's account): its invoice buys our hash. */
export function verifyContractReverse(
  input: ContractCheck & { preimageHash: Uint8Array; invoiceAmount?: number; onchainAmount?: number; pair: ReversePair; now?: number },
): CheckedContractReverse {
  const { answer, ...checked } = checkCommon(input, 'lockupAddress', 'refundAddress');
  check(typeof answer.invoice === 'string', 'no invoice in the answer');
  const invoice = guard(() => decodeBolt11(answer.invoice as string));
  checkInvoiceNetwork(invoice, input.network);
  check(invoice.paymentHash === toHex(input.preimageHash), `the invoice's payment hash ${invoice.paymentHash} is not the hash of our preimage: paying it would not buy our swap`);
  check(invoice.amountMsat !== undefined && invoice.amountMsat % 1000n === 0n, 'the invoice must ask for a whole number of sat');
  const invoiceAmount = Number(invoice.amountMsat / 1000n);
  check(invoice.timestamp + invoice.expiry > (input.now ?? Math.floor(Date.now() / 1000)), 'the invoice has expired already');
  const onchainAmount = answer.onchainAmount;
  check(Number.isSafeInteger(onchainAmount) && (onchainAmount as number) > 0, `onchainAmount is not a positive integer: ${JSON.stringify(onchainAmount)}`);
  if (input.invoiceAmount !== undefined) check(invoiceAmount === input.invoiceAmount, `the invoice asks for ${invoiceAmount} sat, not the ${input.invoiceAmount} we asked for`);
  else check(onchainAmount === input.onchainAmount, `the service would lock ${onchainAmount}, not the ${input.onchainAmount} we asked for`);
  const minimal = reverseMinimalOnchain(invoiceAmount, input.pair);
  check((onchainAmount as number) >= minimal, `onchainAmount ${onchainAmount} is less than the advertised fees allow (${minimal}) for an invoice of ${invoiceAmount}`);
  return { ...checked, invoice: answer.invoice as string, invoiceAmount, onchainAmount: onchainAmount as number };
}

