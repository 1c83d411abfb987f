// Stored swaps as the restore answers see them: per swap, the output the client claims and the one it refunds,
// each with its tree, keys, lockup, timeout and blinding key — or, on a contract chain, the contract, claim
// address, lockup transaction, amount and timelock — so a wallet that lost everything but its keys (or its EVM
// account) can finish or undo it. Pure: reads the swap row only.
import type { SwapRecord } from '../../db/index.ts';
import type { LockupOutpointBody, RescuableSwapBody, RestorableSwapBody, RestoreEvmDetailsBody, RestoreOutputDetailsBody, SwapTreeJson } from '@ferry/sdk/protocol/wire.js';
import type { ContractSwapData } from '@ferry/sdk/swaps/lockup.js';
import { REFUNDABLE_STATUSES, SwapType } from '@ferry/sdk/swaps/status.js';
import { chainData, reverseData, submarineData, type ChainSide } from '../data.ts';

/** An output of the swap seen from the client: the key it uses there and the rest the details carry. */
interface UtxoOutput {
  clientKey: string;
  symbol: string;
  details: Omit<RestoreOutputDetailsBody, 'keyIndex'>;
}

/** A lockup in a swap contract: no key of the client's, its account is in the contract's values. */
interface ContractOutput {
  symbol: string;
  details: RestoreEvmDetailsBody;
}

type ClientOutput = UtxoOutput | ContractOutput;

/** The contract side of a swap: `claimAddress` is the client's when it claims, Ferry's when the client refunds. */
function contractOutput(
  symbol: string,
  contract: ContractSwapData,
  fields: { amount?: number; lockup?: { txid: string }; timeoutBlockHeight: number },
): ContractOutput {
  const details: RestoreEvmDetailsBody = {
    type: 'evm',
    contractAddress: contract.address,
    claimAddress: contract.claimAddress,
    ...(fields.lockup !== undefined && { transaction: { id: fields.lockup.txid } }),
    ...(fields.amount !== undefined && { amount: fields.amount }),
    timeoutBlockHeight: fields.timeoutBlockHeight,
  };
  return { symbol, details };
}

const outpoint = (lockup: { txid: string; vout: number } | undefined): LockupOutpointBody | undefined =>
  lockup && { id: lockup.txid, vout: lockup.vout };

function output(
  clientKey: string,
  symbol: string,
  fields: { tree?: SwapTreeJson; amount?: number; lockup?: { txid: string; vout: number }; lockupAddress: string; serverPublicKey: string; timeoutBlockHeight: number; blindingKey?: string; preimageHash?: string },
): UtxoOutput | undefined {
  // Legacy (v1) outputs have a redeem script, not a tree: nothing a v2 restore can describe.
  if (fields.tree === undefined) return undefined;
  const transaction = outpoint(fields.lockup);
  const details: UtxoOutput['details'] = {
    type: 'utxo',
    tree: fields.tree,
    lockupAddress: fields.lockupAddress,
    serverPublicKey: fields.serverPublicKey,
    timeoutBlockHeight: fields.timeoutBlockHeight,
    ...(fields.amount !== undefined && { amount: fields.amount }),
    ...(transaction !== undefined && { transaction }),
    ...(fields.blindingKey !== undefined && { blindingKey: fields.blindingKey }),
    ...(fields.preimageHash !== undefined && { preimageHash: fields.preimageHash }),
  };
  return { clientKey, symbol, details };
}

const sideOutput = (side: ChainSide, role: 'claim' | 'refund', lockup: { txid: string; vout: number } | undefined, amount: number, preimageHash?: string) =>
  side.contract !== undefined
    ? contractOutput(side.chain, side.contract, { amount, lockup, timeoutBlockHeight: side.timeoutBlockHeight })
    : output(role === 'claim' ? side.claimPublicKey : side.refundPublicKey, side.chain, {
    tree: side.swapTree,
    amount,
    lockup,
    lockupAddress: side.address,
    serverPublicKey: role === 'claim' ? side.refundPublicKey : side.claimPublicKey,
    timeoutBlockHeight: side.timeoutBlockHeight,
    blindingKey: side.blindingKey,
    preimageHash,
  });

