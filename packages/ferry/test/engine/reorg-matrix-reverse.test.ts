// Reorgs after a BTC reverse swap's invoice was settled, on the real devnet (invalidateblock): the client's claim of
// Ferry's lockup revealed the preimage and Ferry took the Lightning payment, so the lockup is the client's.
// - Ferry's lockup and the client's claim both leave the chain, several blocks deep (Ferry's wallet payment has
//   nLockTime = the tip it was sent at, so it is not final on the shorter chain and the node drops it, and the
//   claim with it): Ferry sends the same lockup again once it is final, the client's claim confirms, Ferry never
//   refunds, even past the timeout, and its wallet paid one lockup.
// - Before any claim, Ferry's lockup leaves the chain several blocks deep (not final on the shorter chain): Ferry
//   sends the same lockup again, never a second one, and the client still claims it.
// - Only the client's claim leaves its block (back to the mempool) and blocks without it pass the timeout: Ferry
//   does not refund what it was paid for (with full RBF on, a refund paying more would replace the claim), and the
//   claim confirms.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Musig, OutputType, TaprootUtils, constructClaimTransaction } from 'boltz-core';
import { p2wpkhScript } from '../helpers/htlc.ts';
import { mineEmpty, waitFor } from './adversarial-support.ts';
import { findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

let world: World;

before(async () => {
  world = await startWorld();
  // The devnet opens its channels in blocks mined to the operator at start: the reorgs below stay above them.
  await world.mine(10);
});
after(async () => {
  await world?.close();
});

/** A reverse swap whose lockup is confirmed and claimed by the client through the claim leaf, the invoice settled. */
async function settledReverse(invoiceAmount: number) {
  const client = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const operatorBefore = await world.operatorBalance();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount });
  const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
  const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
  const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };
  await world.mine();
  await world.waitForStatus(created.id, 'transaction.confirmed');

  const internalKey = TaprootUtils.toXOnly(Musig.create(client.privateKey, lockup.keys).internalKey);
  const claimTx = constructClaimTransaction(
    [{ type: OutputType.Taproot, transactionId: output.txid, vout: output.vout, script: output.script, amount: output.value, privateKey: client.privateKey, preimage, swapTree: lockup.swapTree, internalKey }],
    p2wpkhScript(client.publicKey),
    300n,
  );
  const claim = { txid: claimTx.id, hex: hex.encode(claimTx.toBytes(true, true)) };
  await world.node.sendRawTransaction(claim.hex);
  await world.waitForStatus(created.id, 'invoice.settled');
  assert.equal((await payment).status, 'SUCCEEDED', "alice's payment was taken");
  await world.mine();
  assert.ok((await world.node.getRawTransaction(claim.txid)).blockhash, 'the claim confirmed');
  return { created, output, claim, operatorBefore, preimageHash };
}

/** The transaction that spends `outpoint` on the active chain now, if any. */
async function spenderOf(outpoint: { txid: string; vout: number }, fromHeight: number): Promise<string | undefined> {
  for (let height = fromHeight; height <= (await world.height()); height++) {
    const block = (await world.node.call('getblock', [await world.node.getBlockHash(height), 2])) as { tx: { txid: string; vin: { txid?: string; vout?: number }[] }[] };
    const spender = block.tx.find((tx) => tx.vin.some((input) => input.txid === outpoint.txid && input.vout === outpoint.vout));
    if (spender !== undefined) return spender.txid;
  }
  return undefined;
}

/** What a transaction paid in fees: its inputs' values less its outputs'. */
async function feeOf(txid: string): Promise<bigint> {
  const sat = (btc: number) => BigInt(Math.round(btc * 1e8));
  const tx = await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(txid));
  let fee = 0n;
  for (const input of tx.vin as { txid: string; vout: number }[]) {
    const previous = await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(input.txid));
    fee += sat(previous.vout[input.vout].value);
  }
  for (const output of tx.vout) fee -= sat(output.value);
  return fee;
}

const refundEffects = async (id: string) => (await world.storage.effects.listForSwap(id)).filter((effect) => effect.kind === 'refundLockup');

