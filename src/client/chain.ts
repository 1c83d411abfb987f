// Where the client reads the chain and broadcasts: through the swap service's chain endpoints by default, or
// straight from a Bitcoin Core node — which is what still works when the service is gone.
import { estimateFeeRate } from '../chains/core-fees.ts';
import { CoreRpcClient } from '../chains/core-rpc.ts';
import type { ServiceApi } from './api.ts';

export interface ChainSource {
  /** For messages: where the data comes from. */
  readonly description: string;
  height(): Promise<number>;
  transactionHex(txid: string): Promise<string>;
  /** Returns the txid. */
  broadcast(hex: string): Promise<string>;
  /** Recommended fee rate, sat/vbyte. */
  feeRate(): Promise<number>;
}

export class ServiceChain implements ChainSource {
  readonly description: string;

  constructor(
    private readonly api: ServiceApi,
    private readonly currency = 'BTC',
  ) {
    this.description = `the swap service at ${api.url}`;
  }

  async height(): Promise<number> {
    return (await this.api.chainHeight(this.currency)).height;
  }

  async transactionHex(txid: string): Promise<string> {
    return (await this.api.chainTransaction(this.currency, txid)).hex;
  }

  async broadcast(hex: string): Promise<string> {
    return (await this.api.broadcast(this.currency, hex)).id;
  }

  async feeRate(): Promise<number> {
    return (await this.api.chainFee(this.currency)).fee;
  }
}

/** A Bitcoin Core node over JSON-RPC; `url` may carry the credentials (http://user:password@host:port). */
export class BitcoinCoreChain implements ChainSource {
  readonly description: string;
  private readonly rpc: CoreRpcClient;

  constructor(url: string, credentials?: { user: string; password: string }) {
    const parsed = new URL(url);
    const user = credentials?.user ?? decodeURIComponent(parsed.username);
    const password = credentials?.password ?? decodeURIComponent(parsed.password);
    parsed.username = '';
    parsed.password = '';
    this.rpc = new CoreRpcClient({ url: parsed.toString(), user, password });
    this.description = `the Bitcoin node at ${parsed.host}`;
  }

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  transactionHex(txid: string): Promise<string> {
    return this.rpc.getRawTransactionHex(txid);
  }

  broadcast(hex: string): Promise<string> {
    return this.rpc.sendRawTransaction(hex);
  }

  feeRate(): Promise<number> {
    // A node without estimates yet gets the relay minimum.
    return estimateFeeRate(this.rpc, { fallback: 1, minimum: 1 });
  }
}
