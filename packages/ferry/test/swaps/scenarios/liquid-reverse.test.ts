// Reverse swaps Lightning → L-BTC end to end against a real Ferry: alice pays Ferry's hold invoice, Ferry locks
// blinded L-BTC from its Elements wallet, and a Liquid wallet (boltz-core 4.x or 2.x) unblinds the lockup and
// claims it to a confidential address of the user wallet — with Ferry's partial signature through the key path, or
// alone through the claim leaf — or never claims, and Ferry refunds after the Liquid timeout. Asserted on the
// Elements chain (the lockup's single spend, its path, L-BTC balances) and on the Lightning nodes.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { boltzCore2 } from '../../helpers/liquid-boltz-core-2.ts';
import { boltzCore4 } from '../../helpers/liquid-boltz-core-4.ts';
import type { BuiltLiquidTransaction, LiquidDestination, LiquidLockup, LiquidReverseSwap, LiquidSwapWallet } from '../../helpers/liquid-swap-wallet.ts';
import {
  assertKeyPath,
  assertLightningMoved,
  assertOnlySpend,
  assertScriptPathClaim,
  assertScriptPathRefund,
  assertStatusOrder,
  assertWrongPreimageRefused,
  withFerryLog,
} from './support/assertions.ts';
import { lockedReverse } from './support/reverse-lockup.ts';
import { startWorld, type World } from './support/world.ts';

let world: World;
const wallets = {} as Record<'4.x' | '2.x', LiquidSwapWallet>;

before(async () => {
  world = await startWorld();
  wallets['4.x'] = await world.liquidWallet(boltzCore4);
  wallets['2.x'] = await world.liquidWallet(boltzCore2);
});

after(async () => {
  await world?.close();
});

const INVOICE_SAT = 100_000;

type Claim = (swap: LiquidReverseSwap, lockup: LiquidLockup, destination: LiquidDestination) => Promise<BuiltLiquidTransaction>;

/** Runs a reverse swap up to Ferry's lockup, lets `claim` spend it, and checks every effect of a successful swap. */
async function reverseSwap(wallet: LiquidSwapWallet, claim: Claim) {
  const { liquid, lightning } = world;
  const [alice, ferry] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
  const { swap, paymentHash, fromHeight, payment, lockup } = await lockedReverse(world, liquid, wallet, INVOICE_SAT);
  await assertWrongPreimageRefused(world, wallet.api, swap.id, paymentHash);

  const userBefore = await liquid.balance(liquid.user);
  const claimTx = await claim(swap, lockup, await wallet.destination());
  await wallet.status.waitFor(swap.id, 'invoice.settled');
  const paid = await payment;
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(paid.preimage, hex.encode(swap.preimage));
  await liquid.mine(1);

  const spend = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, fromHeight), claimTx.txid);
  assert.equal(await liquid.fee(claimTx.txid), claimTx.fee);
  assert.equal(claimTx.value, BigInt(swap.onchainAmount) - claimTx.fee, 'the user receives the locked amount less the claim fee');
  assert.equal(await liquid.balance(liquid.user), userBefore + claimTx.value, "Ferry's lockup moved to the user wallet");

  const invoice = await lightning.invoice('ferry', paymentHash);
  assert.deepEqual([invoice.state, invoice.amountPaidMsat], ['SETTLED', BigInt(INVOICE_SAT) * 1000n]);
  await assertLightningMoved(world, 'alice', 'ferry', { alice, ferry }, INVOICE_SAT, paid.feeMsat);
  assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.mempool', 'invoice.settled']);
  return { swap, spend };
}

