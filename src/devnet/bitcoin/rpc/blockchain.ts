// Blockchain RPCs (Core's rpc/blockchain.cpp and rpc/mempool.cpp).
import { satToBtc } from '../amount.ts';
import { difficulty } from '../block.ts';
import { toHex } from '../bytes.ts';
import { headerToJson, blockToJson, mempoolEntryToJson } from '../json.ts';
import { scriptPubKeyJson } from '../script.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR } from './errors.ts';
import { integerArg, parseHash, verbosityArg, type CallContext, type MethodTable } from './params.ts';

function blockOrFail(ctx: CallContext, value: unknown, name: string) {
  const entry = ctx.node.block(parseHash(value, name));
  if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

export const blockchainMethods: MethodTable = {
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
      if (verbose === false) return toHex(entry.block.raw.subarray(0, 80));
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
      if (level <= 0) return toHex(entry.block.raw);
      return blockToJson(ctx.node, entry, level === 1 ? 1 : level === 2 ? 2 : 3);
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
        value: satToBtc(found.coin.value),
        scriptPubKey: scriptPubKeyJson(found.coin.script),
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
      for (const entry of node.mempool.entries.values()) result[entry.tx.txid] = mempoolEntryToJson(node, entry);
      return result;
    },
  },

  getmempoolentry: {
    params: [{ name: 'txid', type: 'string', required: true }],
    run: ([txid], { node }) => {
      const entry = node.mempool.get(parseHash(txid, 'parameter 1'));
      if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
      return mempoolEntryToJson(node, entry);
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
        mempoolminfee: 0.00001,
        minrelaytxfee: 0.00001,
        incrementalrelayfee: 0.00001,
        unbroadcastcount: 0,
        fullrbf: false,
      };
    },
  },

  invalidateblock: {
    params: [{ name: 'blockhash', type: 'string', required: true }],
    run: ([hash], ctx) => {
      const entry = blockOrFail(ctx, hash, 'blockhash');
      if (entry.height === 0) throw new RpcFailure(RPC_MISC_ERROR, 'Cannot invalidate the genesis block');
      ctx.node.invalidateBlock(entry.hash);
      return null;
    },
  },
};
