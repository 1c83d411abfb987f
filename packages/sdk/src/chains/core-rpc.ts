// Bitcoin Core JSON-RPC client: what Ferry uses in production against bitcoind (and, in tests, the devnet).
// Method names, parameter order and result shapes follow Bitcoin Core; results are typed loosely on
// purpose (only the fields Ferry reads), the raw JSON is passed through.
import { base64 } from '@scure/base';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** One JSON-RPC POST: the answer's HTTP status and body text. */
export type RpcPost = (url: URL, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<{ status: number; text: string }>;

/** The SDK's default, which runs in browsers too. */
const fetchPost: RpcPost = async (url, headers, body, timeoutMs) => {
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, text: await response.text() };
};

export interface CoreRpcOptions {
  url: string; // e.g. http://127.0.0.1:18443
  user: string;
  password: string;
  wallet?: string; // multiwallet: requests go to /wallet/<name>
  timeoutMs?: number;
  /** How a call is sent: fetch unless given (the service gives node:http, cheaper in CPU per call). */
  post?: RpcPost;
}

export interface BlockchainInfo {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  mediantime: number;
  [key: string]: unknown;
}

export interface TxVin {
  txid?: string;
  vout?: number;
  coinbase?: string;
  txinwitness?: string[];
  scriptSig?: { asm: string; hex: string };
  sequence: number;
}

export interface TxVout {
  value: number;
  n: number;
  scriptPubKey: { asm: string; hex: string; type: string; address?: string };
}

export interface DecodedTransaction {
  txid: string;
  hash: string;
  version: number;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: TxVin[];
  vout: TxVout[];
  hex?: string;
  blockhash?: string;
  confirmations?: number;
  time?: number;
  blocktime?: number;
}

export interface BlockHeader {
  hash: string;
  confirmations: number;
  height: number;
  version: number;
  merkleroot: string;
  time: number;
  mediantime: number;
  nonce: number;
  bits: string;
  previousblockhash?: string;
  nextblockhash?: string;
  nTx: number;
}

export interface BlockVerbose1 extends BlockHeader {
  tx: string[];
  strippedsize: number;
  size: number;
  weight: number;
}

export interface BlockVerbose2 extends BlockHeader {
  tx: DecodedTransaction[];
  strippedsize: number;
  size: number;
  weight: number;
}

export interface MempoolAcceptResult {
  txid: string;
  wtxid?: string;
  allowed?: boolean;
  vsize?: number;
  fees?: { base: number };
  'reject-reason'?: string;
}

export interface SmartFeeEstimate {
  feerate?: number; // BTC/kvB
  errors?: string[];
  blocks: number;
}

export class CoreRpcClient {
  private readonly auth: string;
  private nextId = 0;

  constructor(private readonly options: CoreRpcOptions) {
    this.auth = 'Basic ' + base64.encode(new TextEncoder().encode(`${options.user}:${options.password}`));
  }

  /** A client for another wallet on the same node. */
  wallet(name: string): CoreRpcClient {
    return new CoreRpcClient({ ...this.options, wallet: name });
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const path = this.options.wallet !== undefined ? `/wallet/${encodeURIComponent(this.options.wallet)}` : '/';
    const post = this.options.post ?? fetchPost;
    const response = await post(
      new URL(path, this.options.url),
      { 'content-type': 'application/json', authorization: this.auth },
      JSON.stringify({ jsonrpc: '1.0', id: ++this.nextId, method, params }),
      this.options.timeoutMs ?? 30_000,
    );
    const text = response.text;
    if (response.status === 401) throw new RpcError(-1, 'unauthorized: wrong RPC credentials', method);
    let body: { result?: T; error?: { code: number; message: string } | null };
    try {
      body = JSON.parse(text);
    } catch {
      throw new RpcError(-1, `unparsable RPC answer (HTTP ${response.status}): ${text.slice(0, 200)}`, method);
    }
    if (body.error) throw new RpcError(body.error.code, body.error.message, method);
    return body.result as T;
  }

