// Blockchain RPCs (Core's rpc/blockchain.cpp and rpc/mempool.cpp); those whose logic Elements shares are in
// common/chain-rpc.ts.
import { satToBtc } from '../amount.ts';
import { btcAmount } from '../../common/rpc-json.ts';
import { FLOOR_SAT_PER_KVB } from '../fees.ts';
import { difficulty } from '../block.ts';
import { toHex } from '../bytes.ts';
import { headerToJson, blockToJson, mempoolEntryToJson } from '../json.ts';
import { scriptPubKeyJson } from '../script.ts';
import { blockMethods, chainMethods, txOutMethod } from '../../common/chain-rpc.ts';
import type { BlockEntry, Coin } from '../chain.ts';
import type { MempoolEntry } from '../mempool.ts';
import type { CallContext, MethodTable } from './params.ts';

export const blockchainMethods: MethodTable = {
  ...chainMethods<MempoolEntry, CallContext>(mempoolEntryToJson),
  ...txOutMethod<Coin, CallContext>((coin) => ({ value: satToBtc(coin.value), scriptPubKey: scriptPubKeyJson(coin.script) })),
  ...blockMethods<BlockEntry, CallContext>({
    headerHex: (entry) => toHex(entry.block.raw.subarray(0, 80)),
    headerJson: headerToJson,
    blockHex: (entry) => toHex(entry.block.raw),
    blockJson: (node, entry, level) => blockToJson(node, entry, level === 1 ? 1 : level === 2 ? 2 : 3),
  }),

  getblockchaininfo: {
    params: [],
    run: (_args, { node }) => {
      const tip = node.tip;
      return {
        chain: 'regtest',
        blocks: node.height,
        headers: node.height,
        bestblockhash: tip.hash,
        difficulty: difficulty(tip.block.header.bits),
        time: tip.block.header.time,
        mediantime: tip.medianTime,
        verificationprogress: 1,
        initialblockdownload: false,
        chainwork: tip.chainWork.toString(16).padStart(64, '0'),
        size_on_disk: node.chain.active.reduce((sum, entry) => sum + entry.block.size, 0),
        pruned: false,
        warnings: '',
      };
    },
  },

  getmempoolinfo: {
    params: [],
    run: (_args, { node }) => {
      let bytes = 0;
      let fees = 0n;
      for (const entry of node.mempool.entries.values()) {
        bytes += entry.tx.vsize;
        fees += entry.fee;
      }
      return {
        loaded: true,
        size: node.mempool.size,
        bytes,
        usage: node.mempool.totalWeight,
        total_fee: satToBtc(fees),
        maxmempool: 300_000_000,
        mempoolminfee: btcAmount(FLOOR_SAT_PER_KVB),
        minrelaytxfee: btcAmount(FLOOR_SAT_PER_KVB),
        incrementalrelayfee: btcAmount(FLOOR_SAT_PER_KVB),
        unbroadcastcount: 0,
        fullrbf: false,
      };
    },
  },
};
