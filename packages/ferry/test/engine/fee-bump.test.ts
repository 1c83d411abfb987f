// Fee bumping of Ferry's own transactions on the real devnet (full RBF on): Ferry's claim, lockup and refund are
// kept unconfirmed by empty blocks (generateblock) while its fee estimate rises; after feeBumpAfterBlocks blocks
// each is replaced at a higher fee, the original leaves the mempool, the replacement confirms and is what the swap
// records, no status is reported twice, and the operator's wallet moves exactly once per spend.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { spendP2wpkh } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, mineEmpty as mineEmptyBlocks, waitFor } from './adversarial-support.ts';
import { findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

const AFTER_BLOCKS = 2;
let world: World;
let estimate = 2;
let burn: string;

before(async () => {
  world = await startWorld({ claimDelayMs: 0, feeBumpAfterBlocks: AFTER_BLOCKS, btcFeeRate: async () => estimate });
  world.devnet.bitcoin.node.fullRbf = true;
  burn = await world.user.getNewAddress();
});
after(async () => {
  await world?.close();
});

/** Blocks that confirm nothing, so Ferry's transaction stays in the mempool while the chain moves on. */
const mineEmpty = (blocks: number) => mineEmptyBlocks(world, burn, blocks);

const inMempool = async (txid: string) => (await world.node.getRawMempool()).includes(txid);
const feeRateOf = async (txid: string) => {
  const entry = (await world.node.getMempoolEntry(txid)) as { vsize: number; fees: { base: number } };
  return Number(btcToSat(entry.fees.base)) / entry.vsize;
};
const recorded = async (id: string, key: string) => (await world.storage.swaps.get(id))!.data[key] as { txid: string; hex: string; vout?: number };
const count = (id: string, status: string) => (world.published.get(id) ?? []).filter((seen) => seen === status).length;
const outputValue = async (txid: string, vout = 0) =>
  btcToSat((await world.node.decodeRawTransaction(await world.node.getRawTransactionHex(txid))).vout[vout].value);

test("a stuck claim is replaced by Ferry's script-path claim at a higher fee; the replacement confirms and pays the operator once", async () => {
  estimate = 2;
  const client = newKeyPair();
  const { invoice, hash } = await aliceInvoice(world, 200_000);
  const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
  const coin = await fundedCoin(world, created.expectedAmount! + 10_000);
  const operatorBefore = await world.operatorBalance();
  const script = lockupOf(created.swapTree, created.claimPublicKey, client).script;
  const lockup = spendP2wpkh(coin, { destinationScript: script, outputAmount: BigInt(created.expectedAmount!) });
  await world.node.sendRawTransaction(lockup.hex);
  await world.mine();
  await world.waitForStatus(created.id, 'transaction.claimed');
  const original = (await recorded(created.id, 'claimTransaction')).txid;
  assert.ok(await inMempool(original));
  const originalRate = await feeRateOf(original);

  estimate = 12;
  await mineEmpty(AFTER_BLOCKS - 1);
  assert.equal((await recorded(created.id, 'claimTransaction')).txid, original, 'not bumped before the target');
  // A node that refuses the replacement: the replacement, recorded before it is sent, is taken back.
  world.devnet.bitcoin.node.fullRbf = false;
  await mineEmpty(1);
  assert.equal((await recorded(created.id, 'claimTransaction')).txid, original, 'a refused replacement is not what the swap names');
  assert.deepEqual((await world.storage.swaps.get(created.id))!.data.claimReplaced, []);
  assert.ok(await inMempool(original));
  world.devnet.bitcoin.node.fullRbf = true;
  await mineEmpty(1);
  await waitFor(async () => (await recorded(created.id, 'claimTransaction')).txid !== original);
  assert.deepEqual(((await world.storage.swaps.get(created.id))!.data.claimReplaced as { txid: string }[]).map((tx) => tx.txid), [original], 'the replaced claim is kept');
  const replacement = (await recorded(created.id, 'claimTransaction')).txid;
  assert.equal(await inMempool(original), false, 'the original left the mempool');
  assert.ok(await inMempool(replacement));
  const replacementRate = await feeRateOf(replacement);
  assert.ok(replacementRate >= 12 && replacementRate > originalRate, `fee rate ${originalRate} → ${replacementRate}`);

  await world.mine();
  assert.ok((await world.node.getRawTransaction(replacement)).blockhash, 'the replacement confirmed');
  assert.equal(await world.node.getTxOut(lockup.txid, 0, true), null, 'the lockup is spent, by the replacement');
  assert.equal((await world.operatorBalance()) - operatorBefore, await outputValue(replacement), 'the operator got the claim once');
  assert.equal((await aliceInvoiceState(world, hash)).state, 'SETTLED');
  assert.equal(count(created.id, 'transaction.claimed'), 1, 'claimed was reported once');
});

test('a stuck lockup is bumped through the wallet and a stuck refund rebuilt: the swap records and confirms the replacements', async () => {
  estimate = 2;
  const client = newKeyPair();
  const { preimageHash } = newPreimage();
  const operatorBefore = await world.operatorBalance();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 90_000 });
  const script = lockupOf(created.swapTree, created.refundPublicKey, client).script;
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
  const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
  const original = mempool.transaction!.id;

  estimate = 15;
  await mineEmpty(AFTER_BLOCKS);
  await waitFor(async () => (await recorded(created.id, 'lockup')).txid !== original);
  const bumped = await recorded(created.id, 'lockup');
  assert.equal(await inMempool(original), false, 'the original lockup left the mempool');
  assert.ok((await feeRateOf(bumped.txid)) >= 15, 'the replacement pays the new estimate');
  const paid = findOutput(bumped.hex, script);
  assert.equal(paid.value, BigInt(created.onchainAmount), 'the replacement locks the same amount');
  assert.equal((await world.engine.status(created.id))?.transaction?.id, bumped.txid, 'the status names the replacement');
  const lockupFee = btcToSat(((await world.node.getMempoolEntry(bumped.txid)) as { fees: { base: number } }).fees.base);

  await world.mine();
  const confirmed = await world.waitForStatus(created.id, 'transaction.confirmed');
  assert.equal(confirmed.transaction?.id, bumped.txid, 'the replacement is the confirmed lockup');
  assert.equal(count(created.id, 'transaction.mempool'), 1, 'mempool was reported once');

  // Never claimed: Ferry refunds at the timeout; the refund is kept out of blocks and bumped in turn.
  await world.mine(created.timeoutBlockHeight - (await world.height()));
  await world.waitForStatus(created.id, 'transaction.refunded');
  const refund = (await recorded(created.id, 'refundTransaction')).txid;
  estimate = 30;
  await mineEmpty(AFTER_BLOCKS);
  await waitFor(async () => (await recorded(created.id, 'refundTransaction')).txid !== refund);
  const refundReplacement = (await recorded(created.id, 'refundTransaction')).txid;
  assert.equal(await inMempool(refund), false, 'the original refund left the mempool');
  await world.mine();
  await waitFor(async () => (await world.storage.swaps.get(created.id))!.data.refundConfirmed === true);
  assert.equal((await recorded(created.id, 'refundTransaction')).txid, refundReplacement, 'the confirmed refund is recorded');
  assert.ok((await world.node.getRawTransaction(refundReplacement)).blockhash);
  assert.equal((await payment).status, 'FAILED', 'the invoice was cancelled: the payer got the HTLC back');
  assert.equal(count(created.id, 'transaction.refunded'), 1, 'refunded was reported once');

  const refunded = await outputValue(refundReplacement);
  assert.equal((await world.operatorBalance()) - operatorBefore, refunded - BigInt(created.onchainAmount) - lockupFee, 'locked once, refunded once');
});

test("a bump of Ferry's lockup it never recorded (a crash right after bumpfee) is attributed by the watcher: the swap confirms with it", async () => {
  estimate = 2;
  const client = newKeyPair();
  const { preimageHash } = newPreimage();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 60_000 });
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
  const original = (await world.waitForStatus(created.id, 'transaction.mempool')).transaction!.id;

  // The operator's wallet bumps the lockup behind Ferry's back, as a bump whose recording a crash cut off.
  const { txid: replacement } = await world.operator.call<{ txid: string }>('bumpfee', [original, { fee_rate: 100 }]);
  await world.watcher.sync();
  await waitFor(async () => (await recorded(created.id, 'lockup')).txid === replacement);
  await world.mine();
  const confirmed = await world.waitForStatus(created.id, 'transaction.confirmed');
  assert.equal(confirmed.transaction?.id, replacement, 'the swap confirmed with the replacement');
  assert.equal(count(created.id, 'transaction.mempool'), 1, 'mempool was reported once');
  assert.equal(count(created.id, 'transaction.confirmed'), 1, 'confirmed was reported once');
  payment.catch(() => {}); // held until the swap ends; the world closes first
});
