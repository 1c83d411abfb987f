// Paying from a wallet: coin selection (confirmed coins first, largest first), a change output on the
// internal branch, signatures from @scure/btc-signer (P2WPKH, P2TR key path, P2SH-P2WPKH, P2PKH), and
// submission through the node's normal mempool acceptance.
import { Transaction, p2wpkh } from '@scure/btc-signer';
import { randomInt } from 'node:crypto';
import { dustThreshold } from '../accept.ts';
import { classifyScript } from '../script.ts';
import { RpcFailure, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../rpc/errors.ts';
import type { BitcoinNode } from '../node.ts';
import { REGTEST_SIGNER_NETWORK, xOnly, type AddressKind } from './keys.ts';
import type { CoinView, Wallet, WalletCoin } from './wallet.ts';

export interface Payment {
  script: Uint8Array;
  amount: bigint; // sat
  subtractFee: boolean;
}

export interface SendResult {
  txid: string;
  fee: bigint;
}

/** Spend weights (WU) with 72-byte DER signatures, as Core's size estimator assumes. */
export const INPUT_WEIGHT: Record<AddressKind, number> = {
  bech32: 41 * 4 + 108,
  bech32m: 41 * 4 + 66,
  'p2sh-segwit': (41 + 23) * 4 + 108,
  legacy: (41 + 107) * 4,
};
export const TX_OVERHEAD_WEIGHT = 10 * 4 + 2; // version, locktime, counts, segwit marker and flag
export const SEQUENCE_RBF = 0xfffffffd;
export const SEQUENCE_FINAL_LOCKTIME = 0xfffffffe; // not replaceable, nLockTime still enforced

export const outputWeight = (script: Uint8Array): number => (8 + 1 + script.length) * 4;

export function feeFor(weight: number, satPerKvB: bigint): bigint {
  const vsize = BigInt(Math.ceil(weight / 4));
  return (vsize * satPerKvB + 999n) / 1000n;
}

/** Core's rule when no -changetype is set: Taproot change when paying Taproot, otherwise P2WPKH. */
export function changeKind(payments: Payment[]): AddressKind {
  return payments.some((p) => classifyScript(p.script) === 'witness_v1_taproot') ? 'bech32m' : 'bech32';
}

// replaceable: signal BIP125 replaceability (Core's -walletrbf default, true since v24); false sends final-but-locktime
// sequences, which is what a 0-conf lockup must look like.
export function sendPayments(
  node: BitcoinNode,
  wallet: Wallet,
  payments: Payment[],
  satPerKvB: bigint,
  replaceable = true,
): SendResult {
  const spendable = wallet
    .unspent()
    .filter((coin) => coin.state === 'trusted')
    .sort((a, b) => Number(b.confirmations > 0) - Number(a.confirmations > 0) || (b.value > a.value ? 1 : b.value < a.value ? -1 : 0));
  const target = payments.reduce((sum, p) => sum + p.amount, 0n);
  const subtracting = payments.filter((p) => p.subtractFee);
  const changeTemplate = changeKind(payments) === 'bech32m' ? Uint8Array.of(0x51, 0x20, ...new Uint8Array(32)) : Uint8Array.of(0x00, 0x14, ...new Uint8Array(20));
  let weight = TX_OVERHEAD_WEIGHT + payments.reduce((sum, p) => sum + outputWeight(p.script), 0);

  const selected: CoinView[] = [];
  let total = 0n;
  let enough = false;
  for (const coin of spendable) {
    selected.push(coin);
    total += coin.value;
    weight += INPUT_WEIGHT[coin.key.kind];
    if (total >= (subtracting.length > 0 ? target : target + feeFor(weight, satPerKvB))) {
      enough = true;
      break;
    }
  }
  if (!enough) throw new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');

  const feeWithoutChange = feeFor(weight, satPerKvB);
  const feeWithChange = feeFor(weight + outputWeight(changeTemplate), satPerKvB);
  const leftover = total - target; // what is left once the recipients get their full amounts
  const recipientsPay = subtracting.length > 0;
  let change = leftover - (recipientsPay ? 0n : feeWithChange);
  // Change too small to be worth an output goes to the fee, as in Core.
  if (change <= dustThreshold(changeTemplate)) change = 0n;
  const fee = change > 0n ? feeWithChange : recipientsPay ? (leftover > feeWithoutChange ? leftover : feeWithoutChange) : leftover;

  const outputs = payments.map((p) => ({ script: p.script, amount: p.amount }));
  if (recipientsPay) {
    // The fee (less any leftover it can use) comes out of the recipients' amounts, split evenly.
    const charge = change > 0n ? fee : fee - leftover;
    const share = charge / BigInt(subtracting.length);
    subtracting.forEach((payment, i) => {
      outputs[payments.indexOf(payment)].amount -= share + (i === 0 ? charge - share * BigInt(subtracting.length) : 0n);
    });
  }
  for (const output of outputs) {
    if (output.amount < dustThreshold(output.script)) {
      throw new RpcFailure(RPC_WALLET_ERROR, recipientsPay ? 'The transaction amount is too small to pay the fee' : 'Transaction amount too small');
    }
  }
  if (change > 0n) {
    const changeKey = wallet.newKey(changeKind(payments), 1);
    outputs.splice(randomInt(outputs.length + 1), 0, { script: changeKey.script, amount: change });
  }

  const sequence = replaceable ? SEQUENCE_RBF : SEQUENCE_FINAL_LOCKTIME;
  const raw = signWalletSpend(node, wallet, selected.map((coin) => ({ coin, sequence })), outputs, node.height);
  const txid = node.acceptTransaction(raw);
  return { txid, fee };
}

/** A version 2 transaction spending wallet coins (each with its nSequence) to `outputs`, signed by the wallet. */
export function signWalletSpend(
  node: BitcoinNode,
  wallet: Wallet,
  inputs: { coin: WalletCoin; sequence: number }[],
  outputs: { script: Uint8Array; amount: bigint }[],
  lockTime: number,
): Uint8Array {
  const tx = new Transaction({ version: 2, lockTime, allowUnknownOutputs: true });
  for (const { coin, sequence } of inputs) {
    const { publicKey } = coin.key;
    const base = { txid: coin.txid, index: coin.vout, sequence };
    const witnessUtxo = { script: coin.script, amount: coin.value };
    if (coin.key.kind === 'bech32') tx.addInput({ ...base, witnessUtxo });
    else if (coin.key.kind === 'bech32m') tx.addInput({ ...base, witnessUtxo, tapInternalKey: xOnly(publicKey) });
    else if (coin.key.kind === 'p2sh-segwit')
      tx.addInput({ ...base, witnessUtxo, redeemScript: p2wpkh(publicKey, REGTEST_SIGNER_NETWORK).script });
    else tx.addInput({ ...base, nonWitnessUtxo: node.transaction(coin.txid)!.tx.raw });
  }
  for (const output of outputs) tx.addOutput({ script: output.script, amount: output.amount });
  inputs.forEach(({ coin }, i) => tx.signIdx(wallet.keys.derive(coin.key.kind, coin.key.branch, coin.key.index).privateKey, i));
  tx.finalize();
  return tx.extract();
}
