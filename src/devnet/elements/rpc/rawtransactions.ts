// elementsd's raw transaction RPCs: getrawtransaction, decoderawtransaction, sendrawtransaction, testmempoolaccept.
import { satToBtc } from '../../bitcoin/amount.ts';
import { isHex } from '../../bitcoin/bytes.ts';
import { RpcFailure, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../../bitcoin/rpc/errors.ts';
import { amountArg, parseHash, verbosityArg } from '../../bitcoin/rpc/params.ts';
import { txToJson } from '../json.ts';
import { TxRejected } from '../node.ts';
import { parseTx, type ElementsTx } from '../tx.ts';
import type { ElementsMethodTable } from './context.ts';

function decodeTx(hex: unknown, message: string): ElementsTx {
  if (typeof hex !== 'string' || !isHex(hex)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  try {
    const etx = parseTx(Buffer.from(hex, 'hex'));
    if (etx.tx.ins.length === 0) throw new RangeError('no inputs');
    return etx;
  } catch {
    throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  }
}

/** elementsd's default maxfeerate for sendrawtransaction/testmempoolaccept: 0.10 BTC/kvB. */
const DEFAULT_MAX_FEE_RATE = 10_000_000n;
const maxFeeRateArg = (value: unknown): bigint => (value === undefined ? DEFAULT_MAX_FEE_RATE : amountArg(value));

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
      if (found.block) {
        const active = node.chain.isActive(found.block);
        result.blockhash = found.block.hash;
        result.confirmations = active ? node.height - found.block.height + 1 : 0;
        if (active) {
          result.time = found.block.block.header.time;
          result.blocktime = found.block.block.header.time;
        }
      }
      return result;
    },
  },

  decoderawtransaction: {
    params: [{ name: 'hexstring', type: 'string', required: true }],
    run: ([hex]) => txToJson(decodeTx(hex, 'TX decode failed')),
  },

  sendrawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'maxfeerate', type: 'amount' },
    ],
    run: async ([hex, maxFeeRate], { node }) => {
      const etx = decodeTx(hex, 'TX decode failed. Make sure the tx has at least one input.');
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
      const list = rawtxs as unknown[];
      if (list.length < 1 || list.length > 25) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Array must contain between 1 and 25 transactions.');
      const txs = list.map((hex) => decodeTx(hex, `TX decode failed: ${String(hex)} Make sure the tx has at least one input.`));
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
