// After a restore from a backup, Ferry's lockup may already be on chain with nothing of it in the database (no marker:
// it was sent after the backup). The watcher can read that lockup's block before the restored Ferry has asked for its
// lockup (the hold invoice not yet read as accepted): the payment is remembered then, and the lockup, once asked for,
// is that payment, never a second one. The whole day is in test/swaps/restore-drill-*.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { reverseData } from '../../src/engine/data.ts';
import { newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world?.close();
});

test('a lockup sent before a restore and read before the invoice is accepted is taken as the lockup, not sent again', async () => {
  const client = newKeyPair();
  const { preimageHash } = newPreimage();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 35_000 });
  // The lost Ferry's lockup, confirmed; the restored one reads its block while the invoice is still unpaid to it.
  const sentBeforeRestore = await world.operator.sendToAddress(created.lockupAddress, satToBtc(created.onchainAmount));
  await world.mine(1);
  await world.watcher.sync();
  assert.equal((await world.storage.swaps.get(created.id))!.status, 'swap.created', 'a payment Ferry did not ask for moves nothing');
  const balanceAfterSend = await world.operatorBalance();

  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
  const locked = await world.waitForStatus(created.id, 'transaction.confirmed', 30_000);
  assert.equal(locked.transaction?.id, sentBeforeRestore, 'the lockup is the payment already on chain');
  await world.engine.whenIdle(created.id);
  assert.equal(await world.operatorBalance(), balanceAfterSend, 'nothing else was sent');
  assert.equal(reverseData((await world.storage.swaps.get(created.id))!).lockup?.txid, sentBeforeRestore);
  assert.equal(await world.storage.kv.get(`reverse.lockup.seen:${created.id}`), undefined, 'the sighting is spent');
  await world.ferryNode.cancelHoldInvoice(preimageHash);
  await payment;
});