/** The swap's outputs the client claims and refunds, with the assets it sends and receives. */
function clientOutputs(swap: SwapRecord): { from: string; to: string; claim?: ClientOutput; refund?: ClientOutput } {
  const [base, quote] = swap.pair.split('/');
  if (swap.type === SwapType.Submarine) {
    const data = submarineData(swap);
    if (data.contract !== undefined) {
      return { from: base, to: quote, refund: contractOutput(base, data.contract, { amount: data.expectedAmount, lockup: data.lockup, timeoutBlockHeight: swap.timeoutBlockHeight ?? 0 }) };
    }
    const refund = output(data.refundPublicKey, base, {
      tree: data.swapTree,
      amount: data.expectedAmount,
      lockup: data.lockup,
      lockupAddress: swap.lockupAddress ?? '',
      serverPublicKey: data.claimPublicKey,
      timeoutBlockHeight: swap.timeoutBlockHeight ?? 0,
      blindingKey: data.blindingKey,
    });
    return { from: base, to: quote, refund };
  }
  if (swap.type === SwapType.Reverse) {
    const data = reverseData(swap);
    if (data.contract !== undefined) {
      return { from: quote, to: base, claim: contractOutput(base, data.contract, { amount: data.onchainAmount, lockup: data.lockup, timeoutBlockHeight: swap.timeoutBlockHeight ?? 0 }) };
    }
    const claim = output(data.claimPublicKey, base, {
      tree: data.swapTree,
      amount: data.onchainAmount,
      lockup: data.lockup,
      lockupAddress: swap.lockupAddress ?? '',
      serverPublicKey: data.refundPublicKey,
      timeoutBlockHeight: swap.timeoutBlockHeight ?? 0,
      blindingKey: data.blindingKey,
      preimageHash: swap.preimageHash,
    });
    return { from: quote, to: base, claim };
  }
  const data = chainData(swap);
  return {
    from: data.user.chain,
    to: data.server.chain,
    refund: sideOutput(data.user, 'refund', data.lockup, data.user.amount),
    claim: sideOutput(data.server, 'claim', data.serverLockup, data.quotedAmount ?? data.server.amount, swap.preimageHash),
  };
}

const unixSeconds = (ms: number) => Math.floor(ms / 1000);

/** How a restore names the client's keys: each searched key's index, and the index of the key that matched. */
export interface KeyIndices {
  indexOf: ReadonlyMap<string, number>;
  fallbackIndex: number;
}

/**
 * A swap as POST /v2/swap/restore answers it. keyIndex: the derivation index of each output's client key, from
 * `indexOf` (every key searched); `fallbackIndex` (the key that matched) when the output's key was not searched.
 * Without key indices (a search by EVM address names no key) the UTXO outputs are left out: the wallet's key
 * search answers them with their index. Contract outputs carry no key.
 */
export function restorableSwap(swap: SwapRecord, keys: KeyIndices | undefined, metadata?: string): RestorableSwapBody | undefined {
  const details = (out: ClientOutput | undefined) => {
    if (out === undefined || !('clientKey' in out)) return out?.details;
    return keys && { ...out.details, keyIndex: keys.indexOf.get(out.clientKey) ?? keys.fallbackIndex };
  };
  const { from, to, claim, refund } = clientOutputs(swap);
  const invoice = swap.type === SwapType.Chain ? undefined : (swap.invoice ?? undefined);
  const claimDetails = details(claim);
  const refundDetails = details(refund);
  if (claimDetails === undefined && refundDetails === undefined) return undefined;
  return {
    id: swap.id,
    type: swap.type as RestorableSwapBody['type'],
    status: swap.status,
    createdAt: unixSeconds(swap.createdAt),
    from,
    to,
    preimageHash: swap.preimageHash,
    ...(invoice !== undefined && { invoice }),
    ...(claimDetails !== undefined && { claimDetails }),
    ...(refundDetails !== undefined && { refundDetails }),
    ...(metadata !== undefined && { metadata }),
  };
}

/** A swap as POST /v2/swap/rescue answers it: only submarine and chain swaps in a refundable status. */
export function rescuableSwap(swap: SwapRecord, indexOf: ReadonlyMap<string, number>, fallbackIndex: number): RescuableSwapBody | undefined {
  if (swap.type === SwapType.Reverse || !(REFUNDABLE_STATUSES as readonly string[]).includes(swap.status)) return undefined;
  const { refund } = clientOutputs(swap);
  // The deprecated rescue has no contract shape: an EVM lockup is refunded from a restore by address.
  if (refund === undefined || !('clientKey' in refund)) return undefined;
  const { tree, amount, transaction, lockupAddress, serverPublicKey, timeoutBlockHeight, blindingKey } = refund.details;
  const invoice = swap.type === SwapType.Submarine ? (swap.invoice ?? undefined) : undefined;
  return {
    id: swap.id,
    type: swap.type as RescuableSwapBody['type'],
    status: swap.status,
    symbol: refund.symbol,
    keyIndex: indexOf.get(refund.clientKey) ?? fallbackIndex,
    preimageHash: swap.preimageHash,
    ...(invoice !== undefined && { invoice }),
    ...(amount !== undefined && { amount }),
    timeoutBlockHeight,
    serverPublicKey,
    ...(blindingKey !== undefined && { blindingKey }),
    tree,
    lockupAddress,
    ...(transaction !== undefined && { transaction }),
    createdAt: unixSeconds(swap.createdAt),
  };
}
