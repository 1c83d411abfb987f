// The JSON the swap interface exchanges (v2 REST, WebSocket, SSE and the v1 calls Ferry serves): one declaration
// of each shape, read by the API, the engine façade and the client SDK alike (REFERENCE.md, the OpenAPI document).

export interface SwapTreeLeafJson {
  version: number;
  output: string; // hex
}
export interface SwapTreeJson {
  claimLeaf: SwapTreeLeafJson;
  refundLeaf: SwapTreeLeafJson;
}

/** The status object of GET /v2/swap/{id}, WebSocket updates (plus `id`) and SSE data. */
export interface SwapStatusBody {
  status: string;
  zeroConfRejected?: boolean;
  transaction?: { id: string; hex?: string; eta?: number };
  failureReason?: string;
  failureDetails?: { expected: number; actual: number };
}

export interface SubmarinePairBody {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number; maximalZeroConf: number };
  fees: { percentage: number; minerFees: number };
}
export interface ReversePairBody {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number };
  fees: { percentage: number; minerFees: { lockup: number; claim: number } };
}

/** An entry of GET /v2/swap/chain: a chain → chain pair. */
export interface ChainPairBody {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number; maximalZeroConf: number };
  fees: { percentage: number; minerFees: { server: number; user: { claim: number; lockup: number } } };
}

/** Pair lists of v2: { [from]: { [to]: pair } }. */
export type PairList<P> = Record<string, Record<string, P>>;

/** GET /v2/swap/submarine/{id}/transaction and .../reverse/{id}/transaction (timeoutEta: submarine only). */
export interface LockupTransactionBody {
  id: string;
  hex: string;
  timeoutBlockHeight: number;
  timeoutEta?: number;
}

/** GET /v2/swap/submarine/{id}/claim: what the client signs for Ferry's cooperative claim. */
export interface SubmarineClaimDetailsBody {
  preimage: string;
  pubNonce: string;
  publicKey: string;
  transactionHash: string;
}

/** POST /v2/swap/submarine/{id}/refund. */
export interface RefundRequest {
  pubNonce: string;
  transaction: string;
  index: number;
}

/** POST /v2/swap/chain: at most one of the amounts; neither makes a zero-amount swap, priced at the lockup. */
export interface CreateChainRequest {
  from: string;
  to: string;
  preimageHash: string;
  /** UTXO `to` chain: the client's claim key, hex. */
  claimPublicKey?: string;
  /** UTXO `from` chain: the client's refund key, hex (an EVM lock names its refund address). */
  refundPublicKey?: string;
  /** EVM `to` chain: the account Ferry's lock can be claimed to. */
  claimAddress?: string;
  userLockAmount?: number;
  serverLockAmount?: number;
  pairHash?: string;
  referralId?: string;
}

/** One side of a chain swap in POST /v2/swap/chain's answer. */
export interface ChainSwapDetailsBody {
  swapTree: SwapTreeJson;
  lockupAddress: string;
  serverPublicKey: string;
  timeoutBlockHeight: number;
  amount: number;
  /** Liquid: the private key blinding the lockup address, hex. */
  blindingKey?: string;
  /** The user's side only. */
  bip21?: string;
}

/** The EVM side of a chain swap: the contract and the addresses of its `lock`, no keys or tree. */
export interface EvmChainSwapDetailsBody {
  /** The swap contract (EtherSwap). */
  lockupAddress: string;
  /** Who can claim: Ferry's account on the user's side, the client's on Ferry's. */
  claimAddress: string;
  /** Ferry's side: Ferry's account, the refund address of its lock. */
  refundAddress?: string;
  /** EVM block height: the lock's timelock. */
  timeoutBlockHeight: number;
  amount: number;
}

/** A chain swap with an EVM side: that side's details are EvmChainSwapDetailsBody. */
export interface CreateEvmChainResponse {
  id: string;
  referralId?: string;
  claimDetails: ChainSwapDetailsBody | EvmChainSwapDetailsBody;
  lockupDetails: ChainSwapDetailsBody | EvmChainSwapDetailsBody;
}

export interface CreateChainResponse {
  id: string;
  referralId?: string;
  /** Ferry's lockup, which the client claims. */
  claimDetails: ChainSwapDetailsBody;
  /** The client's lockup. */
  lockupDetails: ChainSwapDetailsBody;
}

/** GET /v2/swap/chain/{id}/transactions. */
export interface ChainTransactionsBody {
  userLock?: { transaction: { id: string; hex: string }; timeout: { blockHeight: number; eta?: number } };
  serverLock?: { transaction: { id: string; hex: string }; timeout: { blockHeight: number; eta?: number } };
}

/** POST /v2/swap/chain/{id}/claim: the preimage, and the client's claim of Ferry's lockup to co-sign. */
export interface ChainClaimRequest {
  preimage?: string;
  /** The client's partial signature of Ferry's claim from GET .../claim. */
  signature?: PartialSignatureBody;
  toSign?: RefundRequest;
}