describe('Liquid reverse swaps', { timeout: 600_000 }, () => {
  for (const version of ['4.x', '2.x'] as const) {
    const wallet = () => wallets[version];

    test(`cooperative claim (boltz-core ${version}): the wallet claims through the key path with Ferry's partial signature`, async () => {
      await withFerryLog(world, async () => {
        const { spend } = await reverseSwap(wallet(), (swap, lockup, destination) => wallet().cooperativeReverseClaim(swap, lockup, destination));
        assertKeyPath(spend);
      });
    });

    test(`script-path claim (boltz-core ${version}): Ferry learns the preimage from the chain and settles alice's payment`, async () => {
      await withFerryLog(world, async () => {
        const { swap, spend } = await reverseSwap(wallet(), async (swap, lockup, destination) => {
          const claim = wallet().scriptPathReverseClaim(swap, lockup, destination);
          assert.deepEqual(await wallet().broadcast(claim.hex), { status: 201, body: { id: claim.txid } });
          await world.liquid.mine(1);
          return claim;
        });
        assertScriptPathClaim(spend, hex.encode(swap.preimage), hex.encode(swap.tree.claimLeaf.output));
      });
    });
  }

  test('the wallet refuses a lockup address that is not its tree blinded to the blinding key given', async () => {
    const wallet = wallets['2.x'];
    const pair = await wallet.reversePair();
    const swap = await wallet.createReverse(INVOICE_SAT);
    const body = {
      id: swap.id,
      invoice: swap.invoice,
      swapTree: wallet.library.serializeTree(swap.tree),
      lockupAddress: swap.address,
      refundPublicKey: hex.encode(swap.servicePublicKey),
      timeoutBlockHeight: swap.timeoutBlockHeight,
      onchainAmount: swap.onchainAmount,
      blindingKey: hex.encode(swap.blindingKey),
    };
    assert.equal((await wallets['4.x'].checkReverse(body, swap.key, swap.preimage, INVOICE_SAT, pair)).address, swap.address);
    const check = (tampered: object) => wallet.checkReverse({ ...body, ...tampered }, swap.key, swap.preimage, INVOICE_SAT, pair);
    await assert.rejects(check({ blindingKey: '11'.repeat(32) }), /blinded to the blinding key/);
    await assert.rejects(check({ refundPublicKey: hex.encode(swap.key.publicKey) }), /swap tree differs/);
    await assert.rejects(check({ onchainAmount: swap.onchainAmount + 1 }), /onchainAmount/);
  });

  test('unclaimed: Ferry refunds its lockup after the Liquid timeout and cancels the held payment', async () => {
    const { liquid, lightning } = world;
    const wallet = wallets['4.x'];
    await withFerryLog(world, async () => {
      const [aliceBefore, ferryBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
      const { swap, paymentHash, fromHeight, payment, lockup, lockupFee, operatorBefore } = await lockedReverse(world, liquid, wallet, 80_000);
      await liquid.mine(1);
      await wallet.status.waitFor(swap.id, 'transaction.confirmed');
      assert.ok(swap.timeoutBlockHeight - (await liquid.height()) >= 1_400, `a Liquid timeout: ${swap.timeoutBlockHeight}`);

      // The wallet never claims. Ferry may only refund once its refund leaf's locktime is final.
      await liquid.mineTo(swap.timeoutBlockHeight - 1);
      assert.ok(await liquid.isUnspent(lockup.txid, lockup.vout), 'no refund before the timeout');
      await liquid.mine(1);
      await wallet.status.waitFor(swap.id, 'transaction.refunded');
      // The invoice is cancelled only once the refund is buried: until then the wallet's claim could still win.
      assert.equal((await lightning.invoice('ferry', paymentHash)).state, 'ACCEPTED');
      await liquid.mine(1);
      assert.equal((await payment).status, 'FAILED', "alice's payment is given back");

      const refund = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, fromHeight));
      assertScriptPathRefund(refund, hex.encode(swap.tree.refundLeaf.output));
      assert.equal(refund.tx.locktime, swap.timeoutBlockHeight);
      const refundFee = await liquid.fee(refund.txid);
      assert.equal(await liquid.balance(liquid.operator), operatorBefore - lockupFee - refundFee, "the coins are back in Ferry's wallet, less the two fees");

      assert.equal((await lightning.invoice('ferry', paymentHash)).state, 'CANCELED');
      assert.deepEqual(await lightning.balance('alice'), aliceBefore, "alice's balance is restored");
      assert.deepEqual(await lightning.balance('ferry'), ferryBefore);
      assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.mempool', 'transaction.confirmed', 'transaction.refunded']);
    });
  });
});
