// A submarine lockup that was confirmed and then reorganised away (devnet invalidateblock) and double-spent:
// Ferry must not pay the invoice for coins that no longer exist. The lockup carries an nLockTime, so on the
// shorter chain it is not final and drops out of the mempool instead of being mined again, and its coin can be
// spent elsewhere: what a miner-assisted double spend leaves behind.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { p2wpkhScript, spendP2wpkh, strangerKey } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, sleep } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('adversarial: reorgs', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  test('a confirmed lockup reorganised away and double-spent is never paid for', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, 30_000);
    // The invoice comes later, so the payment decision falls after the reorg.
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash: hash, refundPublicKey: hex.encode(client.publicKey) });
    const lockupScript = lockupOf(created.swapTree, created.claimPublicKey, client).script;
    const coin = await fundedCoin(world, 60_000);
    await world.mine();
    const forkHeight = await world.height();
    // Final only in blocks above forkHeight: mined in the next block, dropped once that block and its parent go.
    const lockup = spendP2wpkh(coin, { destinationScript: lockupScript, outputAmount: 40_000n, lockTime: forkHeight });
    await world.node.sendRawTransaction(lockup.hex);
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');

    await world.node.invalidateBlock(await world.node.getBlockHash(forkHeight));
    assert.equal(await world.node.getTxOut(lockup.txid, 0, true), null, 'the lockup left the chain and the mempool');
    const doubleSpend = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), fee: 2_000n });
    await world.node.sendRawTransaction(doubleSpend.hex);
    await world.mine(3);
    assert.ok((await world.node.getTxOut(doubleSpend.txid, 0, false))?.confirmations, 'the double spend is confirmed');

    // The lockup's coin is spent elsewhere: the swap failed (lockup-reorg.test.ts follows the statuses on the way).
    await world.waitForStatus(created.id, 'transaction.lockupFailed');
    await assert.rejects(world.engine.setSubmarineInvoice(created.id, invoice));
    await world.engine.whenIdle(created.id);
    await sleep(300); // room for a retried payment decision
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'Ferry never started a payment');
    assert.equal((await aliceInvoiceState(world, hash)).state, 'OPEN');
  });

  test('a lockup reorganised back into the mempool is paid only once it confirms again', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, 25_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash: hash, refundPublicKey: hex.encode(client.publicKey) });
    const lockupScript = lockupOf(created.swapTree, created.claimPublicKey, client).script;
    const coin = await fundedCoin(world, 60_000);
    const lockup = spendP2wpkh(coin, { destinationScript: lockupScript, outputAmount: 40_000n });
    await world.node.sendRawTransaction(lockup.hex);
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');

    // The block goes; the lockup is valid on the shorter chain and waits in the mempool, unconfirmed.
    await world.node.invalidateBlock(await world.node.getBestBlockHash());
    await world.watcher.sync();
    assert.equal((await world.node.getTxOut(lockup.txid, 0, true))?.confirmations, 0);
    await world.engine.setSubmarineInvoice(created.id, invoice);
    await sleep(300);
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'no payment for an unconfirmed lockup that was not accepted 0-conf');

    await world.mine();
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    assert.equal((await aliceInvoiceState(world, hash)).state, 'SETTLED');
  });
});
