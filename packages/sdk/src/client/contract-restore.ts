// Rebuilding the store's contract-chain (RBTC) records from the EVM account alone: the service's restore by address
// (POST /v2/swap/restore with the account's signed proof) turned back into records — each checked first: the swap
// contract must be the one we talk to, a reverse swap must name our account as claim address and its preimage hash
// must be the hash of a preimage our account derives — so a restored record is as trustworthy as one made at creation.
import { getAddress } from 'ethers';
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import { evmRestoreMessage, type RestorableSwapBody, type RestoreEvmDetailsBody } from '../protocol/index.ts';
import type { ServiceApi } from './api.ts';
import type { ContractChain } from './chains/contract.ts';
import type { ContractSwaps } from './contract-swaps.ts';
import { ServiceError } from './errors.ts';
import { sha256, toHex } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { ContractRecord, ContractReverseRecord, ContractSubmarineRecord } from './records.ts';
import type { ClientStore } from './store.ts';
import { check } from './verify.ts';

/** However many swaps a store made, the search for a reverse swap's preimage index stops here. */
export const MAX_PREIMAGE_INDEX = 100_000;

export interface ContractRestoreResult {
  /** Records rebuilt and stored. */
  restored: ContractRecord[];
  /** Swaps the store knew already (left as they are). */
  known: string[];
  /** Swaps that could not be rebuilt, and why. */
  skipped: { id: string; reason: string }[];
  /**
   * The chain swaps with a contract side naming our account, as the service named them (not stored): what finds a
   * lock of ours again by its preimage hash, to refund it with the service's signature of that swap.
   */
  chains: { id: string; preimageHash: string; status: string; from: string; to: string }[];
}

/** The preimage of reverse swap `index` of the account, and its hash. */
export function derivedPreimage(chain: ContractChain, index: number): { preimage: Uint8Array; preimageHash: Uint8Array } {
  const preimage = chain.preimageAt(index);
  return { preimage, preimageHash: sha256(preimage) };
}

/** The indices at which our account derives these preimage hashes: one pass over the indices, up to the last found. */
function preimageIndices(chain: ContractChain, hashes: readonly string[]): Map<string, number> {
  const wanted = new Set(hashes);
  const found = new Map<string, number>();
  if (!chain.derivesPreimages) return found; // each reverse swap is then skipped, with the reason
  for (let index = 0; index < MAX_PREIMAGE_INDEX && found.size < wanted.size; index++) {
    const hash = toHex(derivedPreimage(chain, index).preimageHash);
    if (wanted.has(hash)) found.set(hash, index);
  }
  return found;
}

const invoiceAmountOf = (invoice: string | undefined): number => {
  check(invoice !== undefined, 'no invoice');
  const decoded = decodeBolt11(invoice);
  return decoded.amountMsat === undefined ? 0 : Number(decoded.amountMsat / 1000n);
};

interface Context {
  api: ServiceApi;
  network: NetworkName;
  chain: ContractChain;
  store?: ClientStore;
}

function evmDetails(chain: ContractChain, details: RestorableSwapBody['claimDetails']): RestoreEvmDetailsBody {
  check(details !== undefined && details.type === 'evm', 'no EVM details');
  check(getAddress(details.contractAddress) === getAddress(chain.contractAddress), `its contract ${details.contractAddress} is not ${chain.contractAddress}, the one we checked`);
  return details;
}

