// Crashes between doing and recording that the process-level crash tests do not reach: Ferry's cooperative claim of
// a submarine lockup broadcast but not recorded, and its refund of a reverse lockup broadcast but not recorded.
// The stored state such a crash leaves (the row before the transition, the effect still pending, the transaction
// in the mempool) is recreated, then the engine restarts on it: it must finish the swap from what the chain shows,
// without a second claim or refund, without paying or cancelling twice.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { reverseData, submarineData } from '../../src/engine/data.ts';
import type { PaymentUpdate } from '../../src/lightning/index.ts';
import { aliceInvoice, aliceInvoiceState, waitFor } from './adversarial-support.ts';
import { clientSession, findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('adversarial: crash after a broadcast, before recording it', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** Rewrites a stopped engine's row to `status` with `data`, and queues `effects` as a crash would leave them. */
  async function rewind(id: string, status: string, data: Record<string, unknown>, effects: string[]): Promise<void> {
    const swap = (await world.storage.swaps.get(id))!;
    const result = await world.storage.saveTransition(
      { id, expectedStatus: swap.status, expectedVersion: swap.version, status, data },
      effects.map((kind) => ({ kind })),
    );
    assert.ok(result.applied);
  }

  test('a cooperative submarine claim broadcast but not recorded: recognised as the claim, not claimed again', async () => {
    const owner = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, 33_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    const pending = (await world.storage.swaps.get(created.id))!;
    const details = await world.engine.submarineClaimDetails(created.id);
    const session = clientSession(owner, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    await world.engine.submarineClaimSignature(created.id, { pubNonce: session.pubNonce, partialSignature: session.sign(details.pubNonce) });
    const claim = submarineData((await world.storage.swaps.get(created.id))!).claimTransaction!;
    const balanceAfterClaim = await world.operatorBalance();

    await world.engine.stop();
    await world.watcher.stop();
    // As if killed right after sendrawtransaction: still waiting for the claim, its silent-claim fallback due now.
    await rewind(created.id, 'transaction.claim.pending', { ...pending.data, claimPendingSince: Date.now() - 3_600_000 }, ['claimWhenSilent']);
    await world.restart();

    await world.waitForStatus(created.id, 'transaction.claimed');
    await world.engine.whenIdle(created.id);
    await waitFor(async () => (await world.storage.effects.listPending({ swapId: created.id })).length === 0);
    const { vout } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    assert.deepEqual(await world.node.getRawMempool(), [claim.txid], 'only the original claim spends the lockup');
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null);
    assert.equal(await world.operatorBalance(), balanceAfterClaim, 'no second claim moved coins');
    assert.equal((await aliceInvoiceState(world, hash)).amt_paid_sat, '33000');
    await world.mine();
  });

  test('a reverse refund broadcast but not recorded: recognised, the invoice cancelled once it confirms, no second refund', async () => {
    const client = newKeyPair();
    const { preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 45_000 });
    const payment: Promise<PaymentUpdate> = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    await world.waitForStatus(created.id, 'transaction.mempool');
    await world.mine();
    const locked = await world.waitForStatus(created.id, 'transaction.confirmed');
    assert.equal(locked.status, 'transaction.confirmed');
    const beforeRefund = (await world.storage.swaps.get(created.id))!;

    await world.mine(created.timeoutBlockHeight - (await world.height()));
    await world.waitForStatus(created.id, 'transaction.refunded');
    await world.engine.whenIdle(created.id);
    const refund = reverseData((await world.storage.swaps.get(created.id))!).refundTransaction!;
    const balanceAfterRefund = await world.operatorBalance();

    await world.engine.stop();
    await world.watcher.stop();
    // As if killed right after the refund's sendrawtransaction: refund requested, effect pending, nothing recorded.
    await rewind(created.id, 'transaction.confirmed', { ...beforeRefund.data, refundRequested: true }, ['refundLockup']);
    await world.restart();

    await world.waitForStatus(created.id, 'transaction.refunded');
    assert.deepEqual(await world.node.getRawMempool(), [refund.txid], 'only the original refund spends the lockup');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'ACCEPTED', 'not cancelled before the refund confirms');
    await world.mine();
    await waitFor(async () => (await world.ferryNode.lookupInvoice(preimageHash))?.state === 'CANCELED');
    assert.equal((await payment).status, 'FAILED', "alice's payment came back");
    await world.engine.whenIdle(created.id);
    await waitFor(async () => (await world.storage.effects.listPending({ swapId: created.id })).length === 0);
    assert.equal(reverseData((await world.storage.swaps.get(created.id))!).refundConfirmed, true);
    assert.equal(await world.operatorBalance(), balanceAfterRefund, 'no second refund');
  });
});
