// The raw-transaction RPC pieces that are the same on either devnet node: hex decoding with Core's error texts,
// the maxfeerate default, testmempoolaccept's list check and getrawtransaction's block fields.
import { RpcFailure, RPC_DESERIALIZATION_ERROR, RPC_INVALID_PARAMETER } from '../bitcoin/rpc/errors.ts';
import { amountArg } from '../bitcoin/rpc/params.ts';
import { isHex } from '../bitcoin/bytes.ts';

/** Core's (and elementsd's) default maxfeerate for sendrawtransaction/testmempoolaccept: 0.10 BTC/kvB. */
const DEFAULT_MAX_FEE_RATE = 10_000_000n;

export const maxFeeRateArg = (value: unknown): bigint => (value === undefined ? DEFAULT_MAX_FEE_RATE : amountArg(value));

/** A hex transaction argument parsed by the chain's parser; any failure is RPC_DESERIALIZATION_ERROR with message. */
export function decodeHexTx<T>(hex: unknown, message: string, parse: (hex: string) => T): T {
  if (typeof hex !== 'string' || !isHex(hex)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  try {
    return parse(hex);
  } catch {
    throw new RpcFailure(RPC_DESERIALIZATION_ERROR, message);
  }
}

/** testmempoolaccept's rawtxs: 1 to 25 transactions, each decoded with Core's per-transaction text. */
export function rawTxListArg<T>(rawtxs: unknown, parse: (hex: string) => T): T[] {
  const list = rawtxs as unknown[];
  if (list.length < 1 || list.length > 25) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Array must contain between 1 and 25 transactions.');
  return list.map((hex) => decodeHexTx(hex, `TX decode failed: ${String(hex)} Make sure the tx has at least one input.`, parse));
}

interface PlacedBlock {
  hash: string;
  height: number;
  block: { header: { time: number } };
}

/** getrawtransaction's fields for the block holding the transaction: blockhash, confirmations, and times if active. */
export function addBlockFields<B extends PlacedBlock>(
  result: Record<string, unknown>,
  node: { height: number; chain: { isActive(block: B): boolean } },
  block: B,
): void {
  const active = node.chain.isActive(block);
  result.blockhash = block.hash;
  result.confirmations = active ? node.height - block.height + 1 : 0;
  if (active) {
    result.time = block.block.header.time;
    result.blocktime = block.block.header.time;
  }
}
