// The contract between the swap engine and the API layer (src/api: v1, v2, WebSocket, SSE). The API validates the
// shape of requests (types, hex, lengths) and maps them 1:1 onto these calls; the engine does every semantic check
// and throws SwapError (./errors.ts) with the reference text. Bodies returned here are exactly the JSON answered.
import type {
  ChainClaimDetailsBody,
  ChainClaimRequest,
  ChainPairBody,
  ChainTransactionsBody,
  CreateChainRequest,
  CreateChainResponse,
  CreateEvmChainResponse,
  CovenantRegistration,
  CreateReverseRequest,
  CreateReverseResponse,
  CreateEvmReverseResponse,
  CreateEvmSubmarineResponse,
  CreateSubmarineRequest,
  CreateSubmarineResponse,
  LockupTransactionBody,
  PairList,
  PartialSignatureBody,
  RefundRequest,
  ReverseClaimRequest,
  SetInvoiceResponse,
  SubmarineClaimDetailsBody,
  ReferralReport,
  ReferralStats,
  PairStatsBody,
  ReverseBip21Body,
  AssetRescueBroadcastBody,
  AssetRescueBroadcastRequest,
  AssetRescueSetupBody,
  AssetRescueSetupRequest,
  CommitmentLockupDetailsBody,
  CommitmentRefundRequest,
  CommitmentRequest,
  RescuableSwapBody,
  InvoiceExpiryRangeBody,
  RescueRequest,
  RestoreRequest,
  RestorableSwapBody,
  RestoreIndexBody,
  ReversePairBody,
  SubmarinePairBody,
  SwapStatusBody,
  V1CreateReverseResponse,
  V1CreateSubmarineResponse,
  V1PairBody,
  V1TimeoutsBody,
} from './wire.ts';

export interface SwapService {
  submarinePairs(): Promise<PairList<SubmarinePairBody>>;
  reversePairs(): Promise<PairList<ReversePairBody>>;
  /** GET /v2/swap/chain: both directions of each pair between two served chains. */
  chainPairs(): Promise<PairList<ChainPairBody>>;

  /** With a refund public key: a UTXO chain's swap; without: an EVM chain's (the client's lock names its refund address). */
  createSubmarine(request: CreateSubmarineRequest & { refundPublicKey: string }): Promise<CreateSubmarineResponse>;
  createSubmarine(request: CreateSubmarineRequest): Promise<CreateSubmarineResponse | CreateEvmSubmarineResponse>;
  setSubmarineInvoice(id: string, invoice: string, pairHash?: string): Promise<SetInvoiceResponse>;
  submarineInvoiceAmount(id: string): Promise<{ invoiceAmount: number }>;
  submarineTransaction(id: string): Promise<LockupTransactionBody>;
  submarinePreimage(id: string): Promise<{ preimage: string }>;
  submarineClaimDetails(id: string): Promise<SubmarineClaimDetailsBody>;
  submarineClaimSignature(id: string, signature: PartialSignatureBody): Promise<Record<string, never>>;
  submarineRefund(id: string, request: RefundRequest): Promise<PartialSignatureBody>;
  /** EVM: the EIP-712 signature for the contract's refundCooperative, only once the swap failed; by the swap's id or its preimage hash. */
  submarineRefundSignature(id: string): Promise<{ signature: string }>;

  /** With a claim public key: a UTXO chain's swap; with a claim address: an EVM chain's. */
  createReverse(request: CreateReverseRequest & { claimPublicKey: string }): Promise<CreateReverseResponse>;
  createReverse(request: CreateReverseRequest): Promise<CreateReverseResponse | CreateEvmReverseResponse>;
  reverseTransaction(id: string): Promise<LockupTransactionBody>;
  reverseClaim(id: string, request: ReverseClaimRequest): Promise<PartialSignatureBody | Record<string, never>>;
  /** Claim covenants: Ferry claims the swap to the committed address once it has locked. */
  registerCovenant(request: CovenantRegistration): Promise<Record<string, never>>;

  /** An EVM side takes claimAddress (to) or no refund key (from) and is answered with its contract and addresses. */
  createChain(request: CreateChainRequest): Promise<CreateChainResponse | CreateEvmChainResponse>;
  /** EVM `from`: the EIP-712 signature for refundCooperative of the user's lock, under the chain swap refund rules. */
  chainRefundSignature(id: string): Promise<{ signature: string }>;
  chainTransactions(id: string): Promise<ChainTransactionsBody>;
  chainClaimDetails(id: string): Promise<ChainClaimDetailsBody>;
  chainClaim(id: string, request: ChainClaimRequest): Promise<PartialSignatureBody | Record<string, never>>;
  chainRefund(id: string, request: RefundRequest): Promise<PartialSignatureBody>;
  chainQuote(id: string): Promise<{ amount: number }>;
  acceptChainQuote(id: string, amount: number): Promise<Record<string, never>>;

