// The node wallet's spends (sendtoaddress; issueasset in issue.ts): trusted coins picked per asset, the fee in L-BTC
// in an explicit output, each asset's change to a new confidential change address, the fee settled from the built
// transaction's size; then the mempool. One spend at a time per wallet, as elementsd holds the wallet lock.
import { RpcFailure, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../../bitcoin/rpc/errors.ts';
import type { ElementsNode } from '../node.ts';
import { wrapTx } from '../tx.ts';
import type { DecodedAddress } from './address.ts';
import type { Recipient } from './build.ts';
import { POLICY_ASSET } from './network.ts';
import type { NodeWallet } from './node-wallet.ts';
import { createTransaction, type SignedTransaction, type SpendableCoin, type SpendRequest } from './send.ts';

export interface Payment {
  to: DecodedAddress;
  amount: bigint; // sat
  asset: string; // asset id as displayed; the fee is L-BTC whatever this is
  subtractFee: boolean;
}

export const insufficientFunds = (): RpcFailure => new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');

const queues = new WeakMap<NodeWallet, Promise<unknown>>();

/** Runs `task` after the wallet's spends queued before it. */
export function serialized<T>(wallet: NodeWallet, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(wallet) ?? Promise.resolve()).then(task);
  queues.set(wallet, run.catch(() => undefined));
  return run;
}

/** The fewest largest trusted coins covering each asset's need, at least one each; throws -6 "Insufficient funds". */
export function pickCoins(wallet: NodeWallet, needs: Map<string, bigint>): SpendableCoin[] {
  const coins = wallet
    .unspent()
    .filter((c) => c.state === 'trusted')
    .sort((a, b) => (b.unblinded.value > a.unblinded.value ? 1 : b.unblinded.value < a.unblinded.value ? -1 : 0));
  const picked: SpendableCoin[] = [];
  for (const [asset, need] of needs) {
    let [sum, count] = [0n, 0];
    for (const coin of coins) {
      if (sum >= need && count > 0) break;
      if (coin.unblinded.asset !== asset) continue;
      picked.push({ txid: coin.txid, vout: coin.vout, output: coin.output, unblinded: coin.unblinded, key: coin.address.key });
      [sum, count] = [sum + coin.unblinded.value, count + 1];
    }
    if (sum < need || count === 0) throw insufficientFunds();
  }
  return picked;
}

/**
 * Builds `plan(fee)` once without a fee, then again paying `satPerKvB` of the built transaction's discounted vsize
 * (the explicit fee output's size is fixed); returns the signed transaction without submitting it.
 */
export function settleFee(
  node: ElementsNode,
  wallet: NodeWallet,
  satPerKvB: bigint,
  plan: (fee: bigint) => Omit<SpendRequest, 'genesisBlockHash'>,
): SignedTransaction {
  const genesis = Buffer.from(node.chain.active[0].hash, 'hex').reverse();
  let fee = 0n;
  for (let attempt = 0; attempt < 5; attempt++) {
    const signed = createTransaction(wallet.zkp, { ...plan(fee), genesisBlockHash: genesis });
    const required = (BigInt(wrapTx(signed.tx).vsize) * satPerKvB + 999n) / 1000n;
    // Exactly the rate, as elementsd's wallet pays it; a fee above it is kept only once the size stops settling.
    if (fee === required || (attempt > 0 && fee > required)) return signed;
    fee = required;
  }
  throw new Error('could not settle the fee');
}

/** sendtoaddress: builds, signs and submits; resolves to the txid. */
export function payTo(node: ElementsNode, wallet: NodeWallet, payment: Payment, satPerKvB: bigint): Promise<string> {
  if (payment.subtractFee && payment.asset !== POLICY_ASSET) {
    // elementsd's CreateTransaction refuses it, and sendtoaddress reports it as -6.
    throw new RpcFailure(
      RPC_WALLET_INSUFFICIENT_FUNDS,
      'Wallet does not support more than one type of fee at a time, therefore can not subtract fee from address amount, ' +
        `which is of a different asset id. fee asset: ${POLICY_ASSET} recipient asset: ${payment.asset}`,
    );
  }
  return serialized(wallet, async () => {
    const change = wallet.newAddress('bech32', true);
    const signed = settleFee(node, wallet, satPerKvB, (fee) => {
      if (payment.subtractFee && payment.amount <= fee) {
        throw new RpcFailure(RPC_WALLET_ERROR, 'The transaction amount is too small to pay the fee');
      }
      const needs = new Map([[payment.asset, payment.amount]]);
      if (!payment.subtractFee) needs.set(POLICY_ASSET, (needs.get(POLICY_ASSET) ?? 0n) + fee);
      const recipient: Recipient = {
        script: payment.to.script,
        amount: payment.subtractFee ? payment.amount - fee : payment.amount,
        asset: payment.asset,
        ...(payment.to.blindingKey ? { blindingKey: payment.to.blindingKey } : {}),
      };
      const changeTo = { script: change.script, blindingKey: change.blinding.publicKey };
      return { coins: pickCoins(wallet, needs), recipients: [recipient], fee, change: changeTo };
    });
    return node.acceptTransaction(wrapTx(signed.tx));
  });
}
