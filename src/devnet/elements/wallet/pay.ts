// sendtoaddress's spend: picks trusted L-BTC coins, pays the recipient (blinded when the address is confidential),
// the fee in an explicit output and the change to a new confidential change address, then enters the mempool.
import { RpcFailure, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../../bitcoin/rpc/errors.ts';
import type { ElementsNode } from '../node.ts';
import { wrapTx } from '../tx.ts';
import type { DecodedAddress } from './address.ts';
import type { Recipient } from './build.ts';
import { POLICY_ASSET } from './network.ts';
import type { NodeWallet } from './node-wallet.ts';
import { createTransaction, type SignedTransaction, type SpendableCoin } from './send.ts';

export interface Payment {
  to: DecodedAddress;
  amount: bigint; // sat
  subtractFee: boolean;
}

const insufficient = (): RpcFailure => new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');

/** One spend at a time per wallet, so two calls never pick the same coins (elementsd holds the wallet lock). */
const queues = new WeakMap<NodeWallet, Promise<unknown>>();

/** Builds, signs and submits; the fee meets `satPerKvB` over the transaction's discounted vsize. */
export function payTo(node: ElementsNode, wallet: NodeWallet, payment: Payment, satPerKvB: bigint): Promise<string> {
  const run = (queues.get(wallet) ?? Promise.resolve()).then(() => pay(node, wallet, payment, satPerKvB));
  queues.set(wallet, run.catch(() => undefined));
  return run;
}

async function pay(node: ElementsNode, wallet: NodeWallet, payment: Payment, satPerKvB: bigint): Promise<string> {
  const coins = wallet
    .unspent()
    .filter((c) => c.state === 'trusted' && c.unblinded.asset === POLICY_ASSET)
    .sort((a, b) => (b.unblinded.value > a.unblinded.value ? 1 : b.unblinded.value < a.unblinded.value ? -1 : 0));
  const total = coins.reduce((sum, c) => sum + c.unblinded.value, 0n);
  if (total < payment.amount) throw insufficient();
  const change = wallet.newAddress('bech32', true);
  const genesis = Buffer.from(node.chain.active[0].hash, 'hex').reverse();
  // Built once without a fee, then again paying `satPerKvB` of its size (the explicit fee output's size is fixed).
  let fee = 0n;
  let signed: SignedTransaction | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const need = payment.subtractFee ? payment.amount : payment.amount + fee;
    if (payment.subtractFee && payment.amount <= fee) {
      throw new RpcFailure(RPC_WALLET_ERROR, 'The transaction amount is too small to pay the fee');
    }
    if (total < need) throw insufficient();
    const picked: SpendableCoin[] = [];
    let sum = 0n;
    for (const coin of coins) {
      if (sum >= need) break;
      picked.push({ txid: coin.txid, vout: coin.vout, output: coin.output, unblinded: coin.unblinded, key: coin.address.key });
      sum += coin.unblinded.value;
    }
    const recipient: Recipient = {
      script: payment.to.script,
      amount: payment.subtractFee ? payment.amount - fee : payment.amount,
      ...(payment.to.blindingKey ? { blindingKey: payment.to.blindingKey } : {}),
    };
    signed = createTransaction(wallet.zkp, {
      coins: picked, recipients: [recipient], fee,
      change: { script: change.script, blindingKey: change.blinding.publicKey },
      genesisBlockHash: genesis,
    });
    const required = (BigInt(wrapTx(signed.tx).vsize) * satPerKvB + 999n) / 1000n;
    // Exactly the rate, as elementsd's wallet pays it; a fee above it is kept only once the size stops settling.
    if (fee === required || (attempt > 0 && fee > required)) break;
    fee = required;
    signed = undefined;
  }
  if (!signed) throw new Error('could not settle the fee');
  return node.acceptTransaction(wrapTx(signed.tx));
}
