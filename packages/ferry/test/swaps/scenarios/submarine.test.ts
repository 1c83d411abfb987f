// Submarine swaps (chain → Lightning) end to end against a real Ferry: a boltz-core wallet locks coins from
// the devnet user wallet, Ferry pays alice's invoice over the devnet Lightning network, and the coins go to
// whoever the protocol says — asserted on chain (UTXOs, witnesses, wallet balances) and on the Lightning
// nodes (channel balances, invoice states), with statuses followed over the WebSocket.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Scripts } from 'boltz-core';
import { addressOfScript, newKeyPair, type Lockup, type StatusUpdate, type SubmarineSwap } from '../../helpers/swap-wallet.ts';
import {
  assertKeyPath,
  assertLightningMoved,
  assertOnlySpend,
  assertRefundRefused,
  assertScriptPathClaim,
  assertStatusOrder,
  withFerryLog,
} from './support/assertions.ts';
import { outputSum } from './support/chain.ts';
import { startWorld, type World } from './support/world.ts';
import { onCln } from '../../helpers/test-lightning.ts';

/** Short enough for the silent-client scenario, long enough for the wallet's answer under a loaded machine. */
const CLAIM_DELAY_MS = 5_000;

let world: World;

before(async () => {
  world = await startWorld({ claimDelayMs: CLAIM_DELAY_MS });
});

after(async () => {
  await world?.close();
});

/**
 * Funds the swap from the user wallet and waits until Ferry has seen the lockup; mines a block when Ferry
 * does not trust it unconfirmed (the devnet wallet signals RBF, which rules 0-conf out).
 */
async function lockAndWait(swap: SubmarineSwap, amount: number): Promise<{ lockup: Lockup; fromHeight: number; seen: StatusUpdate }> {
  const { wallet, chain } = world;
  const fromHeight = (await chain.height()) + 1;
  const lockup = await wallet.fund(swap, amount);
  const seen = await wallet.status.waitFor(swap.id, ['transaction.mempool', 'transaction.confirmed', 'transaction.lockupFailed']);
  if (seen.status === 'transaction.mempool') await chain.mine(1);
  return { lockup, fromHeight, seen };
}

