// What the client keeps about each swap: everything needed to finish it, claim it or refund it without the
// service's help (keys, preimage, tree, timeout), plus what it has seen and done. A chain swap has two outputs: the
// record's own fields are the user's lockup (refunded like a submarine swap's), `claimSide` is Ferry's (claimed like
// a reverse swap's).
import type { NetworkName } from './network.ts';
import type { SerializedSwapTree, SwapType } from './types.ts';

export type SpendPath = 'key' | 'script';

export interface SpendRecord {
  txid: string;
  path: SpendPath;
  /** Where the coins went. */
  address: string;
  /** What the output holds, sat. */
  amount: number;
  fee: number;
}

interface SwapRecordBase {
  /** Format of this record. */
  version: 1;
  id: string;
  type: SwapType;
  serviceUrl: string;
  network: NetworkName;
  /** Symbol of the chain the swap output lives on. */
  currency: string;
  createdAt: string; // ISO 8601
  /** Our key for this swap (refund key of submarine swaps, claim key of reverse swaps), hex. */
  privateKey: string;
  publicKey: string;
  /** Index of privateKey under the rescue key (m/44/0/0/0/index); absent for a random key. */
  keyIndex?: number;
  /** The service's key: claim key of submarine swaps, refund key of reverse swaps. */
  servicePublicKey: string;
  preimageHash: string;
  swapTree: SerializedSwapTree;
  timeoutBlockHeight: number;
  /** The swap output's address, checked against the tree and both keys. */
  lockupAddress: string;
  /** Liquid: the private key (hex) the lockup address is blinded to; it unblinds the lockup. */
  blindingKey?: string;
  /** Last status heard from the service, and every change with when it was heard. */
  status?: string;
  history: { status: string; at: string }[];
  /** The transaction that funded the swap output, once seen. */
  lockup?: { txid: string };
  /** Where claims or refunds pay to, once chosen. */
  destination?: string;
}

export interface SubmarineRecord extends SwapRecordBase {
  type: 'submarine';
  invoice: string;
  invoiceAmount: number;
  /** What to send to lockupAddress, sat. */
  expectedAmount: number;
  acceptZeroConf: boolean;
  bip21?: string;
  /** Learned once the service paid the invoice: the proof of payment. */
  preimage?: string;
  /** We gave the service our partial signature for its key-path claim. */
  cosigned?: boolean;
  refund?: SpendRecord;
  /** Where its refund files (.json and .png) were saved. */
  refundFiles?: { json: string; png: string };
}

export interface ReverseRecord extends SwapRecordBase {
  type: 'reverse';
  preimage: string;
  invoice: string;
  invoiceAmount: number;
  /** What the service locks, sat; the claim pays this minus its fee. */
  onchainAmount: number;
  claim?: SpendRecord;
}

/** One swap output as the client knows it: its chain, our key and the service's, its tree, timeout and address. */
export interface SwapOutputRecord {
  currency: string;
  privateKey: string;
  publicKey: string;
  servicePublicKey: string;
  swapTree: SerializedSwapTree;
  timeoutBlockHeight: number;
  lockupAddress: string;
  blindingKey?: string;
}

export interface ChainRecord extends SwapRecordBase {
  type: 'chain';
  /** Ferry's lockup on the `to` chain, which we claim with the preimage; `currency` is the `from` chain. */
  claimSide: SwapOutputRecord & { lockup?: { txid: string } };
  preimage: string;
  /** What we lock, sat; 0 in a zero-amount swap, whose amounts are fixed when the service sees our lockup. */
  userLockAmount: number;
  /** What the service locks for it, sat; 0 in a zero-amount swap. An accepted quote replaces it. */
  serverLockAmount: number;
  bip21?: string;
  /** The pair as advertised at creation: what the service locks is checked against its rate and fees. */
  pair: { rate: number; percentage: number; serverMinerFee: number };
  /** A new amount the service quoted for what we locked, and we accepted. */
  quote?: { amount: number; acceptedAt: string };
  claim?: SpendRecord;
  refund?: SpendRecord;
  refundFiles?: { json: string; png: string };
}

export type SwapRecord = SubmarineRecord | ReverseRecord | ChainRecord;

