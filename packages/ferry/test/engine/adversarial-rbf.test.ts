// A submarine lockup the user fee-bumps (replace-by-fee) while it is unconfirmed: the replacement takes the
// recorded lockup's place and is judged afresh (amount, then confirmation), so the swap is paid for the
// transaction that actually confirms. The devnet runs with full RBF for this; a second, unrelated payment to the
// address still does not displace the first.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { submarineData } from '../../src/engine/data.ts';
import { p2wpkhScript, walletKey, type FundingOutput } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, sleep, spendToOutputs } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('adversarial: fee-bumped lockups', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
    world.devnet.bitcoin.node.fullRbf = true;
  });
  after(async () => {
    await world?.close();
  });

  async function submarine(sat: number) {
    const owner = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, sat);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    return { created, hash, script: lockupOf(created.swapTree, created.claimPublicKey, owner).script, expected: created.expectedAmount! };
  }

  /** The lockup plus change back to the test key; what is left of the coin is the fee. */
  const lockupTx = (coin: FundingOutput, script: Uint8Array, amount: number, fee: number) =>
    spendToOutputs(coin, [
      { script, amount },
      { script: p2wpkhScript(walletKey.publicKey), amount: Number(coin.value) - amount - fee },
    ]);

  const recordedLockup = async (id: string) => submarineData((await world.storage.swaps.get(id))!).lockup!;

  test('a lockup replaced by a higher-fee transaction is paid once the replacement confirms', async () => {
    const swap = await submarine(30_000);
    const coin = await fundedCoin(world, 100_000);
    const original = lockupTx(coin, swap.script, swap.expected, 1_000);
    await world.node.sendRawTransaction(original.hex);
    await world.waitForStatus(swap.created.id, 'transaction.mempool');

    const bumped = lockupTx(coin, swap.script, swap.expected, 3_000);
    await world.node.sendRawTransaction(bumped.hex);
    assert.equal(await world.node.getTxOut(original.txid, 0, true), null, 'the original left the mempool');
    await world.watcher.sync();
    await world.engine.whenIdle(swap.created.id);
    assert.equal((await recordedLockup(swap.created.id)).txid, bumped.txid);
    assert.equal((await world.engine.status(swap.created.id))?.status, 'transaction.mempool');

    await world.mine();
    await world.waitForStatus(swap.created.id, 'transaction.claim.pending');
    assert.equal((await aliceInvoiceState(world, swap.hash)).state, 'SETTLED');
    const paidFor = await recordedLockup(swap.created.id);
    assert.deepEqual([paidFor.txid, paidFor.confirmed], [bumped.txid, true]);
  });

  test('a replacement paying the wrong amount fails the lockup; nothing is paid', async () => {
    const swap = await submarine(30_000);
    const coin = await fundedCoin(world, 100_000);
    await world.node.sendRawTransaction(lockupTx(coin, swap.script, swap.expected, 1_000).hex);
    await world.waitForStatus(swap.created.id, 'transaction.mempool');

    const short = lockupTx(coin, swap.script, swap.expected - 1, 3_000);
    await world.node.sendRawTransaction(short.hex);
    const failed = await world.waitForStatus(swap.created.id, 'transaction.lockupFailed');
    assert.match(failed.failureReason!, /is less than expected/);
    await world.mine();
    await sleep(300);
    assert.equal(await world.ferryNode.lookupPayment(swap.hash), undefined);
    assert.equal((await world.engine.status(swap.created.id))?.status, 'transaction.lockupFailed');
  });

  test('an unrelated second lockup to the address does not displace the first', async () => {
    const swap = await submarine(30_000);
    // Both coins first: funding mines a block, which would confirm a lockup already sent.
    const coins = [await fundedCoin(world, 100_000), await fundedCoin(world, 100_000)];
    const first = lockupTx(coins[0], swap.script, swap.expected, 1_000);
    await world.node.sendRawTransaction(first.hex);
    await world.waitForStatus(swap.created.id, 'transaction.mempool');

    const other = lockupTx(coins[1], swap.script, swap.expected - 1, 3_000);
    await world.node.sendRawTransaction(other.hex);
    await world.watcher.sync();
    await world.engine.whenIdle(swap.created.id);
    assert.equal((await recordedLockup(swap.created.id)).txid, first.txid);
    assert.equal((await world.engine.status(swap.created.id))?.status, 'transaction.mempool');
  });
});
