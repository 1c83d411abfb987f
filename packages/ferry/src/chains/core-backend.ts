// What every chain backend over a node of Bitcoin Core's family (Bitcoin Core, Elements) does the same way: chain
// reads, broadcasts that tolerate a replay, output and mempool lookups, and paying from the operator's wallet —
// same RPC methods, same error codes. Each chain's backend adds its own transactions and swap outputs.
import { RpcError, btcToSat, satToBtc, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { TransactionNotFound, TransactionRejected, WalletRefused, type ChainTransaction, type SignedTransaction, type SwapLockup } from '@ferry/sdk/chains/backend.js';

/** Core's RPC_INVALID_ADDRESS_OR_KEY: no such transaction. */
const NOT_FOUND = -5;
/** Core's RPC_VERIFY_ALREADY_IN_CHAIN. */
const ALREADY_IN_CHAIN = -27;
/** Wallet answers that mean nothing was sent (Core: insufficient funds, wallet error, bad amount or address). */
const REFUSED_CODES = new Set([-6, -4, -3, -5, -8]);

export abstract class CoreFamilyBackend {
  constructor(protected readonly rpc: CoreRpcClient) {}

  /** The txid of a transaction of this chain. */
  protected abstract txidOf(txHex: string): string;
  /** The index of the output of `txHex` paying `script` (hex), or -1. */
  protected abstract outputIndexOf(txHex: string, script: string): number;

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  async walletBalance(): Promise<number> {
    // Elements reports a balance per asset, its own as "bitcoin"; Core reports one number
    const trusted = (await this.rpc.getBalances()).mine.trusted as number | Record<string, number>;
    return Number(btcToSat(typeof trusted === 'number' ? trusted : (trusted.bitcoin ?? 0)));
  }

  async blockTime(height: number): Promise<number> {
    return (await this.rpc.getBlockHeader(await this.rpc.getBlockHash(height))).time;
  }

  async getTransaction(txid: string): Promise<ChainTransaction> {
    try {
      const tx = await this.rpc.getRawTransaction(txid);
      return tx.confirmations ? { hex: tx.hex as string, confirmations: tx.confirmations } : { hex: tx.hex as string };
    } catch (error) {
      if (error instanceof RpcError && error.code === NOT_FOUND) throw new TransactionNotFound(error.message);
      throw error;
    }
  }

  async broadcast(txHex: string): Promise<string> {
    try {
      return await this.rpc.sendRawTransaction(txHex);
    } catch (error) {
      if (error instanceof RpcError) throw new TransactionRejected(error.message, error.code);
      throw error;
    }
  }

  async ensureBroadcast(txHex: string): Promise<string> {
    const txid = this.txidOf(txHex);
    try {
      return await this.broadcast(txHex);
    } catch (error) {
      const known =
        error instanceof TransactionRejected &&
        (error.code === ALREADY_IN_CHAIN || /txn-already-in-mempool|txn-already-known/.test(error.message));
      if (known) return txid;
      throw error;
    }
  }

  async isKnown(txid: string): Promise<boolean> {
    try {
      await this.rpc.getRawTransactionHex(txid);
      return true;
    } catch (error) {
      if (error instanceof RpcError && error.code === NOT_FOUND) return false;
      throw error;
    }
  }

  async unspentConfirmations(txid: string, vout: number): Promise<number | undefined> {
    const output = await this.rpc.getTxOut(txid, vout, true);
    return output === null ? undefined : output.confirmations;
  }

  async mempoolFeeRate(txid: string): Promise<number | undefined> {
    return (await this.mempoolEntry(txid))?.feeRate;
  }

  async mempoolEntry(txid: string): Promise<{ feeRate: number; height: number } | undefined> {
    try {
      // Elements also gives the discounted size its fee rates are judged by (confidential outputs counted cheap).
      const entry = (await this.rpc.getMempoolEntry(txid)) as { vsize?: number; discountvsize?: number; fees?: { base?: number }; height?: number };
      const size = entry.discountvsize ?? entry.vsize;
      if (size === undefined || entry.fees?.base === undefined || entry.height === undefined) return undefined;
      return { feeRate: (entry.fees.base * 1e8) / size, height: entry.height };
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
  }

  async sendToLockup(output: { address: string; script: string }, value: number): Promise<SwapLockup & { hex: string }> {
    return this.lockupPayment(await this.payFromWallet(output.address, value), output.script, value);
  }

  async bumpLockup(lockup: SwapLockup, feeRate: number): Promise<SwapLockup & { hex: string }> {
    let replacement: string;
    try {
      replacement = (await this.rpc.bumpFee(lockup.txid, Math.ceil(feeRate * 1000) / 1000)).txid;
    } catch (error) {
      if (error instanceof RpcError) throw new TransactionRejected(error.message, error.code);
      throw error;
    }
    return this.lockupPayment(replacement, lockup.script, lockup.value);
  }

  async payForLockup(lockup: SwapLockup, feeRate: number): Promise<SignedTransaction | undefined> {
    try {
      const change = (await this.rpc.listUnspent(0)).find((coin) => coin.txid === lockup.txid && coin.vout !== lockup.vout);
      if (change === undefined) return undefined;
      const address = await this.rpc.getNewAddress();
      const fee_rate = Math.ceil(feeRate * 1000) / 1000;
      const { txid } = await this.rpc.sendFromInputs([{ [address]: change.amount }], [{ txid: change.txid, vout: change.vout }], { fee_rate, subtract_fee_from_outputs: [0] });
      return { txid, hex: await this.rpc.getRawTransactionHex(txid) };
    } catch (error) {
      if (error instanceof RpcError) throw new TransactionRejected(error.message, error.code);
      throw error;
    }
  }

  /** A wallet payment as the swap lockup it makes: the output paying the lockup script. */
  private async lockupPayment(txid: string, script: string, value: number): Promise<SwapLockup & { hex: string }> {
    const txHex = await this.rpc.getRawTransactionHex(txid);
    const vout = this.outputIndexOf(txHex, script);
    if (vout < 0) throw new Error(`lockup transaction ${txid} does not pay the lockup script`);
    return { txid, vout, value, script, hex: txHex };
  }

  /** Pays from the operator wallet; WalletRefused when the wallet said no (nothing was sent). Returns the txid. */
  protected async payFromWallet(address: string, value: number): Promise<string> {
    try {
      return await this.rpc.sendToAddress(address, satToBtc(value));
    } catch (error) {
      if (error instanceof RpcError && REFUSED_CODES.has(error.code)) throw new WalletRefused(error.message);
      // A timeout or a dropped connection may still have sent it.
      throw error;
    }
  }
}
