// The watcher's view of Bitcoin: raw blocks (`getblock <hash> 0`) cut by raw-block.ts, output values in the clear.
import type { ChainCodec } from '../watcher/codec.ts';
import { inputWitness, parseBlock, parseTransaction, transactionHex, type RawTransaction } from './raw-block.ts';

export const bitcoinCodec: ChainCodec<RawTransaction> = {
  readBlock: async (rpc, hash) => parseBlock(await rpc.getBlockHex(hash)),
  parseTransaction,
  transactionHex,
  inputWitness,
  lockupValue: (tx, vout) => ({ value: tx.outputs[vout].value }),
};