/** Records of swaps with a lockup of ours, which a refund can take back. */
export type RefundableRecord = SubmarineRecord | ChainRecord;

/** A claim or refund on a contract chain: the transaction, how it went, what it moved (wei, as decimal text). */
export interface ContractSpendRecord {
  txHash: string;
  path: 'claim' | 'cooperative' | 'timelock';
  amount: string;
  fee: string;
}

/**
 * A swap on a contract chain (RBTC): no keys, tree or address of its own, only the contract's values. Our side is an
 * account (refund address of our lock, claim address of the service's), whose key the client is given, never stores.
 */
interface ContractRecordBase {
  version: 1;
  id: string;
  type: 'submarine' | 'reverse';
  serviceUrl: string;
  network: NetworkName;
  currency: string;
  createdAt: string; // ISO 8601
  /** The swap contract, its chain, and the service's account: claim address of our lock, refund address of its. */
  contract: { address: string; chainId: number; serviceAddress: string };
  /** Our account. */
  account: string;
  preimageHash: string;
  timeoutBlockHeight: number;
  status?: string;
  history: { status: string; at: string }[];
  /** The lock transaction, once sent (submarine) or seen (reverse). */
  lockup?: { txHash: string };
}

export interface ContractSubmarineRecord extends ContractRecordBase {
  type: 'submarine';
  invoice: string;
  invoiceAmount: number;
  /** What we lock, in API units (× 10^10 wei). */
  expectedAmount: number;
  preimage?: string;
  refund?: ContractSpendRecord;
}

export interface ContractReverseRecord extends ContractRecordBase {
  type: 'reverse';
  preimage: string;
  /** The key index the preimage was derived at from the account's key (ContractChain.preimageAt); none when random. */
  preimageIndex?: number;
  invoice: string;
  invoiceAmount: number;
  /** What the service locks, in API units; the claim pays it all, its gas paid by our account. */
  onchainAmount: number;
  claim?: ContractSpendRecord;
}

export type ContractRecord = ContractSubmarineRecord | ContractReverseRecord;

/**
 * A chain swap with one side on a contract chain (RBTC) and the other on a UTXO chain (BTC, L-BTC). The contract side
 * is the service's lock we claim into our account (`to` is the contract chain) or our lock, whose claim address is
 * the service's and whose refund after the timelock is ours (`from` is); the UTXO side is an output with our key in
 * it as in a chain swap between two UTXO chains: ours to refund (`from` is the UTXO chain), or the service's to claim.
 */
export interface ContractChainRecord {
  version: 1;
  id: string;
  type: 'chain';
  serviceUrl: string;
  network: NetworkName;
  from: string;
  to: string;
  createdAt: string; // ISO 8601
  preimage: string;
  preimageHash: string;
  /** Index of the UTXO side's key (and of the preimage) under the rescue key; absent when random. */
  keyIndex?: number;
  /** What we lock and what the service locks, in API units (sat; × 10^10 wei on the contract side). */
  userLockAmount: number;
  serverLockAmount: number;
  pair: { rate: number; percentage: number; serverMinerFee: number };
  contractSide: {
    currency: string;
    /** Whose lock it is: ours (`from` is the contract chain) or the service's. */
    lockedBy: 'user' | 'service';
    contract: { address: string; chainId: number; serviceAddress: string };
    account: string;
    timeoutBlockHeight: number;
    lockup?: { txHash: string };
    claim?: ContractSpendRecord;
    refund?: ContractSpendRecord;
  };
  utxoSide: SwapOutputRecord & {
    lockedBy: 'user' | 'service';
    lockup?: { txid: string };
    bip21?: string;
    claim?: SpendRecord;
    refund?: SpendRecord;
  };
  /** The service's key-path claim of our UTXO lockup was co-signed. */
  cosigned?: boolean;
  /** Where the refund files of our UTXO lockup (X → RBTC) were saved. */
  refundFiles?: { json: string; png: string };
  status?: string;
  history: { status: string; at: string }[];
}

/** Notes a status in the record; returns false when it is the one already known. */
export function noteStatus(record: SwapRecord | ContractRecord | ContractChainRecord, status: string, at = new Date()): boolean {
  if (record.status === status) return false;
  record.status = status;
  record.history.push({ status, at: at.toISOString() });
  return true;
}
