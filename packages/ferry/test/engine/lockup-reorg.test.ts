// A submarine lockup that leaves the chain before Ferry pays, on the real devnet (invalidateblock): the swap goes back
// to the status the lockup's whereabouts call for (mempool, or the status before the lockup), with the status pushed,
// and to transaction.lockupFailed once the lockup's coin is spent elsewhere; nothing is paid and no effect is left
// retrying. A lockup with nLockTime = forkHeight is not final on the shorter chain, so it leaves the mempool too.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { p2wpkhScript, spendP2wpkh, strangerKey, type FundingOutput } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, waitFor } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('user lockups leaving the chain', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** A submarine swap (invoice to come) whose lockup, final only above forkHeight, is confirmed. */
  async function confirmedLockup(hash: string, lockTime?: boolean) {
    const client = newKeyPair();
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash: hash, refundPublicKey: hex.encode(client.publicKey) });
    // A lockup paying an ordinary fee (1,000 sat): one paying 20,000 would raise the devnet's fee estimate (rates
    // paid in recent blocks) so far that the next swap's miner fee no longer fits in a 40,000-sat lockup.
    const coin: FundingOutput = await fundedCoin(world, 41_000);
    await world.mine();
    const forkHeight = await world.height();
    const script = lockupOf(created.swapTree, created.claimPublicKey, client).script;
    const lockup = spendP2wpkh(coin, { destinationScript: script, outputAmount: 40_000n, ...(lockTime === true && { lockTime: forkHeight }) });
    await world.node.sendRawTransaction(lockup.hex);
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');
    return { id: created.id, coin, forkHeight, lockup };
  }

  const pending = async (id: string) => (await world.storage.effects.listPending({ swapId: id })).length;
  const published = (id: string) => world.published.get(id) ?? [];

  test('reorganised back into the mempool: transaction.mempool, then paid once it confirms again', async () => {
    const { invoice, hash } = await aliceInvoice(world, 25_000);
    const { id, lockup } = await confirmedLockup(hash);
    await world.node.invalidateBlock(await world.node.getBestBlockHash());
    await world.waitForStatus(id, 'transaction.mempool');
    assert.equal((await world.node.getTxOut(lockup.txid, 0, true))?.confirmations, 0);
    await world.engine.setSubmarineInvoice(id, invoice);
    await world.engine.whenIdle(id);
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'no payment for a lockup back in the mempool');

    await world.mine();
    await world.waitForStatus(id, 'transaction.claim.pending');
    assert.equal((await aliceInvoiceState(world, hash)).state, 'SETTLED');
    // The lockup may be seen in the mempool before its block (a busy machine): what counts is the rollback after it.
    const seen = published(id);
    const confirmed = seen.indexOf('transaction.confirmed');
    assert.equal(seen[0], 'swap.created');
    assert.deepEqual(seen.slice(confirmed, confirmed + 3), ['transaction.confirmed', 'transaction.mempool', 'invoice.set'], seen.join(' '));
  });

  test('vanished, then double spent: back to swap.created, then transaction.lockupFailed; nothing paid', async () => {
    const { invoice, hash } = await aliceInvoice(world, 30_000);
    const { id, coin, forkHeight, lockup } = await confirmedLockup(hash, true);
    await world.node.invalidateBlock(await world.node.getBlockHash(forkHeight));
    await world.waitForStatus(id, 'swap.created');
    assert.equal(await world.node.getTxOut(lockup.txid, 0, true), null, 'the lockup left the chain and the mempool');

    const doubleSpend = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), fee: 2_000n });
    await world.node.sendRawTransaction(doubleSpend.hex);
    await world.mine(3);
    const failed = await world.waitForStatus(id, 'transaction.lockupFailed');
    assert.match(String(failed.failureReason), /double spent/);
    // The lockup may be seen in the mempool before its block (a busy machine): what counts is the rollback after it.
    const seen = published(id);
    assert.deepEqual(seen.filter((status) => status !== 'transaction.mempool'), ['swap.created', 'transaction.confirmed', 'swap.created', 'transaction.lockupFailed'], seen.join(' '));
    assert.equal(seen.indexOf('transaction.mempool'), seen.lastIndexOf('transaction.mempool'));
    assert.ok(!seen.includes('transaction.mempool') || seen.indexOf('transaction.mempool') === 1, 'only before the block');

    await assert.rejects(world.engine.setSubmarineInvoice(id, invoice));
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'Ferry never started a payment');
    assert.equal((await aliceInvoiceState(world, hash)).state, 'OPEN');
    assert.equal(await pending(id), 0, 'no effect left retrying');
  });

  test('the payment decision finds the lockup double spent (the watcher missed the reorg): transaction.lockupFailed', async () => {
    const { invoice, hash } = await aliceInvoice(world, 35_000);
    const { id, coin, forkHeight } = await confirmedLockup(hash, true);
    // The watcher stops, so only the payment decision can notice.
    await world.watcher.stop();
    await world.node.invalidateBlock(await world.node.getBlockHash(forkHeight));
    const doubleSpend = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), fee: 2_000n });
    await world.node.sendRawTransaction(doubleSpend.hex);
    await world.node.generateToAddress(2, await world.user.getNewAddress());

    await world.engine.setSubmarineInvoice(id, invoice);
    await waitFor(async () => (await world.engine.status(id))?.status === 'transaction.lockupFailed');
    await world.engine.whenIdle(id);
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'Ferry never started a payment');
    assert.equal(await pending(id), 0, 'startPayment ended instead of retrying');
    const startPayment = (await world.storage.effects.listForSwap(id)).filter((effect) => effect.kind === 'startPayment');
    assert.deepEqual(startPayment.map((effect) => [effect.state, effect.attempts]), [['done', 1]], 'decided on its first attempt, not retried');
    await world.restart();
  });
});
