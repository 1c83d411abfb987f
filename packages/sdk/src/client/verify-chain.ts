// The checks a client makes on the answer to a chain swap's creation, before it locks anything: both outputs are the
// ones we would build — our lockup on the `from` chain (the service claims with the preimage, we refund after its
// timeout) and the service's on the `to` chain (we claim with the preimage, it refunds) —, each address commits to
// its tree and both keys (blinded on Liquid to the key returned), the amounts agree with what we asked and with the
// advertised fees, and both timeouts are sane on their own chain.
import { swapChain } from './chains/index.ts';
import type { KeyPair } from './keys.ts';
import { publicKeyFromHex } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { ChainPair } from './types.ts';
import {
  DEFAULT_TIMEOUT_POLICY,
  ROUNDING_SLACK,
  SWAP_ID,
  check,
  checkOutput,
  checkPaymentUri,
  checkTimeout,
  guard,
  percentOf,
  type Checked,
  type TimeoutPolicy,
} from './verify.ts';

/** The pair's terms a chain swap is priced by. */
export interface ChainPricing {
  rate: number;
  percentage: number;
  serverMinerFee: number;
}

export const chainPricingOf = (pair: ChainPair): ChainPricing => ({ rate: pair.rate, percentage: pair.fees.percentage, serverMinerFee: pair.fees.minerFees.server });

/** The least the service may lock for `userAmount` locked by the user, by the pair's rate and fees. */
export function chainMinimalServerAmount(userAmount: number, pricing: ChainPricing): number {
  const converted = Math.floor(userAmount * pricing.rate);
  return converted - percentOf(converted, pricing.percentage) - pricing.serverMinerFee - ROUNDING_SLACK;
}

export interface CheckedChain {
  id: string;
  /** Our lockup on the `from` chain. */
  user: Checked & { amount: number; bip21?: string };
  /** The service's lockup on the `to` chain. */
  server: Checked & { amount: number };
}

export interface ChainCheck {
  answer: unknown;
  from: string;
  to: string;
  /** Our claim key (of the service's lockup) and refund key (of ours). */
  claimKey: KeyPair;
  refundKey: KeyPair;
  preimageHash: Uint8Array;
  /** What we asked for: at most one; neither for a zero-amount swap. */
  userLockAmount?: number;
  serverLockAmount?: number;
  pair?: ChainPair;
  heights: { from: number; to: number };
  network: NetworkName;
  policy?: TimeoutPolicy;
}

type Details = Record<string, unknown>;

function details(answer: Record<string, unknown>, name: string): Details {
  const value = answer[name];
  check(typeof value === 'object' && value !== null, `no ${name} in the answer`);
  return value as Details;
}

function amountOf(side: Details, name: string, zeroAllowed: boolean): number {
  const { amount } = side;
  check(Number.isSafeInteger(amount) && ((amount as number) > 0 || (zeroAllowed && amount === 0)), `${name}.amount is not a positive integer: ${JSON.stringify(amount)}`);
  return amount as number;
}

export function verifyChain(input: ChainCheck): CheckedChain {
  const answer = input.answer as Record<string, unknown>;
  check(typeof answer === 'object' && answer !== null, 'the creation answer is not an object');
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `not a swap id: ${JSON.stringify(answer.id)}`);
  check(input.from !== input.to, 'a chain swap goes between two chains');
  const policy = input.policy ?? DEFAULT_TIMEOUT_POLICY;
  const zeroAmount = input.userLockAmount === undefined && input.serverLockAmount === undefined;
  const { preimageHash } = input;

  const lockup = details(answer, 'lockupDetails');
  const fromChain = swapChain(input.from);
  const userService = guard(() => publicKeyFromHex(lockup.serverPublicKey, 'lockupDetails.serverPublicKey'));
  const userTimeout = checkTimeout(lockup.timeoutBlockHeight, input.heights.from, policy);
  const userTerms = { kind: 'chainUser', preimageHash, claimPublicKey: userService, refundPublicKey: input.refundKey.publicKey, timeoutBlockHeight: userTimeout, servicePublicKey: userService } as const;
  const userOutput = checkOutput(fromChain, userTerms, lockup, 'lockupAddress', input.network, 'our preimage hash');
  const userAmount = amountOf(lockup, 'lockupDetails', zeroAmount);

  const claim = details(answer, 'claimDetails');
  const toChain = swapChain(input.to);
  const serverService = guard(() => publicKeyFromHex(claim.serverPublicKey, 'claimDetails.serverPublicKey'));
  const serverTimeout = checkTimeout(claim.timeoutBlockHeight, input.heights.to, policy);
  const serverTerms = { kind: 'reverse', preimageHash, claimPublicKey: input.claimKey.publicKey, refundPublicKey: serverService, timeoutBlockHeight: serverTimeout, servicePublicKey: serverService } as const;
  const serverOutput = checkOutput(toChain, serverTerms, claim, 'lockupAddress', input.network, 'our preimage hash');
  const serverAmount = amountOf(claim, 'claimDetails', zeroAmount);

  if (input.userLockAmount !== undefined) check(userAmount === input.userLockAmount, `we would lock ${userAmount} sat, not the ${input.userLockAmount} we asked for`);
  if (input.serverLockAmount !== undefined) check(serverAmount === input.serverLockAmount, `the service would lock ${serverAmount} sat, not the ${input.serverLockAmount} we asked for`);
  if (zeroAmount) check(userAmount === 0 && serverAmount === 0, 'a zero-amount swap has its amounts fixed by our lockup, not at creation');
  if (input.pair && !zeroAmount) {
    const minimal = chainMinimalServerAmount(userAmount, chainPricingOf(input.pair));
    check(serverAmount >= minimal, `the service would lock ${serverAmount} sat for our ${userAmount}: less than the advertised rate and fees allow (${minimal})`);
  }
  if (lockup.bip21 !== undefined) checkPaymentUri(fromChain, lockup.bip21, userOutput.address, userAmount, input.network);

  return {
    id: answer.id,
    user: {
      id: answer.id,
      currency: fromChain.currency,
      servicePublicKey: userService,
      ...userOutput,
      timeoutBlockHeight: userTimeout,
      amount: userAmount,
      bip21: lockup.bip21 as string | undefined,
    },
    server: { id: answer.id, currency: toChain.currency, servicePublicKey: serverService, ...serverOutput, timeoutBlockHeight: serverTimeout, amount: serverAmount },
  };
}
