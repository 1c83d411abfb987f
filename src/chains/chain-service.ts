// The chains Ferry serves, by symbol, with the few questions the API asks of each.
import { BitcoinRpcClient, RpcError } from './bitcoin-rpc.ts';

export interface ChainTransaction {
  hex: string;
  confirmations?: number;
}

export class TransactionNotFound extends Error {}

export class TransactionRejected extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Core's code for "No such mempool or blockchain transaction". */
const RPC_INVALID_ADDRESS_OR_KEY = -5;

/** Used when the node has no estimate yet (fresh regtest): Core's minimum relay fee rate is 1 sat/vB. */
const FALLBACK_SAT_PER_VBYTE = 2;

export class UtxoChain {
  constructor(
    readonly symbol: string,
    readonly rpc: BitcoinRpcClient,
  ) {}

  async height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  /** UNIX time of the block at a height. */
  async blockTime(height: number): Promise<number> {
    return (await this.rpc.getBlockHeader(await this.rpc.getBlockHash(height))).time;
  }

  /** sat/vbyte for confirmation within two blocks. */
  async feeEstimate(): Promise<number> {
    const estimate = await this.rpc.estimateSmartFee(2);
    if (estimate.feerate === undefined) return FALLBACK_SAT_PER_VBYTE;
    const satPerVbyte = (estimate.feerate * 1e8) / 1000;
    return Math.max(1, Math.round(satPerVbyte * 1000) / 1000);
  }

  async getTransaction(txid: string): Promise<ChainTransaction> {
    try {
      const tx = await this.rpc.getRawTransaction(txid);
      return tx.confirmations ? { hex: tx.hex as string, confirmations: tx.confirmations } : { hex: tx.hex as string };
    } catch (error) {
      if (error instanceof RpcError && error.code === RPC_INVALID_ADDRESS_OR_KEY) throw new TransactionNotFound(error.message);
      throw error;
    }
  }

  async broadcast(hex: string): Promise<string> {
    try {
      return await this.rpc.sendRawTransaction(hex);
    } catch (error) {
      if (error instanceof RpcError) throw new TransactionRejected(error.message, error.code);
      throw error;
    }
  }
}

export class ChainService {
  private readonly chains = new Map<string, UtxoChain>();

  add(chain: UtxoChain): void {
    this.chains.set(chain.symbol, chain);
  }

  get(symbol: string): UtxoChain | undefined {
    return this.chains.get(symbol);
  }

  all(): UtxoChain[] {
    return [...this.chains.values()];
  }
}
