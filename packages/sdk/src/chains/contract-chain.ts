// The seam through which the swap legs reach an account/contract chain (the EVM chain, RBTC): there a lockup is
// not an output but a `lock` call of the chain's swap contract, seen as a Lockup event, keyed by the swap's values
// (preimage hash, amount, claim address, refund address, timelock); a claim and a refund are contract calls, and
// a cooperative refund is the claim address' signature of the values, not a MuSig2 partial signature. The legs
// (src/engine/legs) call this where a UTXO chain's leg calls ChainBackend; each chain implements it in its folder.
// Amounts here are in the chain's base unit (wei) unless named API units (10^-8).

/** What a swap contract keys a lockup by: the values of its `lock` call. */
export interface ContractLockupValues {
  /** 64 hex characters, no 0x. */
  preimageHash: string;
  /** Base units (wei), as a decimal string so it survives JSON. */
  amount: string;
  claimAddress: string;
  refundAddress: string;
  /** Block height from which a refund is allowed. */
  timelock: number;
  /**
   * A commitment lockup (`lock` with preimage hash bytes32(0)) that the refund address committed to this swap: its
   * EIP-712 Commit signature (0x, 65 bytes). The contract then keys the lockup by the zero hash, `preimageHash` is
   * the swap's, and the claim goes through the signature (Ferry's engine/commitments.ts).
   */
  commitment?: string;
}

interface ContractEventPlacement {
  txHash: string;
  logIndex: number;
  blockHeight: number;
}

/** A lockup in the chain's native asset, as the contract emitted it. */
export interface ContractLockupEvent extends ContractEventPlacement, ContractLockupValues {
  type: 'lockup';
  /** Set when the lockup cannot count whatever its values (e.g. a token instead of the native asset). */
  refusal?: string;
}

export interface ContractClaimEvent extends ContractEventPlacement {
  type: 'claim';
  preimageHash: string;
  /** 64 hex characters, no 0x: what settles the swap's invoice. */
  preimage: string;
}

export interface ContractRefundEvent extends ContractEventPlacement {
  type: 'refund';
  preimageHash: string;
}

export type ContractSwapEvent = ContractLockupEvent | ContractClaimEvent | ContractRefundEvent;

export interface ContractChainEvents {
  event: ContractSwapEvent;
  /** Events delivered from blocks that left the chain; `complete: false`: some may be unlisted (recheck state). */
  reorg: { forkHeight: number; removed: ContractSwapEvent[]; complete: boolean };
  /** Every event up to this height was delivered (and awaited). */
  block: { height: number };
}

export type ContractChainSubscriber = { [K in keyof ContractChainEvents]?: (event: ContractChainEvents[K]) => void | Promise<void> };

/** A transaction Ferry sent to the contract and saw mined. */
export interface ContractTransaction {
  txHash: string;
  blockHeight: number;
}

/** One of Ferry's transactions to the contract, sent and not yet mined. */
export interface PendingContractTransaction {
  txHash: string;
  /** The chain's tip when it was sent: its wait is counted from here, as a UTXO transaction's from its mempool entry. */
  sentAtHeight: number;
  /** What it does, named as Ferry's own UTXO transactions are. */
  kind: 'lockup' | 'claim' | 'refund';
  /** The swaps it is for, by preimage hash (64 hex characters; a batched claim has several). */
  preimageHashes: string[];
}

/** The contract refused a call of Ferry's before anything was mined (no funds, already claimed, not timed out). */
export class ContractCallRefused extends Error {}

export interface ContractChain {
  readonly kind: 'contract';
  readonly symbol: string;
  /** Target seconds between blocks (timeouts are block heights of this chain). */
  readonly blockSeconds: number;
  /** The contract a lockup of the native asset is made to: the `address` of a swap's answers. */
  readonly contractAddress: string;
  /** Ferry's account: the claim address of the user's lockups, the refund address of its own. */
  readonly serviceAddress: string;

  height(): Promise<number>;
  /** Gas price in GWEI: the chain's fee estimate as the API answers it. */
  feeRate(): Promise<number>;
  /** What Ferry's claim and lockup cost now, in API units (10^-8 of the native asset). */
  swapFees(): Promise<{ claim: number; lockup: number }>;
  /** Base units of an amount in API units. */
  toBaseUnits(apiAmount: number): bigint;
  /** API units of a base-unit amount, or undefined when it is not a whole number of them. */
  toApiUnits(amount: bigint): number | undefined;
  /** Whether `address` is an account address of this chain (checksummed or all one case). */
  isAddress(address: string): boolean;

  subscribe(subscriber: ContractChainSubscriber): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Delivers every event up to the current tip before it resolves. */
  sync(): Promise<void>;

  /** Whether the node has the transaction: mined on its chain or waiting to be (false: a reorg dropped it). */
  isKnown(txHash: string): Promise<boolean>;
  /** Whether the values are locked in the contract now (false: never locked, claimed or refunded). */
  isLocked(values: ContractLockupValues): Promise<boolean>;
  /** Claims with the preimage as the claim address (Ferry); calls due together go out as one claimBatch. */
  claim(values: ContractLockupValues, preimage: string): Promise<ContractTransaction>;
  /**
   * Locks `values.amount` from Ferry's account (the refund address); ContractCallRefused when nothing was sent.
   * `prepay` (base units) goes to the claim address in the same transaction: the gas of a gasless swap.
   */
  lock(values: ContractLockupValues, prepay?: bigint): Promise<ContractTransaction>;
  /** Ferry's transactions sent and not yet mined, oldest first (what the 'unconfirmed' alert measures). */
  pendingTransactions?(): PendingContractTransaction[];
  /**
   * Sends again, unchanged, each of Ferry's pending transactions the node no longer has (evicted from its pool, or
   * dropped by a reorg): the same signed transaction, so nothing is ever sent twice. What became of each.
   */
  sendAgainDropped?(): Promise<{ txHash: string; sent: boolean; error?: string }[]>;
  /** Takes Ferry's lockup back after its timelock. */
  refund(values: ContractLockupValues): Promise<ContractTransaction>;
  /** The claim address' (Ferry's) EIP-712 signature letting the refund address refund at once (`refundCooperative`). */
  signCooperativeRefund(values: ContractLockupValues): Promise<string>;
  /** The lockups of the native asset a mined transaction made in the swap contract; undefined: no such transaction. */
  lockupsIn?(txHash: string): Promise<ContractLockupEvent[] | undefined>;
  /** Whether `values.commitment` is the refund address' Commit signature of these values (the contract's check). */
  checkCommitmentSignature?(values: ContractLockupValues & { commitment: string }): Promise<boolean>;
}

export const isContractChain = (chain: object | undefined): chain is ContractChain => (chain as { kind?: unknown } | undefined)?.kind === 'contract';
