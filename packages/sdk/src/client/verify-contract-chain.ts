// The checks a client makes on the answer to a chain swap with a contract side (BTC ⇄ RBTC, L-BTC ⇄ RBTC) before it
// locks anything. The UTXO side is checked as verify-chain.ts checks it (tree, address committing to both keys,
// timeout on its chain); the contract side names the EtherSwap the client connected to and checked, the service's
// account as the other party (our account as the claim address of its lock, its own as the claim address of ours),
// a timelock within the contract chain's policy, and the amounts agree with what we asked and the advertised fees.
import type { ContractChain } from './chains/contract.ts';
import { swapChain } from './chains/index.ts';
import type { KeyPair } from './keys.ts';
import { publicKeyFromHex } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { ChainPair } from './types.ts';
import { chainMinimalServerAmount, chainPricingOf } from './verify-chain.ts';
import { DEFAULT_CONTRACT_TIMEOUT_POLICY, checkContractParties } from './verify-contract.ts';
import { DEFAULT_TIMEOUT_POLICY, SWAP_ID, check, checkOutput, checkPaymentUri, checkTimeout, guard, type Checked, type TimeoutPolicy } from './verify.ts';

export interface ContractChainCheck {
  answer: unknown;
  from: string;
  to: string;
  chain: ContractChain;
  /** Our key on the UTXO side: the refund key of our lockup, or the claim key of the service's. */
  key: KeyPair;
  preimageHash: Uint8Array;
  /** Exactly one: what we lock, or what the service locks. */
  userLockAmount?: number;
  serverLockAmount?: number;
  pair: ChainPair;
  heights: { contract: number; utxo: number };
  network: NetworkName;
  policy?: TimeoutPolicy;
  contractPolicy?: TimeoutPolicy;
  knownServiceAddress?: string;
}

export interface CheckedContractChain {
  id: string;
  userAmount: number;
  serverAmount: number;
  contract: { serviceAddress: string; timeoutBlockHeight: number };
  utxo: Checked & { bip21?: string };
}

type Details = Record<string, unknown>;

function detailsOf(answer: Details, name: string): Details {
  const value = answer[name];
  check(typeof value === 'object' && value !== null, `no ${name} in the answer`);
  return value as Details;
}

function amountOf(side: Details, name: string): number {
  check(Number.isSafeInteger(side.amount) && (side.amount as number) > 0, `${name}.amount is not a positive integer: ${JSON.stringify(side.amount)}`);
  return side.amount as number;
}

export function verifyContractChain(input: ContractChainCheck): CheckedContractChain {
  const answer = input.answer as Details;
  check(typeof answer === 'object' && answer !== null, 'the creation answer is not an object');
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `not a swap id: ${JSON.stringify(answer.id)}`);
  const { chain, preimageHash } = input;
  const toContract = input.to === chain.currency;
  check(toContract !== (input.from === chain.currency), `a chain swap with a contract side goes between ${chain.currency} and a UTXO chain`);
  check((input.userLockAmount === undefined) !== (input.serverLockAmount === undefined), 'give exactly one of userLockAmount and serverLockAmount');

  const lockup = detailsOf(answer, 'lockupDetails');
  const claim = detailsOf(answer, 'claimDetails');
  const [contractDetails, utxoDetails] = toContract ? [claim, lockup] : [lockup, claim];

  // The contract side: the service's lock for our account (refund address its own), or ours for its account.
  let serviceAddress: string;
  if (toContract) {
    check(guard(() => chain.normalizeAddress(contractDetails.claimAddress as string)) === chain.address, `claimDetails.claimAddress ${String(contractDetails.claimAddress)} is not our account ${chain.address}`);
    serviceAddress = checkContractParties(chain, contractDetails.lockupAddress, 'claimDetails.lockupAddress', contractDetails.refundAddress, 'claimDetails.refundAddress', input.knownServiceAddress);
  } else {
    serviceAddress = checkContractParties(chain, contractDetails.lockupAddress, 'lockupDetails.lockupAddress', contractDetails.claimAddress, 'lockupDetails.claimAddress', input.knownServiceAddress);
  }
  const contractTimeout = checkTimeout(contractDetails.timeoutBlockHeight, input.heights.contract, input.contractPolicy ?? DEFAULT_CONTRACT_TIMEOUT_POLICY);

  // The UTXO side: our lockup (the service claims with the preimage, we refund) or the service's (we claim).
  const utxoCurrency = toContract ? input.from : input.to;
  const utxoChain = swapChain(utxoCurrency);
  const name = toContract ? 'lockupDetails' : 'claimDetails';
  const servicePublicKey = guard(() => publicKeyFromHex(utxoDetails.serverPublicKey, `${name}.serverPublicKey`));
  const utxoTimeout = checkTimeout(utxoDetails.timeoutBlockHeight, input.heights.utxo, input.policy ?? DEFAULT_TIMEOUT_POLICY);
  const terms = toContract
    ? ({ kind: 'chainUser', preimageHash, claimPublicKey: servicePublicKey, refundPublicKey: input.key.publicKey, timeoutBlockHeight: utxoTimeout, servicePublicKey } as const)
    : ({ kind: 'reverse', preimageHash, claimPublicKey: input.key.publicKey, refundPublicKey: servicePublicKey, timeoutBlockHeight: utxoTimeout, servicePublicKey } as const);
  const output = checkOutput(utxoChain, terms, utxoDetails, 'lockupAddress', input.network, 'our preimage hash');

  const userAmount = amountOf(lockup, 'lockupDetails');
  const serverAmount = amountOf(claim, 'claimDetails');
  if (input.userLockAmount !== undefined) check(userAmount === input.userLockAmount, `we would lock ${userAmount}, not the ${input.userLockAmount} we asked for`);
  if (input.serverLockAmount !== undefined) check(serverAmount === input.serverLockAmount, `the service would lock ${serverAmount}, not the ${input.serverLockAmount} we asked for`);
  const minimal = chainMinimalServerAmount(userAmount, chainPricingOf(input.pair));
  check(serverAmount >= minimal, `the service would lock ${serverAmount} for our ${userAmount}: less than the advertised rate and fees allow (${minimal})`);
  if (toContract && lockup.bip21 !== undefined) checkPaymentUri(utxoChain, lockup.bip21, output.address, userAmount, input.network);

  return {
    id: answer.id,
    userAmount,
    serverAmount,
    contract: { serviceAddress, timeoutBlockHeight: contractTimeout },
    utxo: {
      id: answer.id,
      currency: utxoChain.currency,
      servicePublicKey,
      ...output,
      timeoutBlockHeight: utxoTimeout,
      ...(toContract && typeof lockup.bip21 === 'string' && { bip21: lockup.bip21 }),
    },
  };
}
