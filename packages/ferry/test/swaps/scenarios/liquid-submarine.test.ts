// Submarine swaps L-BTC → Lightning end to end against a real Ferry: a Liquid wallet (boltz-core 4.x or 2.x) checks
// the confidential lockup address, funds it from the devnet Elements user wallet, and Ferry pays alice's invoice
// over the devnet Lightning network — asserted on the Elements chain (which transaction spent the lockup, in which
// block, through which path, L-BTC wallet balances) and on the Lightning nodes, with statuses from the WebSocket.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs): the cases Ferry's node pays in (the
// claims, the RBF lockup, the unpayable invoice); the rest, which never reach the node, on LND only (testOffTheNode).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction, address } from 'liquidjs-lib';
import { boltzCore2 } from '../../helpers/liquid-boltz-core-2.ts';
import { boltzCore4 } from '../../helpers/liquid-boltz-core-4.ts';
import type { LiquidLockup, LiquidSubmarineSwap, LiquidSwapWallet } from '../../helpers/liquid-swap-wallet.ts';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { newKeyPair, newPreimage, type StatusUpdate } from '../../helpers/swap-api.ts';
import {
  assertKeyPath,
  assertLightningMoved,
  assertNonFinal,
  assertOnlySpend,
  assertRefundRefused,
  assertScriptPathClaim,
  assertScriptPathRefund,
  assertStatusOrder,
  withFerryLog,
} from './support/assertions.ts';
import { startWorld, type World } from './support/world.ts';
import { onCln, testOffTheNode } from '../../helpers/test-lightning.ts';

/**
 * Short enough for the silent-client scenario, long enough for the wallet's checks and its Liquid MuSig2 round after
 * Ferry paid: those took over 5 s at load ~15, and Ferry then claimed alone and refused the wallet's cooperative claim.
 */
const CLAIM_DELAY_MS = 15_000;
/** Lightning's CLTV deltas count Bitcoin blocks of ten minutes; Liquid's blocks come every minute. */
const BITCOIN_BLOCK_SECONDS = 600;
const LIQUID_BLOCK_SECONDS = 60;

let world: World;
const wallets = {} as Record<'4.x' | '2.x', LiquidSwapWallet>;

before(async () => {
  world = await startWorld({ claimDelayMs: CLAIM_DELAY_MS });
  wallets['4.x'] = await world.liquidWallet(boltzCore4);
  wallets['2.x'] = await world.liquidWallet(boltzCore2);
});

after(async () => {
  await world?.close();
});

/**
 * Funds the swap (from the user wallet, or in a transaction signalling RBF) and waits until Ferry has seen the
 * lockup; mines a block when Ferry does not trust it unconfirmed.
 */
async function lockAndWait(wallet: LiquidSwapWallet, swap: LiquidSubmarineSwap, amount: number, options: { replaceable?: boolean } = {}) {
  const fromHeight = (await world.liquid.height()) + 1;
  const lockup = options.replaceable ? await wallet.fundReplaceable(swap, amount) : await wallet.fund(swap, amount);
  const seen: StatusUpdate = await wallet.status.waitFor(swap.id, ['transaction.mempool', 'transaction.confirmed', 'transaction.lockupFailed']);
  if (seen.status === 'transaction.mempool' && seen.zeroConfRejected) await world.liquid.mine(1);
  return { lockup, fromHeight, seen, fundingFee: await world.liquid.fee(lockup.txid) };
}

/** The wallet's cooperative refund, confirmed as the lockup's only spend, through the key path. */
async function refundTogether(wallet: LiquidSwapWallet, swap: LiquidSubmarineSwap, lockup: LiquidLockup, fromHeight: number) {
  const refund = await wallet.cooperativeRefund(swap, lockup, await wallet.destination());
  await world.liquid.mine(1);
  assertKeyPath(assertOnlySpend(await world.liquid.spendsOf(lockup.txid, lockup.vout, fromHeight), refund.txid));
  assert.equal(await world.liquid.fee(refund.txid), refund.fee);
  return refund;
}

/**
 * The payment's HTLC must resolve before the wallet may refund: the time lock Ferry allowed it, in Bitcoin blocks,
 * ends before the Liquid timeout, and still leaves room for the invoice's final CLTV delta.
 */
async function assertPaymentTimeLock(swap: LiquidSubmarineSwap): Promise<void> {
  const { cltvLimit } = world.payRequests.find((request) => request.paymentRequest === swap.invoice)!;
  const secondsLeft = (swap.timeoutBlockHeight - (await world.liquid.height())) * LIQUID_BLOCK_SECONDS;
  assert.ok(cltvLimit! * BITCOIN_BLOCK_SECONDS < secondsLeft, `cltv_limit ${cltvLimit} Bitcoin blocks outlasts the ${secondsLeft} s to the timeout`);
  assert.ok(cltvLimit! >= decodeBolt11(swap.invoice!).minFinalCltvExpiry, `cltv_limit ${cltvLimit} leaves no room for the final CLTV delta`);
}

