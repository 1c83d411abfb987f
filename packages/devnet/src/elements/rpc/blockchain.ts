// elementsd's blockchain RPCs: chain info, gettxout and mempool info, plus the chain RPCs shared with Bitcoin
// (common/chain-rpc.ts: block count and hashes, getblockheader/getblock over Elements' views, getrawmempool, ...).
import { satToBtc } from '../../bitcoin/amount.ts';
import { MIN_RELAY_SAT_PER_KVB } from '../accept.ts';
import { blockMethods, chainMethods, txOutMethod } from '../../common/chain-rpc.ts';
import { serializeHeader } from '../block.ts';
import type { ElementsBlockEntry, ElementsCoin } from '../chain.ts';
import type { ElementsMempoolEntry } from '../mempool.ts';
import { blockToJson, headerToJson, mempoolEntryToJson, outputAmountJson, scriptPubKeyJson } from '../json.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';

export const blockchainMethods: ElementsMethodTable = {
  ...chainMethods<ElementsMempoolEntry, ElementsCallContext>((_node, entry) => mempoolEntryToJson(entry)),
  ...txOutMethod<ElementsCoin, ElementsCallContext>((coin) => ({ ...outputAmountJson(coin.output), scriptPubKey: scriptPubKeyJson(coin.output.script) })),
  ...blockMethods<ElementsBlockEntry, ElementsCallContext>({
    headerHex: (entry) => serializeHeader(entry.block.header).toString('hex'),
    headerJson: headerToJson,
    blockHex: (entry) => entry.block.raw.toString('hex'),
    blockJson: (node, entry, level) => blockToJson(node, entry, level === 1 ? 1 : 2),
  }),

  getblockchaininfo: {
    params: [],
    run: (_args, { node }) => ({
      chain: 'elementsregtest',
      blocks: node.height,
      headers: node.height,
      bestblockhash: node.tip.hash,
      time: node.tip.block.header.time,
      mediantime: node.tip.medianTime,
      verificationprogress: 1,
      initialblockdownload: false,
      size_on_disk: node.chain.active.reduce((sum, entry) => sum + entry.block.size, 0),
      pruned: false,
      current_signblock_asm: 'OP_TRUE',
      current_signblock_hex: '51',
      max_block_witness: 74,
      warnings: '',
    }),
  },

  getmempoolinfo: {
    params: [],
    run: (_args, { node }) => {
      const entries = [...node.mempool.entries.values()];
      return {
        loaded: true,
        size: entries.length,
        bytes: entries.reduce((sum, e) => sum + e.tx.vsize, 0),
        total_fee: satToBtc(entries.reduce((sum, e) => sum + e.fee, 0n)),
        // the node's relay floor (-minrelaytxfee=0.000001, accept.ts), as elementsd reports it
        mempoolminfee: satToBtc(MIN_RELAY_SAT_PER_KVB),
        minrelaytxfee: satToBtc(MIN_RELAY_SAT_PER_KVB),
      };
    },
  },
};
