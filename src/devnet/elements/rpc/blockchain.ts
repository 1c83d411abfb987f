// elementsd's blockchain RPCs: chain info, blocks, gettxout, the mempool and invalidateblock.
import { satToBtc } from '../../bitcoin/amount.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR } from '../../bitcoin/rpc/errors.ts';
import { integerArg, parseHash, verbosityArg } from '../../bitcoin/rpc/params.ts';
import { serializeHeader } from '../block.ts';
import { blockToJson, headerToJson, mempoolEntryToJson, outputAmountJson, scriptPubKeyJson } from '../json.ts';
import type { ElementsCallContext, ElementsMethodTable } from './context.ts';

function blockOrFail(ctx: ElementsCallContext, value: unknown, name: string) {
  const entry = ctx.node.block(parseHash(value, name));
  if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

export const blockchainMethods: ElementsMethodTable = {
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

  getblockcount: { params: [], run: (_args, { node }) => node.height },

  getbestblockhash: { params: [], run: (_args, { node }) => node.tip.hash },

  getblockhash: {
    params: [{ name: 'height', type: 'number', required: true }],
    run: ([height], { node }) => {
      const h = integerArg(height, 'height');
      if (h < 0 || h > node.height) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Block height out of range');
      return node.blockAt(h)!.hash;
    },
  },

  getblockheader: {
    params: [
      { name: 'blockhash', type: 'string', required: true },
      { name: 'verbose', type: 'bool' },
    ],
    run: ([hash, verbose], ctx) => {
      const entry = blockOrFail(ctx, hash, 'hash');
      if (verbose === false) return serializeHeader(entry.block.header).toString('hex');
      return headerToJson(ctx.node, entry);
    },
  },

  getblock: {
    params: [
      { name: 'blockhash', type: 'string', required: true },
      { name: 'verbosity', type: 'numOrBool' },
    ],
    run: ([hash, verbosity], ctx) => {
      const entry = blockOrFail(ctx, hash, 'blockhash');
      const level = verbosityArg(verbosity, 1);
      if (level <= 0) return entry.block.raw.toString('hex');
      return blockToJson(ctx.node, entry, level === 1 ? 1 : 2);
    },
  },

  gettxout: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'n', type: 'number', required: true },
      { name: 'include_mempool', type: 'bool' },
    ],
    run: ([txid, n, includeMempool], { node }) => {
      const found = node.unspent(parseHash(txid, 'txid'), integerArg(n, 'n'), includeMempool !== false);
      if (!found) return null;
      return {
        bestblock: node.tip.hash,
        confirmations: found.confirmations,
        ...outputAmountJson(found.coin.output),
        scriptPubKey: scriptPubKeyJson(found.coin.output.script),
        coinbase: found.coin.coinbase,
      };
    },
  },

  getrawmempool: {
    params: [
      { name: 'verbose', type: 'bool' },
      { name: 'mempool_sequence', type: 'bool' },
    ],
    run: ([verbose, sequence], { node }) => {
      if (verbose && sequence) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
      const txids = [...node.mempool.entries.keys()];
      if (sequence) return { txids, mempool_sequence: node.mempool.size };
      if (!verbose) return txids;
      const result: Record<string, unknown> = {};
      for (const entry of node.mempool.entries.values()) result[entry.tx.txid] = mempoolEntryToJson(entry);
      return result;
    },
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
        mempoolminfee: 0.00001,
        minrelaytxfee: 0.00001,
      };
    },
  },

  invalidateblock: {
    params: [{ name: 'blockhash', type: 'string', required: true }],
    run: async ([hash], ctx) => {
      const entry = blockOrFail(ctx, hash, 'blockhash');
      if (entry.height === 0) throw new RpcFailure(RPC_MISC_ERROR, 'Cannot invalidate the genesis block');
      await ctx.node.invalidateBlock(entry.hash);
      return null;
    },
  },
};