async function until(condition: () => boolean, what: () => string, timeoutMs = 15_000): Promise<void> {
  for (const start = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what()}`);
  }
}

describe('Liquid submarine swaps', { timeout: 600_000 }, () => {
  testOffTheNode('the wallet checks the answer: a wrong address, blinding key, tree key or amount is refused before funding', async () => {
    const wallet = wallets['4.x'];
    const { invoice, paymentHash } = await world.lightning.addInvoice('alice', 20_000);
    const pair = await wallet.submarinePair();
    const key = newKeyPair();
    const preimageHash = hex.decode(paymentHash);
    const body = await wallet.api.expect('POST', '/v2/swap/submarine', { from: 'L-BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(key.publicKey) }, 201);
    assert.equal((await wallet.checkSubmarine(body, key, preimageHash, invoice, pair)).address, body.address);
    const check = (tampered: object, ownKey = key) => wallets['2.x'].checkSubmarine({ ...body, ...tampered }, ownKey, preimageHash, invoice, pair);
    assert.equal((await check({})).address, body.address, 'the 2.x wallet accepts the same answer');
    const { unconfidentialAddress } = address.fromConfidential(body.address);
    await assert.rejects(check({ address: unconfidentialAddress }), /blinded to the blinding key/);
    await assert.rejects(check({ address: address.toConfidential(unconfidentialAddress, Buffer.from(newKeyPair().publicKey)) }), /blinded to the blinding key/);
    await assert.rejects(check({ blindingKey: hex.encode(newKeyPair().privateKey) }), /blinded to the blinding key/);
    await assert.rejects(check({ claimPublicKey: hex.encode(newKeyPair().publicKey) }), /swap tree differs/);
    await assert.rejects(check({ timeoutBlockHeight: body.timeoutBlockHeight + 1 }), /swap tree differs/);
    await assert.rejects(check({ expectedAmount: body.expectedAmount - 1 }), /expectedAmount/);
    await assert.rejects(check({ bip21: body.bip21.replace(/assetid=\w+/, 'assetid=' + '11'.repeat(32)) }), /L-BTC/);
    await assert.rejects(check({}, newKeyPair()), /swap tree differs/);
    assert.equal((await world.lightning.invoice('alice', paymentHash)).state, 'OPEN', 'nothing was paid');
  });

  for (const version of ['4.x', '2.x'] as const) {
    test(`0-conf and cooperative claim (boltz-core ${version}): a final lockup is trusted unconfirmed, alice is paid once, Ferry claims by key path`, async () => {
      const { liquid, lightning } = world;
      const wallet = wallets[version];
      await withFerryLog(world, async () => {
        const amount = 50_000;
        const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
        const [alice, ferry, userBefore, operatorBefore] = await Promise.all([
          lightning.balance('alice'),
          lightning.balance('ferry'),
          liquid.balance(liquid.user),
          liquid.balance(liquid.operator),
        ]);
        const swap = await wallet.createSubmarine({ invoice });
        assert.equal(swap.acceptZeroConf, true);
        assert.ok(swap.expectedAmount! <= (await wallet.submarinePair()).limits.maximalZeroConf, 'within maximalZeroConf');
        await wallet.status.waitFor(swap.id, 'invoice.set');

        const { lockup, fromHeight, seen, fundingFee } = await lockAndWait(wallet, swap, swap.expectedAmount!);
        assert.equal(lockup.value, BigInt(swap.expectedAmount!), 'the lockup unblinds to the expected amount');
        const sequences = Transaction.fromHex(lockup.hex).ins.map((input) => input.sequence);
        assert.ok(sequences.every((sequence) => sequence >= 0xfffffffe), `the devnet wallet's lockup does not signal RBF: ${sequences}`);
        assert.equal(await liquid.balance(liquid.user), userBefore - lockup.value - fundingFee, 'the user wallet paid the lockup and its fee');
        assert.deepEqual([seen.status, seen.zeroConfRejected, seen.transaction?.id], ['transaction.mempool', undefined, lockup.txid]);

        await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
        assert.equal(await liquid.confirmations(lockup.txid), 0, 'Ferry paid while the lockup was unconfirmed');
        await assertPaymentTimeLock(swap);
        const paid = await lightning.invoice('alice', paymentHash);
        assert.deepEqual([paid.state, paid.amountPaidMsat], ['SETTLED', BigInt(amount) * 1000n], 'alice holds the money before the claim');

        // Ferry paid: it must not help the wallet take the coins back now.
        await assertRefundRefused(wallet.cooperativeRefund(swap, lockup, await wallet.destination()));
        const preimage = await wallet.cooperativeClaim(swap);
        await wallet.status.waitFor(swap.id, 'transaction.claimed');
        await liquid.mine(1);

        const claim = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, fromHeight));
        assertKeyPath(claim);
        const claimFee = await liquid.fee(claim.txid);
        assert.equal(await liquid.balance(liquid.operator), operatorBefore + lockup.value - claimFee, "the claim pays Ferry's wallet");
        await assertLightningMoved(world, 'ferry', 'alice', { alice, ferry }, amount);
        assert.equal((await lightning.payment('ferry', paymentHash))?.preimage, hex.encode(preimage));
        assertStatusOrder(wallet.status.statuses(swap.id), [
          'invoice.set',
          'transaction.mempool',
          'invoice.pending',
          'invoice.paid',
          'transaction.claim.pending',
          'transaction.claimed',
        ]);
      });
    });
  }

  test('RBF lockup and silent client: Ferry pays only after a block, then claims alone through the claim leaf', async () => {
    const { liquid, lightning } = world;
    const wallet = wallets['4.x'];
    await withFerryLog(world, async () => {
      const amount = 25_000;
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [alice, ferry, operatorBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry'), liquid.balance(liquid.operator)]);
      const swap = await wallet.createSubmarine({ invoice });
      const { lockup, fromHeight, seen } = await lockAndWait(wallet, swap, swap.expectedAmount!, { replaceable: true });
      assert.ok(Transaction.fromHex(lockup.hex).ins.some((input) => input.sequence < 0xfffffffe), 'the lockup signals RBF');
      assert.deepEqual([seen.status, seen.zeroConfRejected], ['transaction.mempool', true], 'a lockup signalling RBF waits for a block');
      await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
      assert.ok((await world.liquid.confirmations(lockup.txid)) > 0, 'Ferry paid once the lockup confirmed');
      // The wallet never answers.
      await wallet.status.waitFor(swap.id, 'transaction.claimed', CLAIM_DELAY_MS + 20_000);
      await liquid.mine(1);

      const payment = await lightning.payment('ferry', paymentHash);
      assert.equal(payment?.status, 'SUCCEEDED');
      const claim = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, fromHeight));
      assertScriptPathClaim(claim, payment!.preimage!, hex.encode(swap.tree.claimLeaf.output));
      assert.equal(await liquid.balance(liquid.operator), operatorBefore + lockup.value - (await liquid.fee(claim.txid)));
      await assertLightningMoved(world, 'ferry', 'alice', { alice, ferry }, amount);
    });
  });

  for (const version of ['4.x', '2.x'] as const) {
    testOffTheNode(`underpaid lockup: transaction.lockupFailed with the amounts, then a cooperative refund (boltz-core ${version})`, async () => {
      const { liquid, lightning } = world;
      const wallet = wallets[version];
      await withFerryLog(world, async () => {
        const { invoice, paymentHash } = await lightning.addInvoice('alice', 30_000);
        const userBefore = await liquid.balance(liquid.user);
        const swap = await wallet.createSubmarine({ invoice });
        const short = swap.expectedAmount! - 1_000;
        const { lockup, fromHeight, fundingFee } = await lockAndWait(wallet, swap, short);
        const failed = await wallet.status.waitFor(swap.id, 'transaction.lockupFailed');
        assert.equal(failed.failureReason, `locked ${short} is less than expected ${swap.expectedAmount}`);
        assert.deepEqual(failed.failureDetails, { expected: swap.expectedAmount, actual: short });

        const refund = await refundTogether(wallet, swap, lockup, fromHeight);
        assert.equal(await liquid.balance(liquid.user), userBefore - fundingFee - refund.fee, 'the coins are back, less both fees');
        assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'the invoice of an underpaid swap is never paid');
        assert.equal(await lightning.payment('ferry', paymentHash), undefined, 'Ferry never tried to pay it');
      });
    });
  }

  test('unpayable invoice: invoice.failedToPay, then a cooperative refund returns the coins', async () => {
    const { liquid, lightning } = world;
    const wallet = wallets['4.x'];
    await withFerryLog(world, async () => {
      // More than Ferry's node can send to alice: no route has the liquidity.
      const amount = Number(await lightning.localBalanceWith('ferry', 'alice')) + 100_000;
      assert.ok(amount <= (await wallet.submarinePair()).limits.maximal);
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [aliceBefore, ferryBefore, userBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry'), liquid.balance(liquid.user)]);

      const swap = await wallet.createSubmarine({ invoice });
      const { lockup, fromHeight, fundingFee, seen } = await lockAndWait(wallet, swap, swap.expectedAmount!);
      assert.ok(swap.expectedAmount! > (await wallet.submarinePair()).limits.maximalZeroConf);
      assert.equal(seen.zeroConfRejected, true, 'a lockup above maximalZeroConf waits for a block');
      await wallet.status.waitFor(swap.id, 'invoice.failedToPay');
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'alice was not paid');
      // LND keeps the failed payment; Core Lightning's xpay refuses before sending anything and records none
      assert.equal((await lightning.payment('ferry', paymentHash))?.status, onCln() ? undefined : 'FAILED');
      assert.deepEqual(await lightning.balance('alice'), aliceBefore);
      assert.deepEqual(await lightning.balance('ferry'), ferryBefore);

      const refund = await refundTogether(wallet, swap, lockup, fromHeight);
      assert.equal(await liquid.balance(liquid.user), userBefore - fundingFee - refund.fee, 'the coins are back, less fees');
      assertStatusOrder(wallet.status.statuses(swap.id), ['invoice.set', 'invoice.failedToPay']);
    });
  });

  testOffTheNode("late lockup: with fewer Liquid blocks left than the invoice's final CLTV delta lasts, Ferry does not pay; refund after the timeout", async () => {
    const { liquid, lightning } = world;
    const wallet = wallets['4.x'];
    await withFerryLog(world, async () => {
      const { invoice, paymentHash } = await lightning.addInvoice('alice', 20_000);
      const finalCltvSeconds = decodeBolt11(invoice).minFinalCltvExpiry * BITCOIN_BLOCK_SECONDS;
      const swap = await wallet.createSubmarine({ invoice });
      // The user funds late: the time left is shorter than alice's final CLTV delta (80 Bitcoin blocks, 800 minutes).
      const blocksLeft = 700;
      assert.ok(blocksLeft * LIQUID_BLOCK_SECONDS < finalCltvSeconds);
      await liquid.mineTo(swap.timeoutBlockHeight - blocksLeft);
      const userBefore = await liquid.balance(liquid.user);
      const { lockup, fromHeight, fundingFee } = await lockAndWait(wallet, swap, swap.expectedAmount!);
      await until(
        () => world.log.some((line) => line.includes('too close to the swap timeout') && line.includes(swap.id)),
        () => `Ferry to decline paying; statuses ${JSON.stringify(wallet.status.statuses(swap.id))}`,
      );
      assert.ok(!wallet.status.statuses(swap.id).includes('invoice.pending'), 'no payment was started');
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', 'alice was not paid');
      assert.equal(await lightning.payment('ferry', paymentHash), undefined, 'Ferry never tried to pay');

      await liquid.mineTo(swap.timeoutBlockHeight);
      await wallet.status.waitFor(swap.id, 'swap.expired');
      const refund = await refundTogether(wallet, swap, lockup, fromHeight);
      assert.equal(await liquid.balance(liquid.user), userBefore - fundingFee - refund.fee, 'the coins are back, less fees');
    });
  });

  testOffTheNode("timeout: the wallet's script-path refund is non-final one Liquid block early and valid at the timeout", async () => {
    const { liquid } = world;
    const wallet = wallets['4.x'];
    await withFerryLog(world, async () => {
      // No invoice is ever set, so Ferry can never pay and the lockup waits for its timeout.
      const swap = await wallet.createSubmarine({ preimageHash: newPreimage().preimageHash });
      const userBefore = await liquid.balance(liquid.user);
      const { lockup, fromHeight, fundingFee } = await lockAndWait(wallet, swap, 60_000);
      await liquid.mine(1);
      assert.ok(swap.timeoutBlockHeight - (await liquid.height()) >= 1_400, `a Liquid timeout: ${swap.timeoutBlockHeight}`);

      const refund = wallet.scriptPathRefund(swap, lockup, await wallet.destination());
      assert.equal(await liquid.mineTo(swap.timeoutBlockHeight - 1), swap.timeoutBlockHeight - 1);
      // the answer says which timeout the refund waits for, and roughly when: one Liquid block, a minute
      assertNonFinal(await wallet.broadcast(refund.hex), swap.timeoutBlockHeight, LIQUID_BLOCK_SECONDS);

      assert.equal(await liquid.mine(1), swap.timeoutBlockHeight);
      await wallet.status.waitFor(swap.id, 'swap.expired');
      assert.deepEqual(await wallet.broadcast(refund.hex), { status: 201, body: { id: refund.txid } });
      await liquid.mine(1);

      const spend = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, fromHeight), refund.txid);
      assertScriptPathRefund(spend, hex.encode(swap.tree.refundLeaf.output));
      assert.equal(spend.tx.locktime, swap.timeoutBlockHeight);
      assert.equal(await liquid.balance(liquid.user), userBefore - fundingFee - refund.fee);
      const expired = wallet.status.history(swap.id).find((u) => u.status === 'swap.expired');
      assert.equal(expired?.failureReason, 'onchain HTLC timed out');
    });
  });
});
