// The one interface through which the engine and the API reach a chain: reading it, following it, paying from the
// operator wallet and building the swap transactions Ferry signs. Each chain implements it in src/chains/<chain>/;
// nothing here names a chain's own formats (scripts, addresses and transactions travel as hex and strings).
import type { SwapMusig } from '../keys/index.ts';
import type { SwapTreeJson } from '../protocol/wire.ts';
import type { ChainSubscriber, LockupEvent } from './events.ts';

/** A spend built by a chain's spend builders (src/chains/<chain>/spends.ts), shared by Ferry and the client SDK. */
export interface BuiltTransaction {
  txid: string;
  hex: string;
  fee: bigint;
  /** Value of the output to the destination. */
  amount: bigint;
  /** The virtual size the chain's fee policy counts. */
  vsize: number;
  lockTime: number;
}

/** How a spend pays its fee: a rate (sat/vbyte) applied to its real virtual size, or a fixed amount (sat). */
export interface FeeChoice {
  feeRate: number;
  /** Overrides feeRate. */
  fee?: bigint;
}

/** A transaction as the API answers it. */
export interface ChainTransaction {
  hex: string;
  confirmations?: number;
}

export class TransactionNotFound extends Error {}

/** The node refused a transaction; `message` is its reason, as it said it. */
export class TransactionRejected extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** The operator wallet refused to send, and nothing was sent (no funds, bad amount, wallet locked). */
export class WalletRefused extends Error {}

/** Why a transaction a client asks Ferry to co-sign is unusable. */
export type ClientTransactionFault = 'unparsable' | 'tooManyInputs' | 'index' | 'unknownOutputs';

