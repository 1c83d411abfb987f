// Swaps that run out of time, moved along by mining devnet blocks: the wallet's script-path refund of an
// expired submarine swap is refused by the node until the timeout height and accepted at it; an unclaimed
// reverse swap is refunded by Ferry through the refund leaf and alice's held payment is cancelled.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { newPreimage } from '../../helpers/swap-wallet.ts';
import { assertNonFinal, assertOnlySpend, assertScriptPathRefund, assertStatusOrder, withFerryLog } from './support/assertions.ts';
import { outputSum } from './support/chain.ts';
import { lockedReverse } from './support/reverse-lockup.ts';
import { startWorld, type World } from './support/world.ts';

let world: World;

before(async () => {
  world = await startWorld();
});

after(async () => {
  await world?.close();
});

describe('timeouts', { timeout: 600_000 }, () => {
  test("expired submarine: the wallet's script-path refund is non-final one block early and valid at the timeout", async () => {
    const { wallet, chain } = world;
    await withFerryLog(world, async () => {
      // No invoice is ever set, so Ferry can never pay and the lockup waits for its timeout.
      const swap = await wallet.createSubmarine({ preimageHash: newPreimage().preimageHash });
      const userBefore = await chain.balance(chain.user);
      const fromHeight = (await chain.height()) + 1;
      const lockup = await wallet.fund(swap, 60_000);
      const fundingFee = await chain.fee(lockup.txid);
      await wallet.status.waitFor(swap.id, ['transaction.mempool', 'transaction.confirmed']);
      await chain.mine(1);

      const destination = await wallet.destination();
      const refund = wallet.scriptPathRefund(swap, lockup, destination);
      assert.equal(await chain.mineTo(swap.timeoutBlockHeight - 1), swap.timeoutBlockHeight - 1);
      // the answer says which timeout the refund waits for, and roughly when (one block of ten minutes)
      assertNonFinal(await wallet.broadcast(refund.hex), swap.timeoutBlockHeight, 600);

      assert.equal(await chain.mine(1), swap.timeoutBlockHeight);
      await wallet.status.waitFor(swap.id, 'swap.expired');
      const onTime = await wallet.broadcast(refund.hex);
      assert.deepEqual(onTime, { status: 201, body: { id: refund.txid } });
      await chain.mine(1);

      const spend = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight), refund.txid);
      assertScriptPathRefund(spend, hex.encode(swap.tree.refundLeaf.output));
      assert.equal(spend.tx.locktime, swap.timeoutBlockHeight);
      assert.equal(await chain.unspentValue(refund.txid, 0), refund.value);
      assert.equal(await chain.balance(chain.user), userBefore - fundingFee - (lockup.value - refund.value));
      const expired = wallet.status.history(swap.id).find((u) => u.status === 'swap.expired');
      assert.equal(expired?.failureReason, 'onchain HTLC timed out');
    });
  });

  test('unclaimed reverse swap: Ferry refunds its lockup after the timeout and cancels the held payment', async () => {
    const { wallet, chain, lightning } = world;
    await withFerryLog(world, async () => {
      const [aliceBefore, ferryBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
      const { swap, paymentHash, fromHeight, payment, lockup, lockupFee, operatorBefore } = await lockedReverse(world, chain, wallet, 80_000);
      await chain.mine(1);
      await wallet.status.waitFor(swap.id, 'transaction.confirmed');
      assert.equal((await lightning.invoice('ferry', paymentHash)).state, 'ACCEPTED');

      // The wallet never claims. Ferry may only refund once its refund leaf's locktime is final.
      await chain.mineTo(swap.timeoutBlockHeight);
      await wallet.status.waitFor(swap.id, 'transaction.refunded');
      // The invoice is cancelled only once the refund is buried: until then the wallet's claim could still win.
      assert.equal((await lightning.invoice('ferry', paymentHash)).state, 'ACCEPTED');
      await chain.mine(1);
      const failed = await payment;
      assert.equal(failed.status, 'FAILED', "alice's payment is given back");

      const refund = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight));
      assertScriptPathRefund(refund, hex.encode(swap.tree.refundLeaf.output));
      const refunded = outputSum(refund.tx);
      assert.equal(
        await chain.balance(chain.operator),
        operatorBefore - lockupFee - (lockup.value - refunded),
        "the coins are back in Ferry's wallet, less the two fees",
      );

      assert.equal((await lightning.invoice('ferry', paymentHash)).state, 'CANCELED');
      assert.deepEqual(await lightning.balance('alice'), aliceBefore, "alice's balance is restored");
      assert.deepEqual(await lightning.balance('ferry'), ferryBefore);
      assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.mempool', 'transaction.confirmed', 'transaction.refunded']);
    });
  });
});
