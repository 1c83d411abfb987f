// The client's side of a contract chain (RBTC on an EVM chain), beside SwapChain (index.ts): there a swap is an
// output built from keys and a tree; here it is an entry of a swap contract, locked, claimed and refunded by calls
// from the user's own account. The contract flows (contract-swaps.ts, follow-contract.ts) are written over this
// interface; evm.ts implements it with ethers and boltz-core's EtherSwap.

/** The values a lockup is known by in the contract: what claim, refund and refundCooperative take. */
export interface ContractLock {
  /** hex, no 0x, lower case */
  preimageHash: string;
  /** The chain's base unit (wei). */
  amount: bigint;
  claimAddress: string;
  refundAddress: string;
  timelock: number;
}

/** A lockup as the contract's Lockup event logged it. */
export interface LoggedLockup extends ContractLock {
  txHash: string;
  blockHeight: number;
}

/** A mined transaction of the user's account and what its gas cost, in the chain's base unit. */
export interface ContractTx {
  txHash: string;
  blockHeight: number;
  fee: bigint;
}

export interface ContractChain {
  readonly currency: string;
  readonly chainId: number;
  /** The swap contract (EtherSwap), checked to run boltz-core's code. */
  readonly contractAddress: string;
  /** The user's account: refund address of its locks, claim address of the service's. */
  readonly address: string;
  /** The chain's amount (wei) of an API amount (10^-8). */
  toChainAmount(apiAmount: number): bigint;
  /** The address in its canonical form; throws for anything that is not one. */
  normalizeAddress(address: string): string;
  height(): Promise<number>;
  balance(address?: string): Promise<bigint>;
  /** Locks `amount` for the claim address, with the user's account as refund address. */
  lock(values: Omit<ContractLock, 'refundAddress'>): Promise<ContractTx>;
  /** Claims a lockup naming the user's account as claim address. */
  claim(preimage: string, values: ContractLock): Promise<ContractTx>;
  /** Refunds the user's lockup once its timelock is reached. */
  refund(values: ContractLock): Promise<ContractTx>;
  /** Whether `signature` is the claim address' EIP-712 consent to refund exactly these values now. */
  isRefundSignature(values: ContractLock, signature: string): boolean;
  /** Refunds before the timelock with the claim address' EIP-712 signature (checked first: a forgery costs no gas). */
  refundCooperative(values: ContractLock, signature: string): Promise<ContractTx>;
  /** Whether these exact values are locked: neither claimed nor refunded (nor never locked). */
  isLocked(values: ContractLock): Promise<boolean>;
  /** Lockups logged with this refund address (default the user's account) that are still locked. */
  lockupsOf(refundAddress?: string): Promise<LoggedLockup[]>;
  /** Every lockup logged for a preimage hash, locked or not. */
  lockupsFor(preimageHash: string): Promise<LoggedLockup[]>;
  /** The account's EIP-191 personal_sign of `message` (65 bytes, 0x hex): proves the account to the service. */
  signMessage(message: string): Promise<string>;
  /** Whether preimageAt can derive: a browser wallet's account needs a preimage key given (it never shows its own). */
  readonly derivesPreimages: boolean;
  /**
   * The preimage of our reverse swap number `index`: derived from the account's key, which alone can derive it, so a
   * restore by the account's address claims what a lost store was to claim.
   */
  preimageAt(index: number): Uint8Array;
  close(): void;
}

/** Currencies whose swaps live in a contract; their SwapClient calls are on `client.contracts(currency)`. */
export const CONTRACT_CURRENCIES: readonly string[] = ['RBTC'];

export const isContractCurrency = (currency: string): boolean => CONTRACT_CURRENCIES.includes(currency);
