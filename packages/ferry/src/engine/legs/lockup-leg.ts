// A lockup leg as the legs see it, whatever swap type it belongs to: which chain, which output, whose keys, and
// the lockup recorded so far. A swap type says where in its data each of its lockup legs lives.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { ChainBackend, LegacyScript, SwapLockup, SwapSigner } from '@ferry/sdk/chains/backend.js';
import type { SwapRecord } from '../../db/index.ts';
import type { SwapTreeJson } from '@ferry/sdk/protocol/index.js';
import type { ContractSwapData, SwapOutputData } from '@ferry/sdk/swaps/lockup.js';
import type { ContractLockupValues } from '@ferry/sdk/chains/contract-chain.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import { anyChainOf, chainOf, contractChainOf, type AnyChain, type EngineContext } from '../context.ts';
import type { ContractChain } from '@ferry/sdk/chains/contract-chain.js';
import { chainData, reverseData, submarineData, type ChainSide } from '../data.ts';
import type { LockupLegName } from '../watch-index.ts';
import { zeroAmountRefusal, zeroAmountServerAmount, type ZeroAmountPricing } from '../../swaps/amounts.ts';

export interface LockupLeg {
  name: LockupLegName;
  swap: SwapRecord;
  /** Symbol of the chain the output is on. */
  chain: string;
  /** The output script, hex. */
  script: string;
  address: string;
  /** Taproot outputs: the script tree. */
  tree?: SwapTreeJson;
  /** Legacy outputs (API v1): the redeem script; spent through it alone, never cooperatively. */
  legacy?: LegacyScript;
  /** The client's key in the output (hex): the refund key of a user lockup, the claim key of a server lockup. */
  clientPublicKey: string;
  timeoutBlockHeight: number;
  /** Where in the swap's data the leg's lockup record lives (a chain swap keeps two). */
  lockupKey: string;
  /** The lockup transaction recorded, if any (contract chains: with the values it locked). */
  lockup?: { txid: string; vout: number; value: number; hex: string; confirmed?: boolean; contract?: ContractLockupValues };
  /**
   * Contract chains: the contract and the addresses the lockup must name. Such a leg has no script, tree or keys
   * (those fields are empty): its lockup, claim and refund go through the chain's ContractChain.
   */
  contract?: ContractSwapData;
  /** Server lockup: where the flag that Ferry decided to lock lives, whether it is set, and the amount to lock. */
  requestedKey?: string;
  requested?: boolean;
  amount?: number;
  /** Server lockup on a contract chain: API units sent to the claim address with the lock (a gasless swap's gas). */
  prepayAmount?: number;
  /** What a user lockup must pay (unknown until the invoice is set). */
  expectedAmount?: number;
  /** Largest unconfirmed user lockup accepted, as priced at creation. */
  maximalZeroConf?: number;
  /** A user lockup of any amount (a zero-amount swap): why one of `value` sat cannot be taken. */
  amountRefusal?: (value: number) => string | undefined;
}

/** The chain of a swap between a chain and Lightning: the pair's base currency. */
const baseChain = (swap: SwapRecord): string => swap.pair.split('/')[0];

/** A lockup leg of a swap with one lockup output; `client` names which of its keys is the client's. */
function singleOutputLeg(swap: SwapRecord, name: LockupLegName, data: SwapOutputData, client: 'claim' | 'refund') {
  return {
    name,
    swap,
    chain: baseChain(swap),
    ...(data.contract !== undefined && { contract: data.contract }),
    script: data.lockupScript,
    address: swap.lockupAddress!,
    tree: data.swapTree,
    legacy: data.legacy,
    clientPublicKey: client === 'claim' ? data.claimPublicKey : data.refundPublicKey,
    timeoutBlockHeight: swap.timeoutBlockHeight!,
  };
}

/** What Ferry locks in a chain swap: as created, or for a zero-amount swap what the user's lockup buys. */
function serverAmountOf(data: ReturnType<typeof chainData>): number | undefined {
  const pricing = data.zeroAmount as ZeroAmountPricing | undefined;
  if (pricing === undefined) return data.server.amount;
  return data.lockup === undefined ? undefined : zeroAmountServerAmount(pricing, data.lockup.value);
}

/** A side of a chain swap: each has its own chain, output and timeout. */
function chainSideLeg(swap: SwapRecord, name: LockupLegName, side: ChainSide, client: 'claim' | 'refund') {
  return {
    name,
    swap,
    chain: side.chain,
    ...(side.contract !== undefined && { contract: side.contract }),
    script: side.lockupScript,
    address: side.address,
    tree: side.swapTree,
    clientPublicKey: client === 'claim' ? side.claimPublicKey : side.refundPublicKey,
    timeoutBlockHeight: side.timeoutBlockHeight,
  };
}

