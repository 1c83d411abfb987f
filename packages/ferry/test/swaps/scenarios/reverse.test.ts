// Reverse swaps (Lightning → chain) end to end against a real Ferry: alice pays Ferry's hold invoice, Ferry
// locks coins from its wallet, and a boltz-core wallet claims them — with Ferry's partial signature through
// the key path, or alone through the claim leaf, in which case Ferry learns the preimage from the chain.
// Asserted on chain (the claim output, the lockup's single spend, wallet balances) and on the Lightning
// nodes (alice's payment, channel balances, the hold invoice's state).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import type { BuiltTransaction, Lockup, ReverseSwap } from '../../helpers/swap-wallet.ts';
import {
  assertKeyPath,
  assertLightningMoved,
  assertOnlySpend,
  assertScriptPathClaim,
  assertStatusOrder,
  assertWrongPreimageRefused,
  withFerryLog,
} from './support/assertions.ts';
import { lockedReverse } from './support/reverse-lockup.ts';
import { startWorld, type World } from './support/world.ts';

let world: World;

before(async () => {
  world = await startWorld();
});

after(async () => {
  await world?.close();
});

const INVOICE_SAT = 100_000;

/**
 * Runs a reverse swap up to Ferry's lockup, lets `claim` spend it, and checks every effect of a successful
 * swap; returns the claim's spend of the lockup for the caller's own assertions.
 */
async function reverseSwap(claim: (swap: ReverseSwap, lockup: Lockup, destination: Uint8Array) => Promise<BuiltTransaction>) {
  const { wallet, chain, lightning } = world;
  const [alice, ferry] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
  const { swap, paymentHash, fromHeight, payment, lockup } = await lockedReverse(world, chain, wallet, INVOICE_SAT);

  await assertWrongPreimageRefused(world, wallet.api, swap.id, paymentHash);

  const userBefore = await chain.balance(chain.user);
  const claimTx = await claim(swap, lockup, await wallet.destination());
  await wallet.status.waitFor(swap.id, 'invoice.settled');
  const paid = await payment;
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(paid.preimage, hex.encode(swap.preimage));
  await chain.mine(1);

  const spend = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, fromHeight), claimTx.txid);
  assert.equal(await chain.unspentValue(claimTx.txid, 0), claimTx.value);
  assert.equal(claimTx.value, BigInt(swap.onchainAmount) - 1_000n, 'the user receives the locked amount less the claim fee');
  assert.equal(await chain.balance(chain.user), userBefore + claimTx.value);

  const invoice = await lightning.invoice('ferry', paymentHash);
  assert.equal(invoice.state, 'SETTLED');
  assert.equal(invoice.amountPaidMsat, BigInt(INVOICE_SAT) * 1000n);
  await assertLightningMoved(world, 'alice', 'ferry', { alice, ferry }, INVOICE_SAT, paid.feeMsat);
  assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.mempool', 'invoice.settled']);
  return { swap, spend };
}

describe('reverse swaps', { timeout: 600_000 }, () => {
  test("cooperative claim: the wallet claims through the key path with Ferry's partial signature", async () => {
    await withFerryLog(world, async () => {
      const { spend } = await reverseSwap((swap, lockup, destination) => world.wallet.cooperativeReverseClaim(swap, lockup, destination));
      assertKeyPath(spend);
    });
  });

  test("script-path claim: Ferry learns the preimage from the chain and settles alice's payment", async () => {
    await withFerryLog(world, async () => {
      const { swap, spend } = await reverseSwap(async (swap, lockup, destination) => {
        const claim = world.wallet.scriptPathReverseClaim(swap, lockup, destination);
        const answer = await world.wallet.broadcast(claim.hex);
        assert.deepEqual(answer, { status: 201, body: { id: claim.txid } });
        await world.chain.mine(1);
        return claim;
      });
      assertScriptPathClaim(spend, hex.encode(swap.preimage), hex.encode(swap.tree.claimLeaf.output));
    });
  });

  test('the wallet refuses an invoice that is not for its preimage or amount', async () => {
    const { wallet } = world;
    const pair = await wallet.reversePair();
    const swap = await wallet.createReverse(INVOICE_SAT);
    const body = (hexHash: string) => ({
      id: swap.id,
      invoice: swap.invoice,
      swapTree: { claimLeaf: { version: 192, output: hexHash }, refundLeaf: { version: 192, output: hexHash } },
      lockupAddress: swap.address,
      refundPublicKey: hex.encode(swap.servicePublicKey),
      timeoutBlockHeight: swap.timeoutBlockHeight,
      onchainAmount: swap.onchainAmount,
    });
    const other = new Uint8Array(32).fill(7);
    await assert.rejects(wallet.checkReverse(body('00'), swap.key, other, INVOICE_SAT, pair), /payment hash/);
    await assert.rejects(wallet.checkReverse(body('00'), swap.key, swap.preimage, INVOICE_SAT + 1, pair), /asks for/);
    await assert.rejects(wallet.checkReverse(body('00'), swap.key, swap.preimage, INVOICE_SAT, pair), /swap tree differs/);
  });
});
