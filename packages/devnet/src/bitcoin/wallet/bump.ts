// bumpfee (Core's wallet/feebumper.cpp, simplified): a wallet's own unconfirmed payment replaced by one with the
// same inputs, sequences, nLockTime and recipients, its change output paying the higher fee, so operators' code
// that unsticks a payment with `bumpfee` runs against the devnet. The node's mempool acceptance judges the
// replacement (BIP125: more fee and a higher fee rate than what it evicts; a devnet node refuses conflicts unless
// started with fullRbf). Where Core would add inputs because the change cannot pay, the devnet refuses.
import { dustThreshold } from '../accept.ts';
import type { BitcoinNode } from '../node.ts';
import { formatMoney } from '../amount.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_WALLET_ERROR } from '../rpc/errors.ts';
import { signWalletSpend } from './send.ts';
import type { Wallet, WalletCoin } from './wallet.ts';

/** Core's -incrementalrelayfee: a replacement pays at least this much more per vbyte. */
const INCREMENTAL_SAT_PER_KVB = 1000n;
const MAX_BIP125_SEQUENCE = 0xfffffffd;

export interface Bumped {
  txid: string;
  origFee: bigint;
  fee: bigint;
}

/** Replaces the wallet's mempool transaction `txid` by one paying `satPerKvB` (at least the old rate + 1 sat/vB). */
export function bumpFee(node: BitcoinNode, wallet: Wallet, txid: string, satPerKvB: bigint): Bumped {
  const entry = node.mempool.get(txid);
  if (entry === undefined) {
    if (wallet.txids.has(txid)) throw new RpcFailure(RPC_WALLET_ERROR, 'Transaction has been mined, or is conflicted with a mined transaction');
    throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
  }
  if (!wallet.txids.has(txid)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
  if (entry.children.size > 0) throw new RpcFailure(RPC_WALLET_ERROR, 'Transaction has descendants in the mempool');
  const { tx } = entry;
  if (!tx.inputs.some((input) => input.sequence <= MAX_BIP125_SEQUENCE)) throw new RpcFailure(RPC_WALLET_ERROR, 'Transaction is not BIP 125 replaceable');
  const inputs = tx.inputs.map((input) => {
    const output = node.transaction(input.prevTxid)?.tx.outputs[input.vout];
    const key = output && wallet.keyFor(output.script);
    if (output === undefined || key === undefined) throw new RpcFailure(RPC_WALLET_ERROR, "Transaction contains inputs that don't belong to this wallet");
    const coin: WalletCoin = { txid: input.prevTxid, vout: input.vout, value: output.value, script: output.script, key };
    return { coin, sequence: input.sequence };
  });
  const change = tx.outputs.findIndex((output) => wallet.keyFor(output.script)?.branch === 1);
  if (change < 0) throw new RpcFailure(RPC_WALLET_ERROR, 'Transaction does not have a change output');

  const vsize = BigInt(tx.vsize);
  const minimum = entry.fee + (vsize * INCREMENTAL_SAT_PER_KVB + 999n) / 1000n;
  const fee = (vsize * satPerKvB + 999n) / 1000n;
  if (fee < minimum) {
    const increment = minimum - entry.fee;
    throw new RpcFailure(
      RPC_INVALID_PARAMETER,
      `Insufficient total fee ${formatMoney(fee)}, must be at least ${formatMoney(minimum)} (oldFee ${formatMoney(entry.fee)} + incrementalFee ${formatMoney(increment)})`,
    );
  }
  const outputs = tx.outputs.map((output) => ({ script: output.script, amount: output.value }));
  outputs[change].amount -= fee - entry.fee;
  if (outputs[change].amount < dustThreshold(outputs[change].script)) throw new RpcFailure(RPC_WALLET_ERROR, 'Change output is too small to bump the fee');
  const replacement = node.acceptTransaction(signWalletSpend(node, wallet, inputs, outputs, tx.locktime));
  return { txid: replacement, origFee: entry.fee, fee };
}