/** GET /v2/swap/chain/{id}/claim: Ferry's claim of the user's lockup, for the client to sign. */
export interface ChainClaimDetailsBody {
  pubNonce: string;
  publicKey: string;
  transactionHash: string;
}

/** POST /v2/swap/reverse/{id}/claim: the preimage, and the client's key-path claim to co-sign if it wants one. */
export interface ReverseClaimRequest {
  preimage: string;
  pubNonce?: string;
  transaction?: string;
  index?: number;
}

/** POST /v2/swap/submarine/{id}/invoice. */
export interface SetInvoiceResponse {
  bip21?: string;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
}

export interface CreateSubmarineRequest {
  from: string;
  to: string;
  invoice?: string;
  preimageHash?: string; // hex, when the invoice comes later
  refundPublicKey?: string; // hex, 33 bytes compressed; UTXO chains only (an EVM lockup names its refund address)
  pairHash?: string;
  referralId?: string;
}
export interface CreateSubmarineResponse {
  id: string;
  address: string;
  swapTree: SwapTreeJson;
  claimPublicKey: string;
  timeoutBlockHeight: number;
  /** Liquid: the private key blinding the address, hex. */
  blindingKey?: string;
  // only when created with an invoice:
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

export interface CreateReverseRequest {
  from: string;
  to: string;
  preimageHash: string;
  /** UTXO chains: the client's claim key, hex. */
  claimPublicKey?: string;
  /** EVM: the account the lockup can be claimed to. */
  claimAddress?: string;
  invoiceAmount?: number; // exactly one of invoiceAmount / onchainAmount
  onchainAmount?: number;
  pairHash?: string;
  referralId?: string;
  description?: string;
  /** EVM: a second invoice buys gas Ferry sends to claimAddress with its lock (`prepayMinerFee`: the earlier name). */
  gasless?: boolean;
  prepayMinerFee?: boolean;
}
export interface CreateReverseResponse {
  id: string;
  invoice: string;
  swapTree: SwapTreeJson;
  lockupAddress: string;
  refundPublicKey: string;
  timeoutBlockHeight: number;
  onchainAmount: number;
  /** Liquid: the private key blinding the lockup address, hex. */
  blindingKey?: string;
}

/** A submarine swap from an EVM chain: the client calls the contract's `lock` with these; no keys, no tree. */
export interface CreateEvmSubmarineResponse {
  id: string;
  /** The swap contract (EtherSwap). */
  address: string;
  /** Ferry's account: the claim address the client's `lock` must name. */
  claimAddress: string;
  /** EVM block height: the lock's timelock. */
  timeoutBlockHeight: number;
  // only when created with an invoice:
  expectedAmount?: number;
  acceptZeroConf?: boolean;
}

/** A reverse swap to an EVM chain: Ferry locks in the contract for the request's claimAddress. */
export interface CreateEvmReverseResponse {
  id: string;
  invoice: string;
  /** The swap contract (EtherSwap). */
  lockupAddress: string;
  /** Ferry's account: the refund address of its lock. */
  refundAddress: string;
  timeoutBlockHeight: number;
  onchainAmount: number;
  /** `gasless`: the gas sent to claimAddress with the lock (API units) and the invoice paying for it. */
  gasAssetAmount?: number;
  gaslessInvoice?: string;
  /** `prepayMinerFee`: the same under the earlier names. */
  prepayMinerFeeAmount?: number;
  minerFeeInvoice?: string;
}

/** Chain fees of one asset in a v1 pair: the submarine claim (`normal`) and the reverse lockup and claim. */
export interface V1MinerFees {
  normal: number;
  reverse: { claim: number; lockup: number };
}

/** An entry of `pairs` in v1 GET /getpairs, keyed by pair id ("BTC/BTC"). */
export interface V1PairBody {
  hash: string;
  rate: number;
  limits: { minimal: number; maximal: number; maximalZeroConf: { baseAsset: number; quoteAsset: number } };
  fees: {
    percentage: number; // reverse swaps (quote → base)
    percentageSwapIn: number; // submarine swaps (base → quote)
    minerFees: { baseAsset: V1MinerFees; quoteAsset: V1MinerFees };
  };
}

export interface V1ChainTimeouts {
  reverse: number;
  swapMinimal: number;
  swapMaximal: number;
}

/** An entry of `timeouts` in v1 GET /timeouts, keyed by pair id; in blocks of each asset's chain. */
export interface V1TimeoutsBody {
  base: V1ChainTimeouts;
  quote: V1ChainTimeouts;
}

/** Referral report: year → month (1-12) → referral id → chain symbol → amount (sat). */
export type ReferralReport = Record<string, Record<string, Record<string, Record<string, number>>>>;

export interface PartialSignatureBody {
  pubNonce: string;
  partialSignature: string;
}

