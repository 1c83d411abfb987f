// The first half of a reverse swap as the scenarios run it on either chain: the wallet creates the swap, alice pays
// its hold invoice, Ferry locks coins, and the wallet takes the lockup from the status update — checked to pay the
// swap, while Ferry only holds alice's payment and its wallet paid the lockup and its fee.
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { PaymentUpdate } from '../../../../src/lightning/backend.ts';
import type { StatusSocket } from '../../../helpers/swap-api.ts';
import type { World } from './world.ts';

/** What the step needs of a chain view (chain.ts, liquid-chain.ts). */
interface Chain {
  readonly operator: CoreRpcClient;
  height(): Promise<number>;
  balance(wallet: CoreRpcClient): Promise<bigint>;
  fee(txid: string): Promise<bigint>;
}

/** What the step needs of a wallet (swap-wallet.ts, liquid-swap-wallet.ts). */
interface ReverseWallet<S, L> {
  readonly status: StatusSocket;
  createReverse(invoiceAmount: number): Promise<S>;
  reverseLockup(swap: S, txHex: string): L;
}

export interface LockedReverse<S, L> {
  swap: S;
  paymentHash: string;
  /** The first block that can hold the lockup or its spends. */
  fromHeight: number;
  /** alice's payment, settled (or failed) when Ferry settles (or cancels) its hold invoice. */
  payment: Promise<PaymentUpdate>;
  lockup: L;
  lockupFee: bigint;
  /** Ferry's wallet balance before it locked. */
  operatorBefore: bigint;
}

export async function lockedReverse<S extends { id: string; preimageHash: Uint8Array; invoice: string }, L extends { txid: string; value: bigint }>(
  world: World,
  chain: Chain,
  wallet: ReverseWallet<S, L>,
  invoiceSat: number,
): Promise<LockedReverse<S, L>> {
  const operatorBefore = await chain.balance(chain.operator);
  const swap = await wallet.createReverse(invoiceSat);
  const paymentHash = hex.encode(swap.preimageHash);
  const fromHeight = (await chain.height()) + 1;
  const payment = world.lightning.pay('alice', swap.invoice);
  const mempool = await wallet.status.waitFor(swap.id, 'transaction.mempool');
  assert.ok(mempool.transaction?.hex, 'the lockup update carries the transaction');
  const lockup = wallet.reverseLockup(swap, mempool.transaction.hex);
  assert.equal(mempool.transaction.id, lockup.txid);
  assert.equal((await world.lightning.invoice('ferry', paymentHash)).state, 'ACCEPTED', 'Ferry holds the payment, not yet settled');
  const lockupFee = await chain.fee(lockup.txid);
  assert.equal(await chain.balance(chain.operator), operatorBefore - lockup.value - lockupFee, "Ferry's wallet paid the lockup");
  return { swap, paymentHash, fromHeight, payment, lockup, lockupFee, operatorBefore };
}
