// Where the client reads a chain and broadcasts: through the swap service's chain endpoints by default, or
// straight from a node of Bitcoin Core's family — bitcoind for BTC, elementsd for L-BTC (same JSON-RPC) — which is
// what still works when the service is gone.
import { BITCOIN_FEES, LIQUID_FEES, estimateFeeRate, type FeeFloor } from '../chains/core-fees.ts';
import { CoreRpcClient } from '../chains/core-rpc.ts';
import type { ServiceApi } from './api.ts';

export interface ChainSource {
  /** The chain's currency: BTC or L-BTC. */
  readonly currency: string;
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
    readonly currency = 'BTC',
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

/** A node of Bitcoin Core's family over JSON-RPC; `url` may carry the credentials (http://user:password@host:port). */
class CoreFamilyChain implements ChainSource {
  readonly description: string;
  private readonly rpc: CoreRpcClient;

  constructor(
    readonly currency: string,
    private readonly fees: FeeFloor,
    node: string,
    url: string,
    credentials?: { user: string; password: string },
  ) {
    const parsed = new URL(url);
    const user = credentials?.user ?? decodeURIComponent(parsed.username);
    const password = credentials?.password ?? decodeURIComponent(parsed.password);
    parsed.username = '';
    parsed.password = '';
    this.rpc = new CoreRpcClient({ url: parsed.toString(), user, password });
    this.description = `the ${node} node at ${parsed.host}`;
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
    return estimateFeeRate(this.rpc, { ...this.fees, fallback: this.fees.minimum });
  }
}

/** A Bitcoin Core node: BTC swaps. */
export class BitcoinCoreChain extends CoreFamilyChain {
  constructor(url: string, credentials?: { user: string; password: string }) {
    super('BTC', BITCOIN_FEES, 'Bitcoin', url, credentials);
  }
}

/** An Elements node (elementsd): L-BTC swaps. */
export class ElementsChain extends CoreFamilyChain {
  constructor(url: string, credentials?: { user: string; password: string }) {
    super('L-BTC', LIQUID_FEES, 'Elements', url, credentials);
  }
}
