// Raw transaction RPCs (Core's rpc/rawtransaction.cpp and rpc/mempool.cpp), with the pieces Elements shares from
// common/rawtx-rpc.ts.
import { addBlockFields, decodeHexTx, maxFeeRateArg, rawTxListArg } from '../../common/rawtx-rpc.ts';
import { satToBtc } from '../amount.ts';
import { fromHex } from '../bytes.ts';
import { txToJson } from '../json.ts';
import { TxRejected } from '../node.ts';
import { parseTx, type Tx } from '../tx.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY } from './errors.ts';
import { amountArg, parseHash, verbosityArg, type MethodTable } from './params.ts';

const parseHex = (hex: string): Tx => parseTx(fromHex(hex));

export const rawTransactionMethods: MethodTable = {
  getrawtransaction: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'verbosity', type: 'numOrBool' },
      { name: 'blockhash', type: 'string' },
    ],
    run: ([txidArg, verbosityValue, blockhashArg], { node }) => {
      const txid = parseHash(txidArg, 'parameter 1');
      const verbosity = verbosityArg(verbosityValue, 0);
      let tx: Tx | undefined;
      let block = undefined as ReturnType<typeof node.block>;
      let index = -1;
      if (blockhashArg !== undefined) {
        block = node.block(parseHash(blockhashArg, 'parameter 3'));
        if (!block) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Block hash not found');
        index = block.block.txs.findIndex((t) => t.txid === txid);
        tx = block.block.txs[index];
        if (!tx) {
          throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'No such transaction found in the provided block. Use gettransaction for wallet transactions.');
        }
      } else {
        const found = node.transaction(txid);
        if (!found) {
          throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.');
        }
        tx = found.tx;
        block = found.block;
        if (block) index = block.block.txs.indexOf(tx);
      }
      if (verbosity <= 0) return Buffer.from(tx.raw).toString('hex');
      const detailed = verbosity >= 2 && block !== undefined && block.status === 'active';
      const body = txToJson(tx, {
        hex: true,
        fee: detailed ? node.chain.feeOf(block!, index) : undefined,
        prevouts: detailed ? block!.undo?.[index] : undefined,
      });
      const result: Record<string, unknown> = blockhashArg !== undefined ? { in_active_chain: block!.status === 'active' } : {};
      Object.assign(result, body);
      if (block) addBlockFields(result, node, block);
      return result;
    },
  },

  decoderawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'iswitness', type: 'bool' },
    ],
    run: ([hex]) => txToJson(decodeHexTx(hex, 'TX decode failed', parseHex)),
  },

  sendrawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'maxfeerate', type: 'amount' },
      { name: 'maxburnamount', type: 'amount' },
    ],
    run: ([hex, maxFeeRate, maxBurn], { node }) => {
      const tx = decodeHexTx(hex, 'TX decode failed. Make sure the tx has at least one input.', parseHex);
      try {
        return node.acceptTransaction(tx, {
          maxFeeRateSatPerKvB: maxFeeRateArg(maxFeeRate),
          maxBurnSat: maxBurn === undefined ? 0n : amountArg(maxBurn),
        });
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
    run: ([rawtxs, maxFeeRate], { node }) => {
      const txs = rawTxListArg(rawtxs, parseHex);
      return node.testAccept(txs, { maxFeeRateSatPerKvB: maxFeeRateArg(maxFeeRate) }).map((result) =>
        result.allowed
          ? {
              txid: result.txid,
              wtxid: result.wtxid,
              allowed: true,
              vsize: result.vsize,
              fees: {
                base: satToBtc(result.fee!),
                'effective-feerate': satToBtc((result.fee! * 1000n) / BigInt(result.vsize!)),
                'effective-includes': [result.wtxid],
              },
            }
          : { txid: result.txid, wtxid: result.wtxid, allowed: false, 'reject-reason': result.rejectReason },
      );
    },
  },
};
