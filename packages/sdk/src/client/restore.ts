// Rebuilding the client store from the rescue key alone: the service's restore answer (POST /v2/swap/restore with
// the key's xpub) turned back into records, each output checked first — its tree and address must commit to the key
// we derive at its index and the service's key, and a claimed swap's preimage hash to the preimage we derive — so a
// restored record is as trustworthy as one made at creation.
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import type { RestorableSwapBody, RestoreEvmDetailsBody, RestoreOutputDetailsBody } from '../protocol/index.ts';
import type { SwapOutputTerms } from '../chains/backend.ts';
import { swapChain } from './chains/index.ts';
import type { SwapClient } from './client.ts';
import { equalBytes, fromHex, publicKeyFromHex, sha256, toHex, type KeyPair } from './keys.ts';
import type { ChainRecord, ReverseRecord, SubmarineRecord, SwapOutputRecord, SwapRecord } from './records.ts';
import type { RescueKey } from './rescue-key.ts';
import { refundFileOf, type RefundFile } from './refund-file.ts';
import { serializeTree } from './taproot.ts';
import { check, checkOutput } from './verify.ts';

export interface RestoreResult {
  /** Records rebuilt and stored. */
  restored: SwapRecord[];
  /** Swaps the store knew already (left as they are). */
  known: string[];
  /** Swaps that could not be rebuilt, and why. */
  skipped: { id: string; reason: string }[];
  /** The highest key index the service knows a swap of, -1 when none. */
  highestIndex: number;
  /**
   * Chain swaps into a contract chain (BTC → RBTC): not stored, as their claim is the EVM account's (its wallet's),
   * not the rescue key's, but our UTXO lockup of each is the key's to refund — its refund file, checked as a record's
   * output is, with the swap's status and lockup as the service named them.
   */
  refundable: { file: RefundFile; status: string; lockupTxid?: string }[];
}

/** One output: our key at its index, the service's key, the tree and address checked against both. */
function restoreOutput(client: SwapClient, rescue: RescueKey, kind: SwapOutputTerms['kind'], currency: string, details: RestoreOutputDetailsBody | RestoreEvmDetailsBody | undefined, preimageHash: Uint8Array) {
  check(details !== undefined && details.type === 'utxo', `no ${kind === 'reverse' ? 'claim' : 'refund'} details`);
  const key: KeyPair = rescue.keyAt(details.keyIndex);
  const servicePublicKey = publicKeyFromHex(details.serverPublicKey, 'serverPublicKey');
  const ours = kind === 'reverse' ? { claimPublicKey: key.publicKey, refundPublicKey: servicePublicKey } : { claimPublicKey: servicePublicKey, refundPublicKey: key.publicKey };
  const terms: SwapOutputTerms = { kind, preimageHash, ...ours, timeoutBlockHeight: details.timeoutBlockHeight, servicePublicKey };
  const chain = swapChain(currency);
  const answer = { swapTree: details.tree, lockupAddress: details.lockupAddress, blindingKey: details.blindingKey };
  const built = checkOutput(chain, terms, answer, 'lockupAddress', client.network, `the key at index ${details.keyIndex}`);
  const output: SwapOutputRecord = {
    currency,
    privateKey: toHex(key.privateKey),
    publicKey: toHex(key.publicKey),
    servicePublicKey: toHex(servicePublicKey),
    swapTree: serializeTree(built.tree),
    timeoutBlockHeight: details.timeoutBlockHeight,
    lockupAddress: built.address,
    ...(built.blindingKey !== undefined && { blindingKey: toHex(built.blindingKey) }),
  };
  return { output, keyIndex: details.keyIndex, lockup: details.transaction && { txid: details.transaction.id }, amount: details.amount ?? 0 };
}

/** The preimage we derive for the key at `index`; it must hash to the swap's preimage hash. */
function ourPreimage(rescue: RescueKey, index: number, preimageHash: Uint8Array): string {
  const { preimage } = rescue.preimageAt(index);
  check(equalBytes(sha256(preimage), preimageHash), 'its preimage hash is not the hash of the preimage this rescue key derives: it cannot be claimed from here');
  return toHex(preimage);
}

const invoiceAmountOf = (invoice: string | undefined) => {
  check(invoice !== undefined, 'no invoice');
  const decoded = decodeBolt11(invoice);
  return decoded.amountMsat === undefined ? 0 : Number(decoded.amountMsat / 1000n);
};