test("Ferry's lockup and the client's claim reorganised out several blocks deep after the invoice settled: the same lockup is sent again, the claim confirms, Ferry never refunds", async () => {
  const { created, output, claim, operatorBefore, preimageHash } = await settledReverse(90_000);
  const lockupHex = await world.node.getRawTransactionHex(output.txid);
  const lockupFee = await feeOf(output.txid);
  const locktime = (await world.node.decodeRawTransaction(lockupHex)).locktime;
  assert.ok(locktime > 0, "Ferry's wallet sets nLockTime to the tip");
  await world.mine(2);

  // Four blocks go (the one before the lockup's, the lockup's, the claim's, one more): the lockup is not final below
  // its nLockTime + 1, so the node drops it, and the claim whose input is gone.
  await world.node.invalidateBlock(await world.node.getBlockHash(locktime));
  await world.watcher.sync();
  assert.equal(await world.node.getTxOut(output.txid, output.vout, true), null, "Ferry's lockup left the node");
  assert.equal((await world.node.getRawMempool()).includes(claim.txid), false, "the client's claim left the node");

  // Once the chain is high enough for it, Ferry sends its lockup again: the same transaction.
  await world.mine();
  await waitFor(async () => (await world.node.getRawMempool()).includes(output.txid), 20_000);
  await world.node.sendRawTransaction(claim.hex); // the client's wallet broadcasts its claim again
  await world.mine();
  assert.equal(await spenderOf(output, locktime), claim.txid, "the client's claim spends Ferry's lockup on the new chain");

  // Past the timeout: the swap stays settled, nothing is refunded.
  await world.mine(created.timeoutBlockHeight - (await world.height()) + 2);
  await world.engine.whenIdle(created.id);
  assert.equal((await world.engine.status(created.id))?.status, 'invoice.settled');
  assert.deepEqual(await refundEffects(created.id), [], 'no refund was ever attempted');
  assert.equal(await world.operatorBalance(), operatorBefore - output.value - lockupFee, "Ferry's wallet paid one lockup, once");
  assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'SETTLED', "alice's payment stays Ferry's");
});

test("the client's claim reorganised back into the mempool after the invoice settled: Ferry does not refund past the timeout, and the claim confirms", async () => {
  const { created, output, claim, operatorBefore } = await settledReverse(95_000);
  const lockupFee = await feeOf(output.txid);
  const fromHeight = await world.height();

  await world.node.invalidateBlock((await world.node.getRawTransaction(claim.txid)).blockhash!);
  await world.watcher.sync();
  assert.ok((await world.node.getRawMempool()).includes(claim.txid), 'the claim is unconfirmed again');

  // Blocks that leave the claim out pass the timeout; a refund of Ferry's paying more would replace the claim.
  const node = world.devnet.bitcoin.node;
  node.fullRbf = true;
  try {
    await mineEmpty(world, await world.user.getNewAddress(), created.timeoutBlockHeight - (await world.height()) + 2);
    await world.engine.whenIdle(created.id);
    await waitFor(async () => (await world.engine.status(created.id))?.status === 'invoice.settled');
  } finally {
    node.fullRbf = false;
  }
  assert.deepEqual(await world.node.getRawMempool(), [claim.txid], 'only the claim waits to spend the lockup');
  assert.deepEqual(await refundEffects(created.id), [], 'no refund was ever attempted');

  await world.mine();
  assert.equal(await spenderOf(output, fromHeight), claim.txid, "the client's claim spends Ferry's lockup");
  assert.equal(await world.operatorBalance(), operatorBefore - output.value - lockupFee, 'the operator got nothing back: the lockup was paid for');
});

test("Ferry's lockup reorganised out several blocks deep before the client claimed: the same lockup again, never a second, and the client claims it", async () => {
  const client = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const operatorBefore = await world.operatorBalance();
  const fromHeight = (await world.height()) + 1;
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 85_000 });
  const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
  const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
  const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };
  await world.mine(3);
  await world.waitForStatus(created.id, 'transaction.confirmed');
  const lockupFee = await feeOf(output.txid);

  const locktime = (await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(output.txid))).locktime;
  await world.node.invalidateBlock(await world.node.getBlockHash(locktime));
  await world.watcher.sync();
  assert.equal(await world.node.getTxOut(output.txid, output.vout, true), null, "Ferry's lockup left the node");
  assert.equal((await world.engine.status(created.id))?.status, 'transaction.confirmed', 'the swap stays locked');

  await world.mine();
  await waitFor(async () => (await world.node.getRawMempool()).includes(output.txid), 20_000);
  await world.mine();
  const payments: string[] = [];
  for (let height = fromHeight; height <= (await world.height()); height++) {
    const block = (await world.node.call('getblock', [await world.node.getBlockHash(height), 2])) as { tx: { txid: string; vout: { scriptPubKey: { hex: string } }[] }[] };
    for (const tx of block.tx) if (tx.vout.some((out) => out.scriptPubKey.hex === hex.encode(lockup.script))) payments.push(tx.txid);
  }
  assert.deepEqual(payments, [output.txid], 'one transaction ever paid the lockup address');
  assert.equal(await world.operatorBalance(), operatorBefore - output.value - lockupFee, "Ferry's wallet paid once");

  // The client claims through the claim leaf; Ferry settles alice's payment.
  const internalKey = TaprootUtils.toXOnly(Musig.create(client.privateKey, lockup.keys).internalKey);
  const claimTx = constructClaimTransaction(
    [{ type: OutputType.Taproot, transactionId: output.txid, vout: output.vout, script: output.script, amount: output.value, privateKey: client.privateKey, preimage, swapTree: lockup.swapTree, internalKey }],
    p2wpkhScript(client.publicKey),
    300n,
  );
  await world.node.sendRawTransaction(hex.encode(claimTx.toBytes(true, true)));
  await world.waitForStatus(created.id, 'invoice.settled');
  assert.equal((await payment).status, 'SUCCEEDED');
  await world.mine();
  assert.equal(await spenderOf(output, fromHeight), claimTx.id, "the client's claim spends Ferry's lockup");
});
