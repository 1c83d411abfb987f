// Raw transaction RPCs (Core's rpc/rawtransaction.cpp and rpc/mempool.cpp).
import { COIN, satToBtc } from '../amount.ts';
import { fromHex, isHex } from '../bytes.ts';
import { txToJson } from '../json.ts';
import { TxRejected } from '../node.ts';
import { parseTx, type Tx } from '../tx.ts';
import { RpcFailure, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from './errors.ts';
import { amountArg, parseHash, verbosityArg, type MethodTable } from './params.ts';

/** Core's default maxfeerate for sendrawtransaction/testmempoolaccept: 0.10 BTC/kvB. */
const DEFAULT_MAX_FEE_RATE = COIN / 10n;

function decodeTx(hex: unknown, message: string): Tx {
  if (typeof hex !== 'string' || !isHex(hex)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  try {
    return parseTx(fromHex(hex));
  } catch {
    throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  }
}

const maxFeeRateArg = (value: unknown): bigint => (value === undefined ? DEFAULT_MAX_FEE_RATE : amountArg(value));

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
      if (block) {
        const active = node.chain.isActive(block);
        result.blockhash = block.hash;
        result.confirmations = active ? node.height - block.height + 1 : 0;
        if (active) {
          result.time = block.block.header.time;
          result.blocktime = block.block.header.time;
        }
      }
      return result;
    },
  },

  decoderawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'iswitness', type: 'bool' },
    ],
    run: ([hex]) => txToJson(decodeTx(hex, 'TX decode failed')),
  },

  sendrawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'maxfeerate', type: 'amount' },
      { name: 'maxburnamount', type: 'amount' },
    ],
    run: ([hex, maxFeeRate, maxBurn], { node }) => {
      const tx = decodeTx(hex, 'TX decode failed. Make sure the tx has at least one input.');
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
      const list = rawtxs as unknown[];
      if (list.length < 1 || list.length > 25) {
        throw new RpcFailure(RPC_INVALID_PARAMETER, 'Array must contain between 1 and 25 transactions.');
      }
      const txs = list.map((hex) => decodeTx(hex, `TX decode failed: ${String(hex)} Make sure the tx has at least one input.`));
      return node.testAccept(txs, { maxFeeRateSatPerKvB: maxFeeRateArg(maxFeeRate) }).map((result) =>
        result.allowed
          ? {
              txid: result.txid,
              wtxid: result.wtxid,
              allowed: true,
              vsize: result.vsize,
              fees: {
                base: satToBtc(result.fee!),
                'effective-feerate': Number((result.fee! * 1000n) / BigInt(result.vsize!)) / 1e8,
                'effective-includes': [result.wtxid],
              },
            }
          : { txid: result.txid, wtxid: result.wtxid, allowed: false, 'reject-reason': result.rejectReason },
      );
    },
  },
};