function recordOf(client: SwapClient, rescue: RescueKey, swap: RestorableSwapBody): SwapRecord {
  const preimageHash = fromHex(swap.preimageHash, 'preimageHash', 32);
  const base = {
    version: 1 as const,
    id: swap.id,
    serviceUrl: client.api.url,
    network: client.network,
    createdAt: new Date(swap.createdAt * 1000).toISOString(),
    preimageHash: swap.preimageHash,
    history: [{ status: swap.status, at: new Date().toISOString() }],
    status: swap.status,
  };
  if (swap.type === 'submarine') {
    const side = restoreOutput(client, rescue, 'submarine', swap.from, swap.refundDetails, preimageHash);
    const record: SubmarineRecord = {
      ...base,
      ...side.output,
      keyIndex: side.keyIndex,
      type: 'submarine',
      invoice: swap.invoice!,
      invoiceAmount: invoiceAmountOf(swap.invoice),
      expectedAmount: side.amount,
      acceptZeroConf: false,
      ...(side.lockup && { lockup: side.lockup }),
    };
    return record;
  }
  if (swap.type === 'reverse') {
    const side = restoreOutput(client, rescue, 'reverse', swap.to, swap.claimDetails, preimageHash);
    const record: ReverseRecord = {
      ...base,
      ...side.output,
      keyIndex: side.keyIndex,
      type: 'reverse',
      preimage: ourPreimage(rescue, side.keyIndex, preimageHash),
      invoice: swap.invoice!,
      invoiceAmount: invoiceAmountOf(swap.invoice),
      onchainAmount: side.amount,
      ...(side.lockup && { lockup: side.lockup }),
    };
    return record;
  }
  const user = restoreOutput(client, rescue, 'chainUser', swap.from, swap.refundDetails, preimageHash);
  const server = restoreOutput(client, rescue, 'reverse', swap.to, swap.claimDetails, preimageHash);
  const record: ChainRecord = {
    ...base,
    ...user.output,
    keyIndex: user.keyIndex,
    type: 'chain',
    claimSide: { ...server.output, ...(server.lockup && { lockup: server.lockup }) },
    preimage: ourPreimage(rescue, server.keyIndex, preimageHash),
    userLockAmount: user.amount,
    serverLockAmount: server.amount,
    // What the pair charged at creation is not known any more: the agreed amount is what the service locks.
    pair: { rate: 1, percentage: 0, serverMinerFee: 0 },
    ...(user.lockup && { lockup: user.lockup }),
  };
  return record;
}

/**
 * Asks the service for every swap of the rescue key and stores a record of each the store lacks. The store adopts
 * the key when it has none, and hands out key indices above every one the service knows.
 */
export async function restoreFromRescueKey(client: SwapClient, rescue: RescueKey): Promise<RestoreResult> {
  const result: RestoreResult = { restored: [], known: [], skipped: [], highestIndex: -1, refundable: [] };
  const swaps = await client.api.restoreSwaps({ xpub: rescue.xpub });
  for (const swap of swaps) {
    for (const details of [swap.claimDetails, swap.refundDetails]) if (details?.type === 'utxo') result.highestIndex = Math.max(result.highestIndex, details.keyIndex);
    if (client.store?.has(swap.id)) {
      result.known.push(swap.id);
      continue;
    }
    if (swap.type === 'chain' && swap.claimDetails?.type === 'evm') {
      try {
        const user = restoreOutput(client, rescue, 'chainUser', swap.from, swap.refundDetails, fromHex(swap.preimageHash, 'preimageHash', 32));
        result.refundable.push({ file: refundFileOf({ id: swap.id, type: 'chain', ...user.output }), status: swap.status, ...(user.lockup && { lockupTxid: user.lockup.txid }) });
        result.skipped.push({ id: swap.id, reason: `its claim is on ${swap.to}, the EVM account's: only the refund of our lockup is restored (refundable)` });
      } catch (error) {
        result.skipped.push({ id: swap.id, reason: error instanceof Error ? error.message : String(error) });
      }
      continue;
    }
    let record: SwapRecord;
    try {
      record = recordOf(client, rescue, swap);
    } catch (error) {
      // One swap the key cannot take back (another wallet's preimages, a tree that does not check) spoils no other.
      result.skipped.push({ id: swap.id, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (client.store && record.type !== 'reverse') record.refundFiles = client.store.writeRefundFiles(refundFileOf(record));
    client.save(record);
    result.restored.push(record);
  }
  if (client.store?.adoptRescueKey(rescue) && result.highestIndex >= 0) client.store.reserveKeyIndex(result.highestIndex);
  return result;
}