/** The coins the user locks: a submarine swap's lockup, a chain swap's on its `from` chain. */
export function userLockupOf(swap: SwapRecord): LockupLeg {
  if (swap.type === SwapType.Chain) {
    const data = chainData(swap);
    const pricing = data.zeroAmount as ZeroAmountPricing | undefined;
    return {
      ...chainSideLeg(swap, 'userLockup', data.user, 'refund'),
      lockupKey: 'lockup',
      lockup: data.lockup,
      ...(pricing === undefined ? { expectedAmount: data.user.amount } : { amountRefusal: (value: number) => zeroAmountRefusal(pricing, value) }),
      maximalZeroConf: data.maximalZeroConf as number | undefined,
    };
  }
  const data = submarineData(swap);
  return {
    ...singleOutputLeg(swap, 'userLockup', data, 'refund'),
    lockupKey: 'lockup',
    lockup: data.lockup,
    expectedAmount: data.expectedAmount,
    maximalZeroConf: data.pricing.maximalZeroConf,
  };
}

/** The coins Ferry locks: a reverse swap's lockup, a chain swap's on its `to` chain. */
export function serverLockupOf(swap: SwapRecord): LockupLeg {
  if (swap.type === SwapType.Chain) {
    const data = chainData(swap);
    return {
      ...chainSideLeg(swap, 'serverLockup', data.server, 'claim'),
      lockupKey: 'serverLockup',
      lockup: data.serverLockup,
      requestedKey: 'serverLockupRequested',
      requested: data.serverLockupRequested === true,
      amount: data.quotedAmount ?? serverAmountOf(data),
    };
  }
  const data = reverseData(swap);
  return {
    ...singleOutputLeg(swap, 'serverLockup', data, 'claim'),
    lockupKey: 'lockup',
    lockup: data.lockup,
    requestedKey: 'lockupRequested',
    requested: data.lockupRequested === true,
    amount: data.onchainAmount,
    ...(data.gas !== undefined && { prepayAmount: data.gas.amount }),
  };
}

/** Every lockup leg of a swap, by its type. */
export function lockupLegsOf(swap: SwapRecord): LockupLeg[] {
  if (swap.type === SwapType.Chain) return [userLockupOf(swap), serverLockupOf(swap)];
  return swap.type === SwapType.Submarine ? [userLockupOf(swap)] : [serverLockupOf(swap)];
}

/** The leg whose timeout the machine's `timeout` event follows: the one Ferry must act on when it passes. */
export function timeoutLegOf(swap: SwapRecord): LockupLeg {
  return swap.type === SwapType.Submarine ? userLockupOf(swap) : serverLockupOf(swap);
}

export const legChain = (ctx: EngineContext, leg: LockupLeg): ChainBackend => chainOf(ctx, leg.chain);

/** The leg's chain, whichever kind: for what every chain answers (height, block time). */
export const legAnyChain = (ctx: EngineContext, leg: LockupLeg): AnyChain => anyChainOf(ctx, leg.chain);

/** The contract chain of a leg that has `contract`. */
export const legContractChain = (ctx: EngineContext, leg: LockupLeg): ContractChain => contractChainOf(ctx, leg.chain);

/** Ferry's key of the swap, the client's and the tree: what every spend Ferry signs of this output needs. */
export function signerOf(ctx: EngineContext, leg: LockupLeg): SwapSigner {
  const key = ctx.keys.keyAt(leg.swap.keyIndex!);
  return {
    servicePrivateKey: key.privateKey,
    servicePublicKey: key.publicKey,
    clientPublicKey: hex.decode(leg.clientPublicKey),
    tree: leg.tree,
    legacy: leg.legacy,
  };
}

/**
 * Whether a spend of the leg's output took its refund path: the refund leaf of a Taproot output, or a legacy redeem
 * script spent without the preimage (the timeout branch).
 */
export function isRefundSpend(leg: LockupLeg, witness: readonly string[]): boolean {
  if (leg.legacy === undefined) return leg.tree !== undefined && witness.includes(leg.tree.refundLeaf.output);
  const preimageGiven = witness.some((item) => item.length === 64 && hex.encode(sha256(hex.decode(item))) === leg.swap.preimageHash);
  return witness.includes(leg.legacy.redeemScript) && !preimageGiven;
}

/** The recorded lockup as the chain backend spends it. */
export function lockupOutput(leg: LockupLeg): SwapLockup {
  const lockup = leg.lockup!;
  return { txid: lockup.txid, vout: lockup.vout, value: lockup.value, script: leg.script };
}