export class ClientTransactionError extends Error {
  constructor(
    readonly fault: ClientTransactionFault,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Most inputs a transaction a client asks Ferry to sign may have: signing looks up every input's previous output
 * (one node call each), so a huge batch would be a cheap way to keep the node and the swap's lock busy.
 */
export const MAX_CLIENT_INPUTS = 100;

/** ClientTransactionError unless a client's transaction of `inputCount` inputs may be signed at input `index`. */
export function checkClientInput(inputCount: number, index: number): void {
  if (inputCount > MAX_CLIENT_INPUTS) {
    throw new ClientTransactionError('tooManyInputs', `transaction has too many inputs: ${inputCount} (at most ${MAX_CLIENT_INPUTS})`);
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= inputCount) throw new ClientTransactionError('index', 'no such input');
}

/** What a chain's watcher offers: watched scripts and outpoints reported to subscribers, blocks and reorgs. */
export interface ChainWatch {
  watchScript(scriptHex: string): void;
  unwatchScript(scriptHex: string): void;
  watchOutpoint(txid: string, vout: number): void;
  unwatchOutpoint(txid: string, vout: number): void;
  subscribe(subscriber: ChainSubscriber): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One round now: every block and mempool transaction the node has is reported before this resolves. */
  sync(): Promise<void>;
}

/** An output paying a swap's lockup script. */
export interface SwapLockup {
  txid: string;
  vout: number;
  /** sat */
  value: number;
  /** hex */
  script: string;
}


/**
 * The hash time-locked output of one swap lockup. `kind` picks the claim leaf and the client's key: a submarine
 * lockup (submarine-style leaf, Ferry claims; the client's key is its refund key), a reverse lockup (reverse-style
 * leaf checking the preimage's size, the client claims with its claim key) or a chain swap's user lockup (the
 * reverse-style leaf as chain swaps use on both sides, Ferry claims; the client's key is its refund key).
 */
export interface SwapOutputTerms {
  kind: 'submarine' | 'reverse' | 'chainUser';
  /** Taproot unless asked otherwise: legacy outputs (API v1) are a redeem script in P2SH-P2WSH or P2WSH. */
  outputKind?: SwapOutputKind;
  preimageHash: Uint8Array;
  claimPublicKey: Uint8Array;
  refundPublicKey: Uint8Array;
  timeoutBlockHeight: number;
  /** Ferry's key; the key-path key aggregates [service, client] in that order. */
  servicePublicKey: Uint8Array;
  /** Ferry's private key, when the caller is Ferry: the aggregate is then computed faster (serviceSwapOutputKey). */
  servicePrivateKey?: Uint8Array;
  /** Liquid reverse swaps: the covenant claim leaf's commitments (output 0's script, amount and asset). */
  claimCovenant?: ClaimCovenantTerms;
}

export interface ClaimCovenantTerms {
  outputScript: Uint8Array;
  expectedAmount: number;
  /** Asset id as displayed (L-BTC's). */
  assetHash: string;
}

/** The client's key in the key path, [service, client]: the claim key of a reverse swap, the refund key of a submarine one. */
export const swapClientKey = (terms: Pick<SwapOutputTerms, 'kind' | 'claimPublicKey' | 'refundPublicKey'>): Uint8Array =>
  terms.kind === 'reverse' ? terms.claimPublicKey : terms.refundPublicKey;

export type SwapOutputKind = 'taproot' | 'legacy';

/**
 * A legacy (non-Taproot) swap output: boltz-core's redeem script, nested in P2SH (a submarine lockup, as v1 clients
 * expect) or bare P2WSH (a reverse lockup). No key path: it is spent only through the script, by either side alone.
 */
export interface LegacyScript {
  outputType: 'p2wsh' | 'p2sh-p2wsh';
  /** hex */
  redeemScript: string;
}

export interface SwapOutput {
  /** Taproot outputs only. */
  tree?: SwapTreeJson;
  /** Legacy outputs only. */
  legacy?: LegacyScript;
  /** The output script, hex. */
  script: string;
  address: string;
  /** Confidential chains: the private key that blinds the address, hex; the client unblinds the lockup with it. */
  blindingKey?: string;
}

/** Ferry's key in a swap output, the client's, and the tree: what every spend Ferry signs needs. */
export interface SwapSigner {
  servicePrivateKey: Uint8Array;
  servicePublicKey: Uint8Array;
  clientPublicKey: Uint8Array;
  /** Taproot outputs: the script tree. */
  tree?: SwapTreeJson;
  /** Legacy outputs: the redeem script (no MuSig2, no key path). */
  legacy?: LegacyScript;
}

/** The script tree of a Taproot output or signer; NoKeyPath for a legacy one. */
export function treeOf(output: { tree?: SwapTreeJson }): SwapTreeJson {
  if (output.tree === undefined) throw new NoKeyPath();
  return output.tree;
}

/** A legacy output has no key path: asking for a MuSig2 session or a key-path spend of one is a bug. */
export class NoKeyPath extends Error {
  constructor() {
    super('a legacy swap output has no key path');
  }
}

export interface SignedTransaction {
  txid: string;
  hex: string;
}

/** A spend of one swap lockup through the key path, waiting for the aggregated MuSig2 signature. */
export interface UnsignedKeyPathSpend {
  /** Unsigned transaction, hex. */
  hex: string;
  /** What the key-path signature signs. */
  sighash: Uint8Array;
}

/** A client's transaction Ferry is asked to co-sign at one input. */
export interface ClientSpend {
  /** The outpoint the input to sign spends. */
  input: { txid: string; vout: number };
  /** Looks up every spent output (ClientTransactionError 'unknownOutputs'): the signed input's script and sighash. */
  sighash(): Promise<{ script: string; sighash: Uint8Array }>;
}

export interface TransactionInput {
  txid: string;
  vout: number;
  sequence: number;
}

/** Typical virtual sizes of the swap transactions on this chain, for fee estimates in pair prices. */
export interface TypicalSizes {
  /** The service's script-path claim of a user lockup. */
  claim: number;
  /** The service's lockup transaction. */
  serverLockup: number;
  /** The client's key-path claim of the service's lockup. */
  clientClaim: number;
}

export interface ChainBackend {
  /** The currency symbol, e.g. BTC. */
  readonly symbol: string;
  readonly watcher: ChainWatch;
  readonly typicalSizes: TypicalSizes;
  /** The same for legacy (v1) swap outputs, where the chain has them: script-path spends of P2WSH redeem scripts. */
  readonly legacySizes?: TypicalSizes;
  /** Target seconds between blocks, for timeout ETAs and to compare timeouts with Lightning's (Bitcoin) blocks. */
  readonly blockSeconds: number;

  height(): Promise<number>;
  /** The operator wallet's confirmed balance of the chain's own asset, sat (for the admin CLI). */
  walletBalance?(): Promise<number>;
  /** UNIX time of the block at a height. */
  blockTime(height: number): Promise<number>;
  /** sat/vbyte for confirmation within two blocks: the one fee estimate of this chain. */
  feeRate(): Promise<number>;
  /** TransactionNotFound when the node does not know it. */
  getTransaction(txid: string): Promise<ChainTransaction>;
  /** Broadcasts as given; a refusal is TransactionRejected with the node's reason. */
  broadcast(txHex: string): Promise<string>;
  /** Broadcasts; a transaction the node already has counts as broadcast, so a replay after a crash is harmless. */
  ensureBroadcast(txHex: string): Promise<string>;
  /** Whether the node knows the transaction (mempool or chain). */
  isKnown(txid: string): Promise<boolean>;
  /** Confirmations of an unspent output (0: unconfirmed), or undefined when it is spent (mempool included) or absent. */
  unspentConfirmations(txid: string, vout: number): Promise<number | undefined>;
  /** sat/vbyte of an unconfirmed transaction, or undefined when it is not in the mempool. */
  mempoolFeeRate(txid: string): Promise<number | undefined>;
  /** An unconfirmed transaction's fee rate (sat/vbyte) and the chain height when it entered the mempool. */
  mempoolEntry(txid: string): Promise<{ feeRate: number; height: number } | undefined>;
  transactionInputs(txHex: string): TransactionInput[];
  /** Output scripts (hex) the inputs of a transaction spend, for those the node knows. */
  spentScripts(txHex: string): Promise<string[]>;
  addressOf(scriptHex: string): string;
  /** The BIP21-style payment URI wallets scan to pay `amount` sat to `address`. */
  paymentUri(address: string, amount: number, label: string): string;

  /** Pays `value` sat to a swap output from the operator wallet; WalletRefused when nothing was sent. */
  sendToLockup(output: { address: string; script: string }, value: number): Promise<SwapLockup & { hex: string }>;

  /** Whether swapOutput builds legacy outputs (outputKind 'legacy') on this chain. */
  readonly legacyOutputs?: boolean;
  swapOutput(terms: SwapOutputTerms): SwapOutput;
  /** MuSig2 of [service, client] tweaked the way this chain's Taproot commits to the swap tree. */
  musig(signer: SwapSigner): SwapMusig;
  /** The service's claim through the claim leaf with the preimage, to the operator wallet (at `feeRate` sat/vbyte if given). */
  scriptPathClaim(lockup: SwapLockup, signer: SwapSigner, preimage: Uint8Array, feeRate?: number): Promise<SignedTransaction>;
  /** The service's refund through the refund leaf (nLockTime = timeout), to the operator wallet (at `feeRate` if given). */
  scriptPathRefund(lockup: SwapLockup, signer: SwapSigner, timeoutBlockHeight: number, feeRate?: number): Promise<SignedTransaction>;
  /**
   * Replaces Ferry's unconfirmed lockup (a wallet payment) by the same payment at `feeRate` sat/vbyte (the node
   * wallet's bumpfee); TransactionRejected when the wallet or node refuses. The replacement, paying the same output.
   */
  bumpLockup(lockup: SwapLockup, feeRate: number): Promise<SwapLockup & { hex: string }>;
  /**
   * Child pays for parent: spends the operator wallet's change output of Ferry's unconfirmed lockup back to the
   * wallet, paying enough that lockup and child together reach `feeRate` sat/vbyte (the wallet's ancestor-aware
   * funding), for a lockup the wallet cannot replace. Undefined when the lockup has no unspent change of the
   * wallet's: its other output is the swap's, which Ferry alone cannot spend. TransactionRejected on a refusal.
   */
  payForLockup(lockup: SwapLockup, feeRate: number): Promise<SignedTransaction | undefined>;
  /** A key-path sweep of a lockup to the operator wallet, to be signed with the client (MuSig2). */
  keyPathSweep(lockup: SwapLockup): Promise<UnsignedKeyPathSpend>;
  withKeyPathSignature(unsignedHex: string, signature: Uint8Array): SignedTransaction;
  /** ClientTransactionError for a transaction that cannot be parsed, has too many inputs, or no input `index`. */
  clientSpend(txHex: string, index: number): ClientSpend;
}

/** The chains Ferry serves, by symbol. */
export type ChainRegistry = ReadonlyMap<string, ChainBackend>;

/** Whether a lockup seen by the watcher replaces-by-fee-capable: any input with nSequence below 0xfffffffe. */
export function signalsRbf(chain: ChainBackend, event: Pick<LockupEvent, 'txHex'>): boolean {
  return chain.transactionInputs(event.txHex).some((input) => input.sequence < 0xfffffffe);
}
