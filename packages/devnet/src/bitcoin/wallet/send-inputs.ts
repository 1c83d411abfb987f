// Paying from chosen wallet coins (Core's `send` with options.inputs and add_inputs false): what a wallet does to
// spend one particular output, e.g. a child that pays for its unconfirmed parent (CPFP). As Core since v26 does
// (ancestor-aware funding), the fee also lifts the unconfirmed ancestors of the chosen coins to the fee rate: the
// child pays what its parents lack, so the package is mined at the rate asked for. Simplified: the ancestors' deficit
// is counted as one package (Core's MiniMiner also credits ancestors that would be mined anyway).
import { randomInt } from 'node:crypto';
import { dustThreshold } from '../accept.ts';
import type { BitcoinNode } from '../node.ts';
import { RpcFailure, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../rpc/errors.ts';
import {
  changeKind,
  feeFor,
  INPUT_WEIGHT,
  outputWeight,
  SEQUENCE_FINAL_LOCKTIME,
  SEQUENCE_RBF,
  signWalletSpend,
  TX_OVERHEAD_WEIGHT,
  type Payment,
  type SendResult,
} from './send.ts';
import type { Wallet, WalletCoin } from './wallet.ts';

/** Fee that lifts the unconfirmed ancestors of `txids` (each counted once) to `satPerKvB`; 0 when they pay enough. */
export function ancestorBumpFee(node: BitcoinNode, txids: string[], satPerKvB: bigint): bigint {
  const ancestors = new Set<string>();
  for (const txid of txids) {
    if (node.mempool.get(txid) === undefined) continue;
    ancestors.add(txid);
    for (const ancestor of node.mempool.ancestors(txid)) ancestors.add(ancestor);
  }
  let fee = 0n;
  let vsize = 0;
  for (const txid of ancestors) {
    const entry = node.mempool.get(txid)!;
    fee += entry.fee;
    vsize += entry.tx.vsize;
  }
  const deficit = (BigInt(vsize) * satPerKvB + 999n) / 1000n - fee;
  return deficit > 0n ? deficit : 0n;
}

/**
 * Spends exactly `outpoints` (wallet coins, confirmed or not) to `payments` at `satPerKvB` plus the ancestors'
 * deficit, with change when the coins leave more than dust (Core's "Insufficient funds" when they do not cover the
 * payments and the fee, the fee taken from the payments marked subtractFee instead).
 */
export function sendFromInputs(
  node: BitcoinNode,
  wallet: Wallet,
  outpoints: { txid: string; vout: number }[],
  payments: Payment[],
  satPerKvB: bigint,
  replaceable = true,
): SendResult {
  const coins: WalletCoin[] = outpoints.map(({ txid, vout }) => {
    const found = node.unspent(txid, vout, true);
    const key = found && wallet.keyFor(found.coin.script);
    if (found === undefined || key === undefined) throw new RpcFailure(RPC_WALLET_ERROR, `Not found pre-selected input ${txid}:${vout}`);
    return { txid, vout, value: found.coin.value, script: found.coin.script, key };
  });
  const total = coins.reduce((sum, coin) => sum + coin.value, 0n);
  const target = payments.reduce((sum, p) => sum + p.amount, 0n);
  const subtracting = payments.filter((p) => p.subtractFee);
  const changeScript = wallet.newKey(changeKind(payments), 1).script;
  const weight = TX_OVERHEAD_WEIGHT + coins.reduce((sum, coin) => sum + INPUT_WEIGHT[coin.key.kind], 0) + payments.reduce((sum, p) => sum + outputWeight(p.script), 0);
  const bump = ancestorBumpFee(node, [...new Set(coins.map((coin) => coin.txid))], satPerKvB);
  const feeWithoutChange = feeFor(weight, satPerKvB) + bump;
  const feeWithChange = feeFor(weight + outputWeight(changeScript), satPerKvB) + bump;

  const outputs = payments.map((p) => ({ script: p.script, amount: p.amount }));
  let change = 0n;
  if (subtracting.length > 0) {
    if (total < target) throw new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');
    const leftover = total - target;
    change = leftover - feeWithChange;
    if (change <= dustThreshold(changeScript)) change = 0n;
    const charge = change > 0n ? feeWithChange : feeWithoutChange > leftover ? feeWithoutChange - leftover : 0n;
    const share = charge / BigInt(subtracting.length);
    subtracting.forEach((payment, i) => {
      outputs[payments.indexOf(payment)].amount -= share + (i === 0 ? charge - share * BigInt(subtracting.length) : 0n);
    });
  } else {
    if (total < target + feeWithoutChange) throw new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');
    change = total - target - feeWithChange;
    if (change <= dustThreshold(changeScript)) change = 0n;
  }
  for (const output of outputs) {
    if (output.amount < dustThreshold(output.script)) {
      throw new RpcFailure(RPC_WALLET_ERROR, subtracting.length > 0 ? 'The transaction amount is too small to pay the fee' : 'Transaction amount too small');
    }
  }
  if (change > 0n) outputs.splice(randomInt(outputs.length + 1), 0, { script: changeScript, amount: change });
  const fee = total - outputs.reduce((sum, output) => sum + output.amount, 0n);
  const sequence = replaceable ? SEQUENCE_RBF : SEQUENCE_FINAL_LOCKTIME;
  const raw = signWalletSpend(node, wallet, coins.map((coin) => ({ coin, sequence })), outputs, node.height);
  return { txid: node.acceptTransaction(raw), fee };
}