// A hung step (a payment that never resolves) fails the suite instead of stalling the run.
describe('submarine swaps', { timeout: 600_000 }, () => {
  test('the wallet checks the answer: a wrong address, key or amount is refused before funding', async () => {
    const { wallet, lightning } = world;
    const { invoice, paymentHash } = await lightning.addInvoice('alice', 20_000);
    const pair = await wallet.submarinePair();
    const key = newKeyPair();
    const preimageHash = hex.decode(paymentHash);
    const body = await wallet.api.expect(
      'POST',
      '/v2/swap/submarine',
      { from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(key.publicKey) },
      201,
    );
    const genuine = await wallet.checkSubmarine(body, key, preimageHash, invoice, pair);
    assert.equal(genuine.address, body.address);
    const check = (tampered: object, ownKey = key) => wallet.checkSubmarine({ ...body, ...tampered }, ownKey, preimageHash, invoice, pair);
    const elsewhere = addressOfScript(Scripts.p2trOutput(newKeyPair().publicKey));
    await assert.rejects(check({ address: elsewhere }), /does not commit/);
    await assert.rejects(check({ claimPublicKey: hex.encode(newKeyPair().publicKey) }), /swap tree differs/);
    await assert.rejects(check({ timeoutBlockHeight: body.timeoutBlockHeight + 1 }), /swap tree differs/);
    await assert.rejects(check({ expectedAmount: body.expectedAmount - 1 }), /expectedAmount/);
    await assert.rejects(check({}, newKeyPair()), /swap tree differs/);
    assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'nothing was paid');
  });

  test('0-conf and cooperative claim: alice is paid once, before a block, and Ferry claims through the key path', async () => {
    const { wallet, chain, lightning } = world;
    await withFerryLog(world, async () => {
      const amount = 50_000;
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [alice, ferry, userBefore, operatorBefore] = await Promise.all([
        lightning.balance('alice'),
        lightning.balance('ferry'),
        chain.balance(chain.user),
        chain.balance(chain.operator),
      ]);

      const swap = await wallet.createSubmarine({ invoice });
      assert.equal(swap.acceptZeroConf, true);
      await wallet.status.waitFor(swap.id, 'invoice.set');
      const coin = await wallet.ownCoin(swap.expectedAmount! + 10_000);
      await chain.mine(1);
      const fromHeight = (await chain.height()) + 1;
      const lockup = await wallet.fundFinal(swap, coin, swap.expectedAmount!);
      assert.equal(lockup.value, BigInt(swap.expectedAmount!));
      const fees = (await chain.fee(coin.txid)) + (await chain.fee(lockup.txid));
      assert.equal(await chain.balance(chain.user), userBefore - lockup.value - fees, 'the user wallet paid the lockup');

      const mempool = await wallet.status.waitFor(swap.id, 'transaction.mempool');
      assert.equal(mempool.zeroConfRejected, undefined, 'a final lockup paying the fee estimate is trusted unconfirmed');
      assert.equal(mempool.transaction?.id, lockup.txid);
      await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
      assert.equal(await chain.confirmations(lockup.txid), 0, 'Ferry paid while the lockup was unconfirmed');
      // The claim is only requested once alice holds the money.
      const paid = await lightning.invoice('alice', paymentHash);
      assert.equal(paid.state, 'SETTLED');
      assert.equal(paid.amountPaidMsat, BigInt(amount) * 1000n);

      // Ferry paid: it must not help the wallet take the coins back now.
      await assertRefundRefused(wallet.cooperativeRefund(swap, lockup, await wallet.destination()));
      const preimage = await wallet.cooperativeClaim(swap);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      await chain.mine(1);

      const claim = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight));
      assertKeyPath(claim);
      assert.equal(await chain.balance(chain.operator), operatorBefore + outputSum(claim.tx), "the claim pays Ferry's wallet");
      await assertLightningMoved(world, 'ferry', 'alice', { alice, ferry }, amount);
      assert.equal((await lightning.payment('ferry', paymentHash))?.status, 'SUCCEEDED');
      assert.equal(hex.encode(preimage), (await lightning.payment('ferry', paymentHash))?.preimage);
      assert.equal((await wallet.api.expect('GET', `/v2/swap/submarine/${swap.id}/preimage`, undefined, 200)).preimage, hex.encode(preimage));

      assertStatusOrder(wallet.status.statuses(swap.id), [
        'invoice.set',
        'transaction.mempool',
        'invoice.pending',
        'invoice.paid',
        'transaction.claim.pending',
        'transaction.claimed',
      ]);
      assert.deepEqual((await wallet.api.expect('GET', `/v2/swap/${swap.id}`, undefined, 200)).status, 'transaction.claimed');
    });
  });

  test('silent client: after the claim delay Ferry claims alone through the claim leaf', async () => {
    const { wallet, chain, lightning } = world;
    await withFerryLog(world, async () => {
      const amount = 25_000;
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [alice, ferry, operatorBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry'), chain.balance(chain.operator)]);
      const swap = await wallet.createSubmarine({ invoice });
      const { lockup, fromHeight, seen } = await lockAndWait(swap, swap.expectedAmount!);
      assert.deepEqual([seen.status, seen.zeroConfRejected], ['transaction.mempool', true], 'an RBF lockup waits for a block');
      await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
      // The wallet never answers.
      await wallet.status.waitFor(swap.id, 'transaction.claimed', CLAIM_DELAY_MS + 20_000);
      await chain.mine(1);

      const payment = await lightning.payment('ferry', paymentHash);
      assert.equal(payment?.status, 'SUCCEEDED');
      const claim = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight));
      assertScriptPathClaim(claim, payment!.preimage!, hex.encode(swap.tree.claimLeaf.output));
      assert.equal(await chain.balance(chain.operator), operatorBefore + outputSum(claim.tx));
      await assertLightningMoved(world, 'ferry', 'alice', { alice, ferry }, amount);
    });
  });

  test('unpayable invoice: invoice.failedToPay, then a cooperative refund returns the coins', async () => {
    const { wallet, chain, lightning } = world;
    await withFerryLog(world, async () => {
      // More than Ferry's node can send to alice: no route has the liquidity.
      const amount = Number(await lightning.localBalanceWith('ferry', 'alice')) + 100_000;
      assert.ok(amount <= (await wallet.submarinePair()).limits.maximal);
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [aliceBefore, ferryBefore, userBefore] = await Promise.all([
        lightning.balance('alice'),
        lightning.balance('ferry'),
        chain.balance(chain.user),
      ]);

      const swap = await wallet.createSubmarine({ invoice });
      const { lockup, fromHeight } = await lockAndWait(swap, swap.expectedAmount!);
      const fundingFee = await chain.fee(lockup.txid);
      await wallet.status.waitFor(swap.id, 'invoice.failedToPay');

      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'alice was not paid');
      // LND keeps the failed payment; Core Lightning's xpay refuses before sending anything and records none
      assert.equal((await lightning.payment('ferry', paymentHash))?.status, onCln() ? undefined : 'FAILED');
      assert.deepEqual(await lightning.balance('alice'), aliceBefore);
      assert.deepEqual(await lightning.balance('ferry'), ferryBefore);

      const refund = await wallet.cooperativeRefund(swap, lockup, await wallet.destination());
      await chain.mine(1);
      assertKeyPath(assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight), refund.txid));
      assert.equal(await chain.unspentValue(refund.txid, 0), refund.value);
      assert.equal(await chain.balance(chain.user), userBefore - fundingFee - (lockup.value - refund.value), 'the coins are back, less fees');
      assertStatusOrder(wallet.status.statuses(swap.id), ['invoice.set', 'invoice.failedToPay']);
    });
  });

  test('underpaid lockup: transaction.lockupFailed with the amounts, then a cooperative refund', async () => {
    const { wallet, chain, lightning } = world;
    await withFerryLog(world, async () => {
      const { invoice, paymentHash } = await lightning.addInvoice('alice', 30_000);
      const userBefore = await chain.balance(chain.user);
      const swap = await wallet.createSubmarine({ invoice });
      const short = swap.expectedAmount! - 1_000;
      const { lockup, fromHeight } = await lockAndWait(swap, short);
      const failed = await wallet.status.waitFor(swap.id, 'transaction.lockupFailed');
      assert.equal(failed.failureReason, `locked ${short} is less than expected ${swap.expectedAmount}`);
      assert.deepEqual(failed.failureDetails, { expected: swap.expectedAmount, actual: short });

      const refund = await wallet.cooperativeRefund(swap, lockup, await wallet.destination());
      await chain.mine(1);
      assertKeyPath(assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight), refund.txid));
      const fundingFee = await chain.fee(lockup.txid);
      assert.equal(await chain.balance(chain.user), userBefore - fundingFee - (lockup.value - refund.value));
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'the invoice of an underpaid swap is never paid');
      assert.equal(await lightning.payment('ferry', paymentHash), undefined, 'Ferry never tried to pay it');
    });
  });
});