  /**
   * For a transaction refused as not final yet: the timeout of the swap whose lockup it spends, so the answer can
   * say when to try again. undefined when it spends no known lockup.
   */
  refundTimeout?(txHex: string, currency?: string): Promise<{ timeoutBlockHeight: number; timeoutEta: number } | undefined>;

  /** v1 pair list (`pairs` of GET /getpairs); optional: without it the v1 pair and creation calls answer 501. */
  v1Pairs?(): Promise<Record<string, V1PairBody>>;
  /** GET /getpairs `info` (e.g. `prepay.minerfee`). */
  v1PairsInfo?(): string[];
  /** v1 POST /createswap: the same swaps with legacy outputs (a redeem script, no key path). */
  createLegacySubmarine?(request: CreateSubmarineRequest): Promise<V1CreateSubmarineResponse>;
  createLegacyReverse?(request: CreateReverseRequest): Promise<V1CreateReverseResponse>;
  /** v1 GET /timeouts (`timeouts`). */
  v1Timeouts?(): Promise<Record<string, V1TimeoutsBody>>;
  /**
   * Fees earned by successful swaps created with a referral id, grouped by the month the swap was created (UTC).
   * With a referralId only that partner's swaps; without one, every referral id.
   */
  referralReport?(referralId?: string): Promise<ReferralReport>;
  /** Volume, counts and failure rates of the swaps created with a referral id (every id without one), by month. */
  referralStats?(referralId?: string): Promise<ReferralStats>;
  /** GET /v2/swap/reverse/{invoice}/bip21: the receiver's signed on-chain address; undefined when the swap set none. */
  reverseBip21?(invoice: string): Promise<ReverseBip21Body | undefined>;
  /** POST /v2/asset/{currency}/rescue/setup: the rescue transaction of another asset locked by mistake, and Ferry's nonce. */
  assetRescueSetup?(currency: string, request: AssetRescueSetupRequest): Promise<AssetRescueSetupBody>;
  /** POST /v2/asset/{currency}/rescue/broadcast: aggregate with the client's partial signature and broadcast. */
  assetRescueBroadcast?(currency: string, request: AssetRescueBroadcastRequest): Promise<AssetRescueBroadcastBody>;
  /** GET /v2/commitment/{currency}/details: the contract, claim address and suggested timelock of a commitment lockup. */
  commitmentDetails?(currency: string): Promise<CommitmentLockupDetailsBody>;
  /** POST /v2/commitment/{currency}: the commitment lockup becomes the swap's lockup once its signature checks out. */
  commit?(currency: string, request: CommitmentRequest): Promise<Record<string, never>>;
  /** POST /v2/commitment/{currency}/refund: the EIP-712 refund signature of a commitment lockup no swap took. */
  refundCommitment?(currency: string, request: CommitmentRefundRequest): Promise<{ signature: string }>;
  /** GET /v2/swap/{type}/stats/{from}/{to}: the pair's fee history; undefined when none is kept for it. */
  pairStats?(swapType: string, from: string, to: string): Promise<PairStatsBody | undefined>;

  /**
   * POST /v2/swap/restore: every swap created with the request's client keys, or naming its EVM address (once the
   * signature proves it the caller's: unprocessable otherwise), with all it takes to finish or undo it.
   */
  restoreSwaps?(request: RestoreRequest): Promise<RestorableSwapBody[]>;
  /** POST /v2/swap/rescue (deprecated): the submarine and chain swaps of those keys whose lockup can be refunded. */
  rescueSwaps?(request: RescueRequest): Promise<RescuableSwapBody[]>;
  /** POST /v2/swap/restore/index: the highest index of those keys any swap used, -1 when none. */
  restoreIndex?(request: RescueRequest): Promise<RestoreIndexBody>;

  /** PATCH /v2/swap/{id}/metadata: keeps the client's hex string with the swap (restore answers it); notFound for an unknown id. */
  setMetadata?(id: string, metadata: string): Promise<Record<string, never>>;
  /** GET /v2/swap/reverse/expiry: the invoice expiry range (seconds) of each reverse pair, keyed as the reverse pair list. */
  reverseInvoiceExpiry?(): Promise<Record<string, Record<string, InvoiceExpiryRangeBody>>>;

  /** undefined for an unknown id. */
  status(id: string): Promise<SwapStatusBody | undefined>;
  /** The same as JSON text, kept per swap by services that can (GET /v2/swap/{id} answers it as is). */
  statusText?(id: string): Promise<string | undefined>;
  /** The kept JSON text of statusText, if any, without waiting: the HTTP server answers it before any routing. */
  keptStatusText?(id: string): string | undefined;
  /** Every status change of every swap, in order per swap, after it was committed to storage. */
  onStatus(listener: (id: string, status: SwapStatusBody) => void): () => void;
}
