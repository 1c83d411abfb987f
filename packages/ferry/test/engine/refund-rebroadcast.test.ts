// Ferry's refund of a reverse lockup taken away by a reorg, on the real devnet: the refund (nLockTime = timeout) is
// mined, then the blocks from the timeout on are invalidated, so the refund is not final on the shorter chain and
// leaves the node altogether. Once the chain is past the timeout again Ferry broadcasts the same refund, which
// confirms; the operator gets its coins back once, and the swap is reported refunded once.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { waitFor } from './adversarial-support.ts';
import { startWorld, type World } from './world.ts';

let world: World;

before(async () => {
  world = await startWorld();
});
after(async () => {
  await world?.close();
});

/** A reverse swap whose payer's HTLC is held and whose lockup of Ferry's is confirmed, never claimed. */
async function confirmedReverseLockup() {
  const client = newKeyPair();
  const { preimageHash } = newPreimage();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 80_000 });
  const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
  const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
  const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script) };
  await world.mine();
  await world.waitForStatus(created.id, 'transaction.confirmed');
  const before = await world.operatorBalance();
  return { created, payment, output, before };
}

test("Ferry's refund reorganised away is broadcast again once it is final, and pays the operator once", async () => {
  const { created, payment, output, before } = await confirmedReverseLockup();

  await world.mine(created.timeoutBlockHeight - (await world.height()));
  await world.waitForStatus(created.id, 'transaction.refunded');
  const refundTxid = ((await world.storage.swaps.get(created.id))!.data.refundTransaction as { txid: string }).txid;
  await world.mine();
  await waitFor(async () => (await world.storage.swaps.get(created.id))!.data.refundConfirmed === true);
  assert.ok((await world.node.getRawTransaction(refundTxid)).blockhash, 'the refund confirmed');

  // The timeout block and the refund's go: the refund is not final below the timeout and leaves the node.
  await world.node.invalidateBlock(await world.node.getBlockHash(created.timeoutBlockHeight));
  await world.watcher.sync();
  assert.equal((await world.node.getRawMempool()).includes(refundTxid), false, 'the refund left the mempool');
  assert.ok(await world.node.getTxOut(output.txid, output.vout, true), 'the lockup is unspent again');

  // The chain reaches the timeout again: the same refund goes out and confirms.
  await world.mine();
  await waitFor(async () => (await world.node.getRawMempool()).includes(refundTxid));
  await world.mine();
  assert.ok((await world.node.getRawTransaction(refundTxid)).blockhash, 'the same refund confirmed again');
  assert.equal(await world.node.getTxOut(output.txid, output.vout, true), null, 'the lockup is spent');

  const refundValue = (await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(refundTxid))).vout[0].value;
  assert.equal((await world.operatorBalance()) - before, BigInt(Math.round(refundValue * 1e8)), 'the operator got the refund once');
  assert.equal((await world.engine.status(created.id))?.status, 'transaction.refunded');
  const published = world.published.get(created.id) ?? [];
  assert.equal(published.filter((status) => status === 'transaction.refunded').length, 1, 'the refund was reported once');
  assert.equal((await payment).status, 'FAILED', 'the payer got the HTLC back');
});

test("Ferry's unconfirmed refund, sent more than a day ago and evicted, is broadcast again", async () => {
  const { created, payment, output, before } = await confirmedReverseLockup();

  // The refund goes out at the timeout and is never mined; the swap last changed 25 hours ago.
  await world.mine(created.timeoutBlockHeight - (await world.height()));
  await world.waitForStatus(created.id, 'transaction.refunded');
  const refundTxid = ((await world.storage.swaps.get(created.id))!.data.refundTransaction as { txid: string }).txid;
  assert.ok((await world.node.getRawMempool()).includes(refundTxid), 'the refund is in the mempool');
  await world.storage.database.execute('UPDATE swaps SET updated_at = $1 WHERE id = $2', [Date.now() - 25 * 3600_000, created.id]);

  // The timeout block goes: the refund is not final any more and the node drops it.
  await world.node.invalidateBlock(await world.node.getBlockHash(created.timeoutBlockHeight));
  await world.watcher.sync();
  assert.equal((await world.node.getRawMempool()).includes(refundTxid), false, 'the refund was evicted');

  // The chain reaches the timeout again: the same refund goes out and confirms.
  await world.mine();
  await waitFor(async () => (await world.node.getRawMempool()).includes(refundTxid));
  await world.mine();
  assert.ok((await world.node.getRawTransaction(refundTxid)).blockhash, 'the same refund confirmed');
  assert.equal(await world.node.getTxOut(output.txid, output.vout, true), null, 'the lockup is spent');
  await waitFor(async () => (await world.storage.swaps.get(created.id))!.data.refundConfirmed === true);

  const refundValue = (await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(refundTxid))).vout[0].value;
  assert.equal((await world.operatorBalance()) - before, BigInt(Math.round(refundValue * 1e8)), 'the operator got the refund once');
  const published = world.published.get(created.id) ?? [];
  assert.equal(published.filter((status) => status === 'transaction.refunded').length, 1, 'the refund was reported once');
  assert.equal((await payment).status, 'FAILED', 'the payer got the HTLC back');
});
