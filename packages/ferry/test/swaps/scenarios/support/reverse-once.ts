// The end of a reverse swap whose Ferry died while locking (crash and several-instance tests): once the restarted
// or standby Ferry says the lockup is in the mempool, the wallet claims it cooperatively and the invoice settles;
// then the effects are counted — one transaction pays the lockup address, the operator wallet paid it once, alice
// paid once.
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import type { PaymentUpdate } from '../../../../src/lightning/backend.ts';
import type { ReverseSwap, SwapWallet } from '../../../helpers/swap-wallet.ts';
import type { DevnetChain } from './chain.ts';
import type { ChannelBalance, LightningNodes } from './lightning.ts';

export interface ReverseBefore {
  amount: number;
  fromHeight: number;
  operatorBefore: bigint;
  aliceBefore: ChannelBalance;
}

export async function claimReverseLockedOnce(
  wallet: SwapWallet,
  swap: ReverseSwap,
  payment: Promise<PaymentUpdate>,
  world: { chain: DevnetChain; lightning: LightningNodes },
  before: ReverseBefore,
): Promise<void> {
  const { chain, lightning } = world;
  const { hex: lockupHex } = await wallet.api.expect('GET', `/v2/swap/reverse/${swap.id}/transaction`, undefined, 200);
  const lockup = wallet.reverseLockup(swap, lockupHex);
  await wallet.cooperativeReverseClaim(swap, lockup, await wallet.destination());
  await wallet.status.waitFor(swap.id, 'invoice.settled');
  const paid = await payment;
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(paid.preimage, hex.encode(swap.preimage));
  await chain.mine(1);

  const lockups = await chain.paymentsTo(swap.outputScript, before.fromHeight);
  assert.deepEqual(lockups.map((tx) => tx.txid), [lockup.txid], 'exactly one transaction pays the lockup address');
  const lockupFee = await chain.fee(lockup.txid);
  assert.equal(await chain.balance(chain.operator), before.operatorBefore - lockup.value - lockupFee, 'the operator wallet paid once');
  const aliceAfter = await lightning.balance('alice');
  assert.equal(before.aliceBefore.localMsat - aliceAfter.localMsat, BigInt(before.amount) * 1000n + paid.feeMsat, 'alice paid once');
}