  getBlockchainInfo = () => this.call<BlockchainInfo>('getblockchaininfo');
  getBlockCount = () => this.call<number>('getblockcount');
  getBestBlockHash = () => this.call<string>('getbestblockhash');
  getBlockHash = (height: number) => this.call<string>('getblockhash', [height]);
  getBlockHeader = (hash: string) => this.call<BlockHeader>('getblockheader', [hash, true]);
  getBlockHex = (hash: string) => this.call<string>('getblock', [hash, 0]);
  getBlock = (hash: string) => this.call<BlockVerbose1>('getblock', [hash, 1]);
  getBlockVerbose = (hash: string) => this.call<BlockVerbose2>('getblock', [hash, 2]);
  getRawTransactionHex = (txid: string) => this.call<string>('getrawtransaction', [txid, false]);
  getRawTransaction = (txid: string, blockhash?: string) =>
    this.call<DecodedTransaction>('getrawtransaction', blockhash ? [txid, true, blockhash] : [txid, true]);
  decodeRawTransaction = (hex: string) => this.call<DecodedTransaction>('decoderawtransaction', [hex]);
  sendRawTransaction = (hex: string) => this.call<string>('sendrawtransaction', [hex]);
  testMempoolAccept = (hexes: string[]) => this.call<MempoolAcceptResult[]>('testmempoolaccept', [hexes]);
  getRawMempool = () => this.call<string[]>('getrawmempool', [false]);
  getMempoolEntry = (txid: string) => this.call<Record<string, unknown>>('getmempoolentry', [txid]);
  getTxOut = (txid: string, vout: number, includeMempool = true) =>
    this.call<{ value: number; confirmations: number; scriptPubKey: TxVout['scriptPubKey'] } | null>('gettxout', [
      txid,
      vout,
      includeMempool,
    ]);
  estimateSmartFee = (confTarget: number) => this.call<SmartFeeEstimate>('estimatesmartfee', [confTarget]);
  getNetworkInfo = () => this.call<Record<string, unknown>>('getnetworkinfo');
  generateToAddress = (blocks: number, address: string) => this.call<string[]>('generatetoaddress', [blocks, address]);
  invalidateBlock = (hash: string) => this.call<null>('invalidateblock', [hash]);

  // wallet calls (need a wallet: use .wallet(name))
  getNewAddress = (label = '', type: 'bech32' | 'bech32m' = 'bech32') => this.call<string>('getnewaddress', [label, type]);
  getBalance = () => this.call<number>('getbalance');
  getBalances = () =>
    this.call<{ mine: { trusted: number; untrusted_pending: number; immature: number } }>('getbalances');
  listUnspent = (minconf = 1) =>
    this.call<{ txid: string; vout: number; address: string; amount: number; confirmations: number; scriptPubKey: string }[]>(
      'listunspent',
      [minconf],
    );
  sendToAddress = (address: string, amountBtc: number) => this.call<string>('sendtoaddress', [address, amountBtc]);
  /** Core's bumpfee at a fee rate in sat/vbyte. */
  bumpFee = (txid: string, feeRate: number) => this.call<{ txid: string; origfee: number; fee: number }>('bumpfee', [txid, { fee_rate: feeRate }]);
  /** Core's send from chosen coins only (add_inputs false), broadcast by the wallet; fee_rate in sat/vbyte. */
  sendFromInputs = (
    outputs: Record<string, number>[],
    inputs: { txid: string; vout: number }[],
    options: { fee_rate: number; subtract_fee_from_outputs?: number[] },
  ) => this.call<{ txid: string; complete: boolean }>('send', [outputs, null, null, null, { ...options, inputs, add_inputs: false }]);
  getWalletInfo = () => this.call<Record<string, unknown>>('getwalletinfo');
}

/** BTC amounts in RPC answers are floats; Ferry counts integer satoshi. */
export const btcToSat = (btc: number): bigint => BigInt(Math.round(btc * 1e8));
export const satToBtc = (sat: bigint | number): number => Number(sat) / 1e8;
/** An amount in coins as URIs write it: at most 8 decimals, no trailing zeros. */
export const satToBtcText = (sat: number): string => (sat / 1e8).toFixed(8).replace(/\.?0+$/, '');
