// The watcher's view of Liquid: blocks come as `getblock <hash> 2` (each transaction's hex; Elements' block headers
// change shape with dynamic federations, so the watcher does not cut raw blocks itself), transactions are parsed
// by liquidjs-lib, and an output paying a watched swap script is unblinded with that script's blinding key: only
// L-BTC counts as a lockup, any other asset (or an output the key cannot open) is reported with a refusal.
import { Transaction, type TxOutput } from 'liquidjs-lib';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { ChainCodec, LockupValue, WatchedTransaction } from '../watcher/codec.ts';

export interface LiquidWatchedTransaction extends WatchedTransaction {
  tx: Transaction;
  hex: string;
}

/** An output's amount and asset (hex, display order), in the clear or after unblinding. */
export interface OpenedOutput {
  value: bigint;
  asset: string;
}

export interface LiquidCodecOptions {
  /** The chain's bitcoin asset (L-BTC), hex in display order. */
  asset: string;
  /** Opens an output paying a watched script (explicit or blinded to that script's key); throws when it cannot. */
  open(output: TxOutput): OpenedOutput;
}

interface VerboseBlock {
  previousblockhash?: string;
  tx: { hex: string }[];
}

function watched(tx: Transaction, hex: string): LiquidWatchedTransaction {
  return {
    txid: tx.getId(),
    inputs: tx.ins.map((input) => ({ prevTxidInternal: Buffer.from(input.hash).toString('hex'), prevVout: input.index })),
    outputs: tx.outs.map((output) => ({ scriptHex: Buffer.from(output.script).toString('hex') })),
    isCoinbase: tx.isCoinbase(),
    tx,
    hex,
  };
}

export function liquidCodec(options: LiquidCodecOptions): ChainCodec<LiquidWatchedTransaction> {
  const parseTransaction = (hex: string) => watched(Transaction.fromHex(hex), hex);
  return {
    async readBlock(rpc: CoreRpcClient, hash: string) {
      const block = await rpc.call<VerboseBlock>('getblock', [hash, 2]);
      return { previousHash: block.previousblockhash ?? '0'.repeat(64), transactions: block.tx.map((entry) => parseTransaction(entry.hex)) };
    },
    parseTransaction,
    transactionHex: (tx) => tx.hex,
    inputWitness: (tx, inputIndex) => tx.tx.ins[inputIndex].witness.map((item) => Buffer.from(item).toString('hex')),
    lockupValue(tx, vout): LockupValue {
      let opened: OpenedOutput;
      try {
        opened = options.open(tx.tx.outs[vout]);
      } catch {
        return { value: 0n, refusal: 'the lockup output cannot be unblinded with the swap\'s blinding key' };
      }
      if (opened.asset !== options.asset) return { value: opened.value, refusal: `the lockup is of asset ${opened.asset}, not L-BTC` };
      return { value: opened.value };
    },
  };
}
