// JSON over HTTP to a swap service of this interface (v2 REST). Every call either returns the parsed body of
// a success or throws ServiceError (the service said no) / ServiceUnreachableError (it said nothing usable).
import type { ContractsInfo } from '../chains/evm/contracts-info.ts';
import type { CreateEvmReverseResponse as ContractReverseCreated, CreateEvmSubmarineResponse as ContractSubmarineCreated } from '../protocol/index.ts';
import { ServiceError, ServiceUnreachableError } from './errors.ts';
import type { RescueRequest, RestorableSwapBody, RestoreIndexBody, RestoreRequest } from '../protocol/index.ts';
import type {
  ChainClaimDetails,
  ChainCreated,
  ChainPair,
  ChainTransactions,
  CreateChainRequest,
  LockupTransaction,
  PartialSignature,
  ReverseCreated,
  ReversePair,
  StatusUpdate,
  SubmarineClaimDetails,
  SubmarineCreated,
  SubmarinePair,
} from './types.ts';

export interface ServiceApiOptions {
  /** Per request; default 30 s. */
  timeoutMs?: number;
}

export class ServiceApi {
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(url: string, options: ServiceApiOptions = {}) {
    this.url = url.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url + path, {
        method,
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ServiceUnreachableError(this.url, error);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      if (response.ok) throw new ServiceUnreachableError(this.url, new Error(`${method} ${path}: the answer is not JSON`));
      parsed = { error: text.slice(0, 200) };
    }
    if (!response.ok) throw new ServiceError(method, path, response.status, parsed);
    return parsed as T;
  }

  submarinePairs = () => this.request<Record<string, Record<string, SubmarinePair>>>('GET', '/v2/swap/submarine');
  reversePairs = () => this.request<Record<string, Record<string, ReversePair>>>('GET', '/v2/swap/reverse');

  createSubmarine = (body: { from: string; to: string; invoice: string; refundPublicKey: string; pairHash?: string }) =>
    this.request<SubmarineCreated>('POST', '/v2/swap/submarine', body);

  createReverse = (body: {
    from: string;
    to: string;
    preimageHash: string;
    claimPublicKey: string;
    invoiceAmount?: number;
    onchainAmount?: number;
    pairHash?: string;
    description?: string;
    address?: string;
    addressSignature?: string;
  }) => this.request<ReverseCreated>('POST', '/v2/swap/reverse', body);

  /** Contract chains (RBTC): no keys in the requests, addresses in the answers. */
  createContractSubmarine = (body: { from: string; to: string; invoice: string; pairHash?: string }) =>
    this.request<ContractSubmarineCreated>('POST', '/v2/swap/submarine', body);
  createContractReverse = (body: { from: string; to: string; preimageHash: string; claimAddress: string; invoiceAmount?: number; onchainAmount?: number; pairHash?: string; description?: string }) =>
    this.request<ContractReverseCreated>('POST', '/v2/swap/reverse', body);
  contracts = (currency: string) => this.request<ContractsInfo>('GET', `/v2/chain/${encodeURIComponent(currency)}/contracts`);
  /** The EIP-712 signature for refundCooperative of a failed contract submarine swap (by id, or by preimage hash where served). */
  submarineRefundSignature = (id: string) => this.request<{ signature: string }>('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/refund`);

  swapStatus = (id: string) => this.request<Omit<StatusUpdate, 'id'>>('GET', `/v2/swap/${encodeURIComponent(id)}`);

  submarineTransaction = (id: string) => this.request<LockupTransaction>('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/transaction`);
  submarineClaimDetails = (id: string) => this.request<SubmarineClaimDetails>('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/claim`);
  submarineClaimSignature = (id: string, signature: PartialSignature) =>
    this.request<Record<string, never>>('POST', `/v2/swap/submarine/${encodeURIComponent(id)}/claim`, signature);
  submarinePreimage = (id: string) => this.request<{ preimage: string }>('GET', `/v2/swap/submarine/${encodeURIComponent(id)}/preimage`);
  submarineRefund = (id: string, body: { pubNonce: string; transaction: string; index: number }) =>
    this.request<PartialSignature>('POST', `/v2/swap/submarine/${encodeURIComponent(id)}/refund`, body);

  reverseTransaction = (id: string) => this.request<LockupTransaction>('GET', `/v2/swap/reverse/${encodeURIComponent(id)}/transaction`);
  reverseClaim = (id: string, body: { preimage: string; pubNonce?: string; transaction?: string; index?: number }) =>
    this.request<PartialSignature | Record<string, never>>('POST', `/v2/swap/reverse/${encodeURIComponent(id)}/claim`, body);

  chainPairs = () => this.request<Record<string, Record<string, ChainPair>>>('GET', '/v2/swap/chain');
  createChain = (body: CreateChainRequest) => this.request<ChainCreated>('POST', '/v2/swap/chain', body);
  chainTransactions = (id: string) => this.request<ChainTransactions>('GET', `/v2/swap/chain/${encodeURIComponent(id)}/transactions`);
  chainClaimDetails = (id: string) => this.request<ChainClaimDetails>('GET', `/v2/swap/chain/${encodeURIComponent(id)}/claim`);
  chainClaim = (id: string, body: { preimage: string; signature?: PartialSignature; toSign?: { pubNonce: string; transaction: string; index: number } }) =>
    this.request<PartialSignature | Record<string, never>>('POST', `/v2/swap/chain/${encodeURIComponent(id)}/claim`, body);
  chainRefund = (id: string, body: { pubNonce: string; transaction: string; index: number }) =>
    this.request<PartialSignature>('POST', `/v2/swap/chain/${encodeURIComponent(id)}/refund`, body);
  /** The EIP-712 signature for refundCooperative of our lock of a failed chain swap from a contract chain. */
  chainRefundSignature = (id: string) => this.request<{ signature: string }>('GET', `/v2/swap/chain/${encodeURIComponent(id)}/refund`);
  chainQuote = (id: string) => this.request<{ amount: number }>('GET', `/v2/swap/chain/${encodeURIComponent(id)}/quote`);
  acceptChainQuote = (id: string, amount: number) => this.request<Record<string, never>>('POST', `/v2/swap/chain/${encodeURIComponent(id)}/quote`, { amount });

  restoreSwaps = (body: RestoreRequest) => this.request<RestorableSwapBody[]>('POST', '/v2/swap/restore', body);
  restoreIndex = (body: RescueRequest) => this.request<RestoreIndexBody>('POST', '/v2/swap/restore/index', body);

  chainHeight = (currency: string) => this.request<{ height: number }>('GET', `/v2/chain/${currency}/height`);
  chainFee = (currency: string) => this.request<{ fee: number }>('GET', `/v2/chain/${currency}/fee`);
  chainTransaction = (currency: string, txid: string) =>
    this.request<{ hex: string; confirmations?: number }>('GET', `/v2/chain/${currency}/transaction/${txid}`);
  broadcast = (currency: string, hex: string) => this.request<{ id: string }>('POST', `/v2/chain/${currency}/transaction`, { hex });
}
