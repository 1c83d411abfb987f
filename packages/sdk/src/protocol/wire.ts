// The JSON the swap interface exchanges (v2 REST, WebSocket, SSE and the v1 calls Ferry serves): one declaration
// of each shape, read by the API, the engine façade and the client SDK alike (REFERENCE.md, the OpenAPI document).

export interface SwapTreeLeafJson {
  version: number;
  output: string; // hex
}
export interface SwapTreeJson {
  claimLeaf: SwapTreeLeafJson;
  refundLeaf: SwapTreeLeafJson;
  /** Liquid reverse swaps asked with claimCovenant: anyone with the preimage claims to the committed output. */
  covenantClaimLeaf?: SwapTreeLeafJson;
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
  /** The wallet's own BOLT12 invoice for preimageHash, with a path through Ferry's node (CLN): held instead of a hold invoice. */
  invoice?: string;
  /** EVM: a second invoice buys gas Ferry sends to claimAddress with its lock (`prepayMinerFee`: the earlier name). */
  gasless?: boolean;
  prepayMinerFee?: boolean;
  /** UTXO chains: where the receiver wants coins paid directly, and its BIP340 signature of SHA256(address) by claimPublicKey. */
  address?: string;
  addressSignature?: string;
  /** Liquid: a covenant leaf in the tree lets anyone with the preimage claim to `address` (claim covenants). */
  claimCovenant?: boolean;
}
/**
 * POST /v2/swap/covenant: hands Ferry's covenant claimer the preimage of a reverse swap created with claimCovenant
 * (covclaim's POST /covenant body), so that it claims to `address` once Ferry has locked.
 */
