// Ferry's claim of a submarine lockup taken away by a reorg, on the real devnet: the lockup (nLockTime = forkHeight)
// and the claim spending it both leave the chain and the mempool: the lockup Ferry paid against is lost, so the swap
// is transaction.lockupFailed meanwhile. Once the user's lockup is back, Ferry broadcasts the same claim again and it
// confirms: transaction.claimed again.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { spendP2wpkh } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, waitFor } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

let world: World;

before(async () => {
  world = await startWorld({ claimDelayMs: 0 });
});
after(async () => {
  await world?.close();
});

test("Ferry's claim reorganised away is broadcast again once the lockup is back", async () => {
  const client = newKeyPair();
  const { invoice, hash } = await aliceInvoice(world, 300_000);
  const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
  const coin = await fundedCoin(world, created.expectedAmount! + 10_000);
  await world.mine();
  const forkHeight = await world.height();
  const script = lockupOf(created.swapTree, created.claimPublicKey, client).script;
  const lockup = spendP2wpkh(coin, { destinationScript: script, outputAmount: BigInt(created.expectedAmount!), lockTime: forkHeight });
  await world.node.sendRawTransaction(lockup.hex);
  await world.mine();
  await world.waitForStatus(created.id, 'transaction.claimed');
  const claimTxid = ((await world.storage.swaps.get(created.id))!.data.claimTransaction as { txid: string }).txid;
  await world.mine();
  assert.ok((await world.node.getRawTransaction(claimTxid)).blockhash, 'the claim confirmed');

  // Both blocks go: the lockup is not final on the shorter chain and leaves the mempool, and the claim with it.
  await world.node.invalidateBlock(await world.node.getBlockHash(forkHeight));
  await world.watcher.sync();
  assert.equal((await world.node.getRawMempool()).includes(claimTxid), false, 'the claim left the mempool');

  // The chain grows past forkHeight; the user's lockup is broadcast again (as its wallet would) and mined.
  await world.mine(2);
  await world.node.sendRawTransaction(lockup.hex);
  await world.mine();
  await waitFor(async () => (await world.node.getRawMempool()).includes(claimTxid));
  await world.mine();
  assert.ok((await world.node.getRawTransaction(claimTxid)).blockhash, 'the same claim confirmed again');
  assert.equal((await world.engine.status(created.id))?.status, 'transaction.claimed');
  assert.equal((await aliceInvoiceState(world, hash)).state, 'SETTLED', 'the invoice was paid');
  // While the lockup was gone the swap was failed (lost after Ferry paid), then claimed again: both pushed.
  const published = world.published.get(created.id) ?? [];
  const lost = published.indexOf('transaction.lockupFailed');
  assert.ok(lost > 0, published.join(' '));
  assert.deepEqual(published.slice(lost).filter((status) => status === 'transaction.lockupFailed' || status === 'transaction.claimed'), ['transaction.lockupFailed', 'transaction.claimed'], published.join(' '));
});