function recordOf(ctx: Context, swap: RestorableSwapBody, indices: Map<string, number>, serviceAddress: string | undefined): ContractRecord {
  const { api, network, chain } = ctx;
  check(swap.type !== 'chain', 'a chain swap with an RBTC side is not restored into the store yet: claim or refund it from the details');
  const base = {
    version: 1 as const,
    id: swap.id,
    serviceUrl: api.url,
    network,
    currency: chain.currency,
    createdAt: new Date(swap.createdAt * 1000).toISOString(),
    account: chain.address,
    preimageHash: swap.preimageHash.toLowerCase(),
    status: swap.status,
    history: [{ status: swap.status, at: new Date().toISOString() }],
  };
  if (swap.type === 'submarine') {
    const details = evmDetails(chain, swap.refundDetails);
    check(details.claimAddress !== undefined, 'no claim address');
    const record: ContractSubmarineRecord = {
      ...base,
      type: 'submarine',
      contract: { address: chain.contractAddress, chainId: chain.chainId, serviceAddress: getAddress(details.claimAddress) },
      timeoutBlockHeight: details.timeoutBlockHeight,
      invoice: swap.invoice!,
      invoiceAmount: invoiceAmountOf(swap.invoice),
      expectedAmount: details.amount ?? 0,
      ...(details.transaction && { lockup: { txHash: details.transaction.id } }),
    };
    return record;
  }
  const details = evmDetails(chain, swap.claimDetails);
  check(details.claimAddress !== undefined && getAddress(details.claimAddress) === getAddress(chain.address), `its claim address ${details.claimAddress} is not our account`);
  const index = indices.get(base.preimageHash);
  check(index !== undefined, 'its preimage hash is not the hash of a preimage this account derives: it cannot be claimed from here');
  const record: ContractReverseRecord = {
    ...base,
    type: 'reverse',
    // Who locks is learnt from the lock when it is seen (ContractSwaps.claim); the known service account until then.
    contract: { address: chain.contractAddress, chainId: chain.chainId, serviceAddress: serviceAddress ?? '' },
    timeoutBlockHeight: details.timeoutBlockHeight,
    preimage: toHex(derivedPreimage(chain, index).preimage),
    preimageIndex: index,
    invoice: swap.invoice!,
    invoiceAmount: invoiceAmountOf(swap.invoice),
    onchainAmount: details.amount ?? 0,
    ...(details.transaction && { lockup: { txHash: details.transaction.id } }),
  };
  return record;
}

/**
 * The service's swaps of our account. A proof is accepted once, and our signature of a second is the same: a restore
 * in the same second as the last one signs the next second.
 */
async function askService(api: ServiceApi, chain: ContractChain): Promise<RestorableSwapBody[]> {
  const address = getAddress(chain.address);
  for (let attempt = 0; ; attempt++) {
    const timestamp = Math.floor(Date.now() / 1000) + attempt;
    const signature = await chain.signMessage(evmRestoreMessage(address, timestamp));
    try {
      return await api.restoreSwaps({ address, timestamp, signature });
    } catch (error) {
      if (attempt > 0 || !(error instanceof ServiceError && error.status === 422 && /used already/.test(error.message))) throw error;
    }
  }
}

/**
 * Asks the service for every swap naming our account (signing the reference's proof), and stores a record of each the
 * store lacks; the store then hands out key indices above every preimage index found.
 */
export async function restoreContractSwaps(swaps: ContractSwaps, ctx: Context, serviceAddress: string | undefined): Promise<ContractRestoreResult> {
  const { api, chain, store } = ctx;
  const result: ContractRestoreResult = { restored: [], known: [], skipped: [], chains: [] };
  const found = await askService(api, chain);
  for (const swap of found) {
    if (swap.type === 'chain') result.chains.push({ id: swap.id, preimageHash: swap.preimageHash.toLowerCase(), status: swap.status, from: swap.from, to: swap.to });
  }
  const reverseHashes = found.filter((swap) => swap.type === 'reverse').map((swap) => swap.preimageHash.toLowerCase());
  const indices = reverseHashes.length > 0 ? preimageIndices(chain, reverseHashes) : new Map<string, number>();
  for (const swap of found) {
    if (store?.hasContract(swap.id)) {
      result.known.push(swap.id);
      continue;
    }
    let record: ContractRecord;
    try {
      record = recordOf(ctx, swap, indices, serviceAddress);
    } catch (error) {
      // One swap we cannot take back spoils no other.
      result.skipped.push({ id: swap.id, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    swaps.save(record);
    result.restored.push(record);
  }
  const highest = Math.max(-1, ...indices.values());
  if (highest >= 0 && store !== undefined) {
    store.rescueKey(); // the index counter lives with the rescue key: made now if the store is new
    store.reserveKeyIndex(highest);
  }
  return result;
}