export interface CovenantRegistration {
  address: string;
  preimage: string;
  tree: SwapTreeJson;
  blindingKey: string;
  claimPublicKey: string;
  refundPublicKey: string;
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

/** v1 POST /createswap, type submarine: a legacy swap (the client checks `address` against `redeemScript`). */
export interface V1CreateSubmarineResponse {
  id: string;
  /** P2SH-nested P2WSH of redeemScript; on EVM the swap contract. */
  address: string;
  /** UTXO chains. */
  redeemScript?: string;
  /** EVM: Ferry's address, the claim address of the client's `lock`. */
  claimAddress?: string;
  timeoutBlockHeight: number;
  /** Liquid: the private key blinding the address, hex. */
  blindingKey?: string;
  // only when created with an invoice:
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

/** v1 POST /createswap, type reversesubmarine: a legacy swap (P2WSH of `redeemScript`), or the contract on EVM. */
export interface V1CreateReverseResponse {
  id: string;
  invoice: string;
  lockupAddress: string;
  /** UTXO chains. */
  redeemScript?: string;
  timeoutBlockHeight: number;
  /** Only when the request gave invoiceAmount. */
  onchainAmount?: number;
  blindingKey?: string;
  /** EVM: Ferry's address, the refund address of its lock. */
  refundAddress?: string;
  /** The miner fee prepay (operator option), or EVM `prepayMinerFee`: the second invoice to pay. */
  minerFeeInvoice?: string;
  prepayMinerFeeAmount?: number;
  gasAssetAmount?: number;
  gaslessInvoice?: string;
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


/**
 * POST /v2/swap/restore, /v2/swap/rescue and /v2/swap/restore/index: the client keys to search swaps by. An xpub's
 * children are derived at `derivationPath/index` (default m/44/0/0/0) and scanned until `gapLimit` (1–150, default
 * 50) unused indices in a row, or exactly `pagination.limit` indices from `startIndex`.
 */
export type RescueRequest =
  | { xpub: string; derivationPath?: string; gapLimit?: number; pagination?: { startIndex: number; limit: number } }
  | { publicKey: string }
  | { publicKeys: string[] };

/**
 * POST /v2/swap/restore by EVM address: the swaps naming `address` as the client's claim or refund address, once
 * `signature` (EIP-191 personal_sign, 65 bytes hex) over evmRestoreMessage(address, timestamp) proves it is the
 * caller's; `timestamp` (UNIX seconds) within 60 s of the server's clock.
 */
export interface EvmRestoreRequest {
  address: string;
  timestamp: number;
  signature: string;
}

export type RestoreRequest = RescueRequest | EvmRestoreRequest;

/** Where a swap's coins are locked: the lockup transaction and output. */
export interface LockupOutpointBody {
  id: string;
  vout: number;
}

/** One UTXO output of a restored swap, as the client claims (claimDetails) or refunds (refundDetails) it. */
export interface RestoreOutputDetailsBody {
  type: 'utxo';
  tree: SwapTreeJson;
  amount?: number;
  /** Derivation index of the client's key of this output (its position in the list for a key search). */
  keyIndex: number;
  transaction?: LockupOutpointBody;
  lockupAddress: string;
  serverPublicKey: string;
  timeoutBlockHeight: number;
  /** Liquid: the private key blinding the lockup address, hex. */
  blindingKey?: string;
  /** claimDetails only. */
  preimageHash?: string;
}

/**
 * The EVM side of a restored swap, as the client claims (claimDetails) or refunds (refundDetails) it in the swap
 * contract; the Lockup event of the preimage hash has the exact values. `amount` in API units (10^-8).
 */
export interface RestoreEvmDetailsBody {
  type: 'evm';
  contractAddress: string;
  /** Who may claim: the client's address in claimDetails, Ferry's in refundDetails. */
  claimAddress?: string;
  /** The lockup transaction, once there is one. */
  transaction?: { id: string };
  amount?: number;
  timeoutBlockHeight: number;
}

/** An answer entry of POST /v2/swap/restore: everything needed to resume, claim or refund the swap. */
export interface RestorableSwapBody {
  id: string;
  type: 'submarine' | 'reverse' | 'chain';
  status: string;
  /** UNIX seconds. */
  createdAt: number;
  from: string;
  to: string;
  preimageHash: string;
  invoice?: string;
  claimDetails?: RestoreOutputDetailsBody | RestoreEvmDetailsBody;
  refundDetails?: RestoreOutputDetailsBody | RestoreEvmDetailsBody;
  metadata?: string;
}

/** An answer entry of POST /v2/swap/rescue (deprecated): a submarine or chain swap whose lockup the client can refund. */
export interface RescuableSwapBody {
  id: string;
  type: 'submarine' | 'chain';
  status: string;
  symbol: string;
  keyIndex: number;
  preimageHash: string;
  invoice?: string;
  amount?: number;
  timeoutBlockHeight: number;
  serverPublicKey: string;
  blindingKey?: string;
  tree: SwapTreeJson;
  lockupAddress: string;
  transaction?: LockupOutpointBody;
  createdAt: number;
}

/** POST /v2/swap/restore/index: the highest key index any swap used, -1 when none did. */
export interface RestoreIndexBody {
  index: number;
}

/** An entry of GET /v2/swap/reverse/expiry: the invoice expiries a reverse pair accepts, seconds. */
export interface InvoiceExpiryRangeBody {
  min: number;
  max: number;
}

/** PATCH /v2/swap/{id}/metadata. */
export interface MetadataRequest {
  /** Hex, 1–1024 bytes; replaces what was set before. */
  metadata: string;
}

/** A node of the Lightning graph (GET /v2/lightning/{currency}/node/{node}, /search). */
/** One hop of a route hint (v1 POST /routinghints): the channel from `nodeId` to the service's node, and its policy. */
export interface HopHintBody {
  nodeId: string;
  chanId: string;
  feeBaseMsat: number;
  feeProportionalMillionths: number;
  cltvExpiryDelta: number;
}

/** v1 POST /routinghints: a route hint per private channel of the service's node with the routing node. */
export interface RoutingHintsBody {
  routingHints: { hopHintsList: HopHintBody[] }[];
}

export interface LightningNodeBody {
  id: string;
  alias?: string;
  color?: string;
}

/** One side's forwarding policy of a channel. */
export interface LightningChannelPolicyBody {
  active: boolean;
  baseFeeMillisatoshi: number;
  feePpm: number;
  delay: number;
  htlcMinimumMillisatoshi?: number;
  htlcMaximumMillisatoshi?: number;
}

/** An entry of GET /v2/lightning/{currency}/channels/{node}: a channel of the node, with the node's own policy. */
export interface LightningChannelBody {
  source: LightningNodeBody;
  /** BLOCKxTXxOUTPUT. */
  shortChannelId: string;
  capacity?: number;
  active: boolean;
  info: LightningChannelPolicyBody;
}

/** GET /v2/lightning/{currency}/channel/{id}: both sides' policies. */
export interface LightningChannelInfoBody {
  shortChannelId: string;
  capacity?: number;
  policies: (LightningChannelPolicyBody & { node: LightningNodeBody })[];
}

/** A month of GET /v2/referral/stats: volume in BTC (text) and swap counts per pair and in total, failure rate per swap type. */
export interface ReferralMonthStats {
  volume: Record<string, string> & { total: string };
  trades: Record<string, number> & { total: number };
  failureRates: Partial<Record<'submarine' | 'reverse' | 'chain', number>>;
}

/** GET /v2/referral/stats: year → month (1-12) → that month's statistics. */
export type ReferralStats = Record<string, Record<string, ReferralMonthStats>>;

/** GET /v2/swap/reverse/{invoice}/bip21: where to pay a reverse swap's receiver on chain, and its address signature. */
export interface ReverseBip21Body {
  bip21: string;
  signature: string;
}

/** POST /v2/asset/{currency}/rescue/setup: a lockup of another asset than L-BTC, to be paid to `destination`. */
export interface AssetRescueSetupRequest {
  swapId: string;
  transactionId: string;
  vout: number;
  destination: string;
}

/** The rescue transaction (hex, unsigned) and the service's side of its MuSig2 session over input 0's sighash. */
export interface AssetRescueSetupBody {
  musig: { serverPublicKey: string; pubNonce: string; message: string };
  transaction: string;
}

/** POST /v2/asset/{currency}/rescue/broadcast: the client's nonce and partial signature of `message`. */
export interface AssetRescueBroadcastRequest {
  swapId: string;
  pubNonce: string;
  partialSignature: string;
}

export interface AssetRescueBroadcastBody {
  transactionId: string;
}

/** GET /v2/swap/{type}/stats/{from}/{to}: a pair's fee over the last week, as [unix seconds, percent] samples. */
export interface PairStatsBody {
  fee: Array<[number, number]>;
  /** Submarine pairs: the most the service may spend routing the payment, percent of the invoice. */
  maximalRoutingFee?: Array<[number, number]>;
}

/** GET /v2/commitment/{currency}/details: where and to whom a commitment lockup (preimage hash bytes32(0)) goes. */
export interface CommitmentLockupDetailsBody {
  /** The swap contract to `lock` in. */
  contract: string;
  /** The service's account: the lockup's claim address. */
  claimAddress: string;
  /** Suggested block height for the lockup's timelock, safely after any swap's timeout. */
  timelock: number;
}

/** POST /v2/commitment/{currency}: commits a commitment lockup to a swap (answered 201 with {}). */
export interface CommitmentRequest {
  swapId: string;
  /** The refund address' EIP-712 Commit signature of the swap's preimage hash and the lockup's values (0x hex). */
  signature: string;
  /** The transaction that made the lockup. */
  transactionHash: string;
  /** The Lockup event's log index, needed when the transaction made several lockups. */
  logIndex?: number;
  /** How many percent the lockup may exceed the swap's expected amount (0 to 10); the service's own tolerance otherwise. */
  maxOverpaymentPercentage?: number;
}

/** POST /v2/commitment/{currency}/refund: the cooperative refund of a commitment lockup no swap took (answered 201). */
export interface CommitmentRefundRequest {
  /** The transaction that made the lockup. */
  transactionHash: string;
  logIndex?: number;
  /**
   * The refund address' EIP-191 signature of "Boltz commitment refund authorization\nchain: {currency}\n
   * transactionHash: {transactionHash}\nlogIndex: {logIndex or none}".
   */
  refundAddressSignature: string;
}
