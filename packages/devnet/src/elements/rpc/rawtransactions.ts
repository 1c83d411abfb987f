// elementsd's raw transaction RPCs: getrawtransaction, decoderawtransaction, sendrawtransaction, testmempoolaccept
// (hex decoding, maxfeerate and block fields shared with Bitcoin: common/rawtx-rpc.ts).
import { satToBtc } from '../../bitcoin/amount.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY } from '../../bitcoin/rpc/errors.ts';
import { parseHash, verbosityArg } from '../../bitcoin/rpc/params.ts';
import { addBlockFields, decodeHexTx, rawTxListArg, maxFeeRateArg } from '../../common/rawtx-rpc.ts';
import { txToJson } from '../json.ts';
import { TxRejected } from '../node.ts';
import { parseTx, type ElementsTx } from '../tx.ts';
import type { ElementsMethodTable } from './context.ts';

function parseHex(hex: string): ElementsTx {
  const etx = parseTx(Buffer.from(hex, 'hex'));
  if (etx.tx.ins.length === 0) throw new RangeError('no inputs');
  return etx;
}

export const rawTransactionMethods: ElementsMethodTable = {
  getrawtransaction: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'verbose', type: 'numOrBool' },
      { name: 'blockhash', type: 'string' },
    ],
    run: ([txidArg, verboseArg, blockhashArg], { node }) => {
      const txid = parseHash(txidArg, 'parameter 1');
      let found = node.transaction(txid);
      if (blockhashArg !== undefined) {
        const block = node.block(parseHash(blockhashArg, 'parameter 3'));
        if (!block) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Block hash not found');
        const tx = block.block.txs.find((t) => t.txid === txid);
        if (!tx) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'No such transaction found in the provided block. Use gettransaction for wallet transactions.');
        found = { tx, block };
      }
      if (!found) {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.');
      }
      if (verbosityArg(verboseArg, 0) <= 0) return found.tx.raw.toString('hex');
      const result: Record<string, unknown> = blockhashArg !== undefined ? { in_active_chain: found.block!.status === 'active' } : {};
      Object.assign(result, txToJson(found.tx, { hex: true }));
      if (found.block) addBlockFields(result, node, found.block);
      return result;
    },
  },

  decoderawtransaction: {
    params: [{ name: 'hexstring', type: 'string', required: true }],
    run: ([hex]) => txToJson(decodeHexTx(hex, 'TX decode failed', parseHex)),
  },

  sendrawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'maxfeerate', type: 'amount' },
    ],
    run: async ([hex, maxFeeRate], { node }) => {
      const etx = decodeHexTx(hex, 'TX decode failed. Make sure the tx has at least one input.', parseHex);
      try {
        return await node.acceptTransaction(etx, maxFeeRateArg(maxFeeRate));
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },

  testmempoolaccept: {
    params: [
      { name: 'rawtxs', type: 'array', required: true },
      { name: 'maxfeerate', type: 'amount' },
    ],
    run: async ([rawtxs, maxFeeRate], { node }) => {
      const txs = rawTxListArg(rawtxs, parseHex);
      const results = await node.testAccept(txs, maxFeeRateArg(maxFeeRate));
      return results.map((result) =>
        result.allowed
          ? {
              txid: result.txid,
              wtxid: result.wtxid,
              allowed: true,
              vsize: result.vsize,
              fees: { base: satToBtc(result.fee!) },
            }
          : { txid: result.txid, wtxid: result.wtxid, allowed: false, 'reject-reason': result.rejectReason },
      );
    },
  },
};
