// The contract between the swap engine (src/engine, src/swaps, src/keys) and the API layer (src/api: v1, v2,
// WebSocket, SSE). The API validates the shape of requests (types, hex, lengths) and maps them 1:1 onto these
// calls; the engine does every semantic check and throws SwapError with the HTTP status and the reference text
// (see ../shared/REFERENCE.md). Bodies returned here are exactly the JSON the API answers with.

/** An error the API answers verbatim: `status` and `{"error": message, ...extra}`. */
export class SwapError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 501,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SwapError';
  }
}

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
/** A pair of GET /v2/swap/chain (the reference's ChainPair): chain to chain. */
export interface ChainPairBody {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number; maximalZeroConf: number };
  fees: { percentage: number; minerFees: { server: number; user: { claim: number; lockup: number } } };
}
export interface ReversePairBody {
  hash: string;
  rate: number;
  limits: { maximal: number; minimal: number };
  fees: { percentage: number; minerFees: { lockup: number; claim: number } };
}

export interface CreateSubmarineRequest {
  from: string;
  to: string;
  invoice?: string;
  preimageHash?: string; // hex, when the invoice comes later
  refundPublicKey: string; // hex, 33 bytes compressed
  pairHash?: string;
  referralId?: string;
}
export interface CreateSubmarineResponse {
  id: string;
  address: string;
  swapTree: SwapTreeJson;
  claimPublicKey: string;
  timeoutBlockHeight: number;
  // only when created with an invoice:
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

export interface CreateReverseRequest {
  from: string;
  to: string;
  preimageHash: string;
  claimPublicKey: string;
  invoiceAmount?: number; // exactly one of invoiceAmount / onchainAmount
  onchainAmount?: number;
  pairHash?: string;
  referralId?: string;
  description?: string;
}
export interface CreateReverseResponse {
  id: string;
  invoice: string;
  swapTree: SwapTreeJson;
  lockupAddress: string;
  refundPublicKey: string;
  timeoutBlockHeight: number;
  onchainAmount: number;
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

export interface SwapService {
  // pairs: { [from]: { [to]: pair } }
  submarinePairs(): Promise<Record<string, Record<string, SubmarinePairBody>>>;
  reversePairs(): Promise<Record<string, Record<string, ReversePairBody>>>;
  chainPairs(): Promise<Record<string, Record<string, ChainPairBody>>>;

  createSubmarine(request: CreateSubmarineRequest): Promise<CreateSubmarineResponse>;
  setSubmarineInvoice(
    id: string,
    invoice: string,
    pairHash?: string,
  ): Promise<{ bip21?: string; expectedAmount?: number; acceptZeroConf?: boolean }>;
  submarineInvoiceAmount(id: string): Promise<{ invoiceAmount: number }>;
  submarineTransaction(id: string): Promise<{ id: string; hex: string; timeoutBlockHeight: number; timeoutEta?: number }>;
  submarinePreimage(id: string): Promise<{ preimage: string }>;
  submarineClaimDetails(id: string): Promise<{ preimage: string; pubNonce: string; publicKey: string; transactionHash: string }>;
  submarineClaimSignature(id: string, signature: PartialSignatureBody): Promise<Record<string, never>>;
  submarineRefund(id: string, request: { pubNonce: string; transaction: string; index: number }): Promise<PartialSignatureBody>;

  createReverse(request: CreateReverseRequest): Promise<CreateReverseResponse>;
  reverseTransaction(id: string): Promise<{ id: string; hex: string; timeoutBlockHeight: number }>;
  reverseClaim(
    id: string,
    request: { preimage: string; pubNonce?: string; transaction?: string; index?: number },
  ): Promise<PartialSignatureBody | Record<string, never>>;

  /**
   * For a transaction refused as not final yet: the timeout of the swap whose lockup it spends, so the answer can
   * say when to try again. undefined when it spends no known lockup.
   */
  refundTimeout?(txHex: string): Promise<{ timeoutBlockHeight: number; timeoutEta: number } | undefined>;

  /** v1 pair list (`pairs` of GET /getpairs); optional: without it the v1 pair and creation calls answer 501. */
  v1Pairs?(): Promise<Record<string, V1PairBody>>;
  /** v1 GET /timeouts (`timeouts`). */
  v1Timeouts?(): Promise<Record<string, V1TimeoutsBody>>;
  /**
   * Fees earned by successful swaps created with a referral id, grouped by the month the swap was created (UTC).
   * With a referralId only that partner's swaps; without one, every referral id.
   */
  referralReport?(referralId?: string): Promise<ReferralReport>;

  /** undefined for an unknown id. */
  status(id: string): Promise<SwapStatusBody | undefined>;
  /** Every status change of every swap, in order per swap, after it was committed to storage. */
  onStatus(listener: (id: string, status: SwapStatusBody) => void): () => void;
}
