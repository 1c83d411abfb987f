// The chain questions the engine asks of Bitcoin Core (through the operator wallet's RPC client), in the shapes
// the engine wants: sat/vbyte, scripts as bytes, prevouts for Taproot sighashes, idempotent broadcasts.
import { hex } from '@scure/base';
import { Address, OutScript, Transaction } from '@scure/btc-signer';
import { SwapError } from './service.ts';
import { RpcError, type BitcoinRpcClient } from '../chains/bitcoin-rpc.ts';
import type { Network } from '../keys/index.ts';

const NETWORKS = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  signet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
} as const;

/** Core's RPC_INVALID_ADDRESS_OR_KEY: no such transaction. */
const NOT_FOUND = -5;
/** Core's RPC_VERIFY_ALREADY_IN_CHAIN. */
const ALREADY_IN_CHAIN = -27;
/** Used when the node has no estimate yet (fresh regtest). */
const FALLBACK_SAT_PER_VBYTE = 2;

export const parseTransaction = (txHex: string): Transaction =>
  Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });

/**
 * Most inputs a transaction a client asks Ferry to sign may have: signing looks up every input's previous output
 * (one node call each), so a huge batch would be a cheap way to keep the node and the swap's lock busy.
 */
export const MAX_CLIENT_INPUTS = 100;

/** A client's transaction to be co-signed: parsed, with a bounded number of inputs; SwapError 400 otherwise. */
export function parseClientTransaction(txHex: string): Transaction {
  let transaction: Transaction;
  try {
    transaction = parseTransaction(txHex);
  } catch {
    throw new SwapError(400, 'invalid parameter: transaction');
  }
  if (transaction.inputsLength > MAX_CLIENT_INPUTS) {
    throw new SwapError(400, `transaction has too many inputs: ${transaction.inputsLength} (at most ${MAX_CLIENT_INPUTS})`);
  }
  return transaction;
}

export interface Prevouts {
  scripts: Uint8Array[];
  amounts: bigint[];
}

export class ChainTools {
  constructor(
    private readonly rpc: BitcoinRpcClient,
    readonly network: Network,
    private readonly estimator?: () => Promise<number>,
  ) {}

  /** sat/vbyte for confirmation within two blocks. */
  async feeRate(): Promise<number> {
    if (this.estimator) return this.estimator();
    const estimate = await this.rpc.estimateSmartFee(2);
    if (estimate.feerate === undefined) return FALLBACK_SAT_PER_VBYTE;
    return Math.max(1, Math.round(((estimate.feerate * 1e8) / 1000) * 1000) / 1000);
  }

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  addressOf(script: Uint8Array): string {
    return Address(NETWORKS[this.network]).encode(OutScript.decode(script));
  }

  scriptOf(address: string): Uint8Array {
    return OutScript.encode(Address(NETWORKS[this.network]).decode(address));
  }

  /** A fresh operator-wallet output script to sweep claims and refunds to. */
  async walletScript(): Promise<Uint8Array> {
    return this.scriptOf(await this.rpc.getNewAddress('', 'bech32'));
  }

  /** Broadcasts; a transaction the node already has counts as broadcast, so replays after a crash are harmless. */
  async broadcast(txHex: string): Promise<string> {
    const txid = parseTransaction(txHex).id;
    try {
      return await this.rpc.sendRawTransaction(txHex);
    } catch (error) {
      const known =
        error instanceof RpcError &&
        (error.code === ALREADY_IN_CHAIN || /txn-already-in-mempool|txn-already-known/.test(error.message));
      if (known) return txid;
      throw error;
    }
  }

  /** Whether an output is still unspent, mempool spends included. */
  async isUnspent(txid: string, vout: number): Promise<boolean> {
    return (await this.rpc.getTxOut(txid, vout, true)) !== null;
  }

  /** Confirmations of an unspent output (0: unconfirmed), or undefined when it is spent or does not exist. */
  async unspentConfirmations(txid: string, vout: number): Promise<number | undefined> {
    const output = await this.rpc.getTxOut(txid, vout, true);
    return output === null ? undefined : output.confirmations;
  }

  /** Whether the node knows the transaction (mempool or chain; needs -txindex for confirmed ones). */
  async isKnown(txid: string): Promise<boolean> {
    try {
      await this.rpc.getRawTransactionHex(txid);
      return true;
    } catch (error) {
      if (error instanceof RpcError && error.code === NOT_FOUND) return false;
      throw error;
    }
  }

  /** The outputs every input of `tx` spends, which a Taproot sighash commits to. */
  async prevouts(tx: Transaction): Promise<Prevouts> {
    const scripts: Uint8Array[] = [];
    const amounts: bigint[] = [];
    const cache = new Map<string, Transaction>();
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const txid = hex.encode(input.txid!);
      let previous = cache.get(txid);
      if (previous === undefined) {
        previous = parseTransaction(await this.rpc.getRawTransactionHex(txid));
        cache.set(txid, previous);
      }
      const output = previous.getOutput(input.index!);
      if (output.script === undefined || output.amount === undefined) throw new Error(`input ${i} spends an unknown output`);
      scripts.push(output.script);
      amounts.push(output.amount);
    }
    return { scripts, amounts };
  }

  /** Fee rate (sat/vbyte) of an unconfirmed transaction, or undefined when it is not in the mempool. */
  async mempoolFeeRate(txid: string): Promise<number | undefined> {
    try {
      const entry = (await this.rpc.getMempoolEntry(txid)) as { vsize?: number; fees?: { base?: number } };
      if (entry.vsize === undefined || entry.fees?.base === undefined) return undefined;
      return (entry.fees.base * 1e8) / entry.vsize;
    } catch (error) {
      if (error instanceof RpcError) return undefined;
      throw error;
    }
  }
}

/** BIP 125: any input with nSequence below 0xfffffffe makes the transaction replaceable. */
export function signalsRbf(tx: Transaction): boolean {
  for (let i = 0; i < tx.inputsLength; i++) {
    if ((tx.getInput(i).sequence ?? 0xffffffff) < 0xfffffffe) return true;
  }
  return false;
}
