// Reorgs of chain swaps (BTC ⇄ L-BTC) after Ferry acted, on the real devnet (invalidateblock on the Bitcoin and
// Elements nodes), each asserting which transaction spends which lockup on the chain that remains:
// - L-BTC → BTC, Ferry's BTC lockup and the client's claim of it both gone several blocks deep (Ferry's wallet
//   payment is not final on the shorter chain) after Ferry claimed the user's L-BTC: Ferry sends the same lockup
//   again, the client's claim confirms, Ferry's wallet paid once and never refunds;
// - BTC → L-BTC, Ferry's L-BTC lockup back in the mempool three blocks deep (the devnet's Elements wallet pays with
//   nLockTime 0): no second lockup, and the swap completes (chain-reorg.test.ts has the one-block case);
// - BTC → L-BTC, the client's claim of Ferry's L-BTC back in the mempool while blocks without it pass Ferry's
//   timeout: Ferry does not refund (with full RBF on, a refund paying more would replace the claim);
// - BTC → L-BTC, Ferry's claim of the user's BTC gone with the user's lockup (not final on the shorter chain), deep:
//   once the user's wallet sends its lockup again Ferry broadcasts the same claim, which confirms;
// - BTC → L-BTC, nobody claims, Ferry's L-BTC refund gone with its timeout block: the same refund goes out again
//   and pays the operator once.
// The user's lockup lost for good after Ferry acted (double spent) is the lost-lockup tests' case.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, scriptPathClaim } from '@ferry/sdk/chains/bitcoin/spends.js';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { swapOutputKey } from '@ferry/sdk/keys/index.js';
import { createBtcToLbtc, createChainSwap, ferryFollowed, lockBtc, scriptPathClaimOf, sleep, startChainWorld, untilStatus, untilSwap, type ChainWorld } from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('reorg-matrix-chain');
  // The devnet opens its channels in blocks mined to the operator at start: the reorgs below stay above them.
  await world.btc.mine(10);
});

after(async () => {
  await world?.close();
});

const inMempool = async (rpc: CoreRpcClient, txid: string): Promise<boolean> => (await rpc.getRawMempool()).includes(txid);

async function untilInMempool(rpc: CoreRpcClient, txid: string, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await inMempool(rpc, txid))) {
    if (Date.now() > deadline) throw new Error(`${what} was not broadcast again`);
    await sleep(100);
  }
}

const effectsOf = async (id: string, kind: string) => (await world.ferry.storage.effects.listForSwap(id)).filter((effect) => effect.kind === kind);

/** A BTC → L-BTC swap whose L-BTC lockup of Ferry's is confirmed, the user's BTC lockup confirmed under it. */
async function lockedBtcToLbtc(amount: number) {
  const swap = await createBtcToLbtc(world, amount);
  const btcFrom = (await world.btc.height()) + 1;
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  const lockup = await lockBtc(world, swap);
  await world.btc.mine();
  const serverLockup = (await untilStatus(world, swap.id, 'transaction.server.mempool')).serverLockup!;
  await world.lbtc.mine();
  await untilStatus(world, swap.id, 'transaction.server.confirmed');
  return { swap, lockup, serverLockup, btcFrom, lbtcFrom, lbtcBefore };
}

test("L-BTC → BTC: Ferry's BTC lockup and the client's claim reorganised out several blocks deep after Ferry claimed: the same lockup again, the claim confirms, no refund", async () => {
  const swap = await createChainSwap(world, 'L-BTC', 'BTC', { serverLockAmount: 100_000 });
  const btcFrom = (await world.btc.height()) + 1;
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const btcBefore = await world.btc.balance(world.btc.operator);
  const userLockupTxid = await world.elementsUser.sendToAddress(swap.lockupDetails.lockupAddress, swap.lockupDetails.amount / 1e8);
  await world.lbtc.mine();
  const serverLockup = (await untilStatus(world, swap.id, 'transaction.server.mempool')).serverLockup!;
  await world.btc.mine();
  await untilStatus(world, swap.id, 'transaction.server.confirmed');

  // The client claims Ferry's BTC through the claim leaf; Ferry learns the preimage and claims the user's L-BTC.
  const tree = deserializeTree(swap.claimDetails.swapTree);
  const { internalKey, outputScript } = swapOutputKey(Buffer.from(swap.claimDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(swap.claimKey, true), tree);
  const output = findOutput(await world.bitcoin.getRawTransactionHex(serverLockup.txid), outputScript)!;
  const claim = scriptPathClaim({ output, tree, internalKey, privateKey: swap.claimKey, preimage: swap.preimage, destination: scriptOf('regtest', await world.bitcoinUser.getNewAddress()), feeRate: 2 });
  await world.bitcoin.sendRawTransaction(claim.hex);
  const ferryClaim = (await untilStatus(world, swap.id, 'transaction.claimed')).claimTransaction!;
  await world.lbtc.mine();
  await world.btc.mine(3);
  const lockupFee = await world.btc.fee(serverLockup.txid);
  assert.equal(await world.btc.balance(world.btc.operator), btcBefore - BigInt(serverLockup.value) - lockupFee);

  // From the block before Ferry's lockup on: the lockup is not final on the shorter chain, the claim loses its input.
  const { locktime } = await world.btc.transaction(serverLockup.txid);
  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
  assert.equal(await world.bitcoin.getTxOut(serverLockup.txid, serverLockup.vout, true), null, "Ferry's lockup left the node");
  assert.equal(await inMempool(world.bitcoin, claim.txid), false, "the client's claim left the node");

  await world.btc.mineTo(locktime);
  await untilInMempool(world.bitcoin, serverLockup.txid, "Ferry's lockup");
  await world.bitcoin.sendRawTransaction(claim.hex); // the client's wallet sends its claim again
  await world.btc.mine();
  assert.deepEqual((await world.btc.paymentsTo(outputScript, btcFrom)).map((tx) => tx.txid), [serverLockup.txid], 'one transaction ever paid the lockup');
  const spends = await world.btc.spendsOf(serverLockup.txid, serverLockup.vout, btcFrom);
  assert.deepEqual(spends.map((spend) => [spend.txid, spend.height !== undefined]), [[claim.txid, true]], "the client's claim, confirmed, spends Ferry's lockup");
  assert.equal(await world.btc.balance(world.btc.operator), btcBefore - BigInt(serverLockup.value) - lockupFee, "Ferry's BTC wallet paid one lockup, once");
  const lbtcSpends = await world.lbtc.spendsOf(userLockupTxid, ((await world.ferry.storage.swaps.get(swap.id))!.data.lockup as { vout: number }).vout, lbtcFrom);
  assert.deepEqual(lbtcSpends.map((spend) => spend.txid), [ferryClaim.txid], "Ferry's claim of the user's L-BTC stands");

  // Past Ferry's timeout the swap stays claimed: no refund is attempted.
  await world.btc.mineTo(swap.claimDetails.timeoutBlockHeight + 1);
  await sleep(1_000); // room for a wrong refund
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.claimed');
  assert.deepEqual(await effectsOf(swap.id, 'refundLockup'), [], 'no refund was ever attempted');
  assert.deepEqual((await world.btc.spendsOf(serverLockup.txid, serverLockup.vout, btcFrom)).map((spend) => spend.txid), [claim.txid]);
});

test("BTC → L-BTC: Ferry's L-BTC lockup reorganised back into the mempool three blocks deep: no second lockup, the client claims, Ferry claims the BTC", async () => {
  const { swap, lockup, serverLockup, btcFrom, lbtcFrom, lbtcBefore } = await lockedBtcToLbtc(102_000);
  await world.lbtc.mine(2);
  await world.elements.invalidateBlock((await world.elements.getRawTransaction(serverLockup.txid)).blockhash!);
  assert.ok(await inMempool(world.elements, serverLockup.txid), "Ferry's lockup is unconfirmed again");
  await sleep(1_000); // Ferry's watcher polls every 100 ms: room for a wrong second lockup
  const script = Buffer.from((await world.elementsUser.call<{ scriptPubKey: string }>('getaddressinfo', [swap.claimDetails.lockupAddress])).scriptPubKey, 'hex');
  assert.deepEqual((await world.lbtc.paymentsTo(script, lbtcFrom)).map((tx) => tx.txid), [serverLockup.txid], 'one lockup');

  await world.lbtc.mine();
  const claim = await scriptPathClaimOf(world, swap, serverLockup.txid);
  await world.elements.sendRawTransaction(claim.hex);
  const ferryClaim = (await untilStatus(world, swap.id, 'transaction.claimed')).claimTransaction!;
  await world.lbtc.mine();
  await world.btc.mine();
  assert.deepEqual((await world.lbtc.spendsOf(serverLockup.txid, serverLockup.vout, lbtcFrom)).map((spend) => spend.txid), [claim.txid], "the client's claim takes Ferry's L-BTC");
  assert.deepEqual((await world.btc.spendsOf(lockup.txid, lockup.vout, btcFrom)).map((spend) => spend.txid), [ferryClaim.txid], "Ferry's claim takes the user's BTC");
  const fee = await world.lbtc.fee(serverLockup.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore - BigInt(serverLockup.value) - fee, "Ferry's L-BTC wallet paid once");
});

test("BTC → L-BTC: the client's claim of Ferry's L-BTC reorganised back into the mempool after Ferry claimed, past Ferry's timeout: no refund, the claim confirms", async () => {
  const { swap, serverLockup, lbtcFrom, lbtcBefore } = await lockedBtcToLbtc(105_000);
  const claim = await scriptPathClaimOf(world, swap, serverLockup.txid);
  await world.elements.sendRawTransaction(claim.hex);
  await untilStatus(world, swap.id, 'transaction.claimed');
  await world.lbtc.mine();
  await world.btc.mine();
  const claimBlock = (await world.elements.getRawTransaction(claim.txid)).blockhash!;
  await world.lbtc.mine(2);

  // Three blocks go; the claim is valid on the shorter chain and waits in the mempool.
  await world.elements.invalidateBlock(claimBlock);
  assert.ok(await inMempool(world.elements, claim.txid), 'the claim is unconfirmed again');
  const node = world.ferry.devnet!.elements.node;
  node.fullRbf = true;
  try {
    const to = await world.elementsUser.getNewAddress();
    while ((await world.lbtc.height()) <= swap.claimDetails.timeoutBlockHeight + 1) await world.elements.call('generateblock', [to, []]);
    await sleep(1_000); // room for a wrong refund
  } finally {
    node.fullRbf = false;
  }
  assert.deepEqual(await world.elements.getRawMempool(), [claim.txid], 'only the claim waits to spend the lockup');
  assert.deepEqual(await effectsOf(swap.id, 'refundLockup'), [], 'no refund was ever attempted');
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.claimed');

  await world.lbtc.mine();
  const spends = await world.lbtc.spendsOf(serverLockup.txid, serverLockup.vout, lbtcFrom);
  assert.deepEqual(spends.map((spend) => [spend.txid, spend.height !== undefined]), [[claim.txid, true]], "the client's claim spends Ferry's lockup");
  const fee = await world.lbtc.fee(serverLockup.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore - BigInt(serverLockup.value) - fee, "Ferry's L-BTC went to the client, nothing came back");
});

test("BTC → L-BTC: Ferry's claim of the user's BTC reorganised out with the user's lockup, several blocks deep: once the lockup is back, the same claim confirms", async () => {
  const { swap, lockup, serverLockup, btcFrom } = await lockedBtcToLbtc(110_000);
  const claim = await scriptPathClaimOf(world, swap, serverLockup.txid);
  await world.elements.sendRawTransaction(claim.hex);
  const ferryClaim = (await untilStatus(world, swap.id, 'transaction.claimed')).claimTransaction!;
  await world.btc.mine(3);
  await untilSwap(world, swap.id, (_status, data) => data.claimConfirmed === true, 'its claim confirmed');
  const lockupHex = await world.bitcoin.getRawTransactionHex(lockup.txid);

  // The user's wallet set nLockTime to its tip: without that block its lockup is not final, and Ferry's claim goes too.
  const { locktime } = await world.btc.transaction(lockup.txid);
  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
  assert.equal(await world.bitcoin.getTxOut(lockup.txid, lockup.vout, true), null, "the user's lockup left the node");
  assert.equal(await inMempool(world.bitcoin, ferryClaim.txid), false, "Ferry's claim left the node");

  await world.btc.mineTo(locktime);
  await world.bitcoin.sendRawTransaction(lockupHex); // the user's wallet sends its lockup again
  await untilInMempool(world.bitcoin, ferryClaim.txid, "Ferry's claim");
  await world.btc.mine();
  const spends = await world.btc.spendsOf(lockup.txid, lockup.vout, btcFrom);
  assert.deepEqual(spends.map((spend) => [spend.txid, spend.height !== undefined]), [[ferryClaim.txid, true]], "Ferry's same claim spends the user's lockup");
  assert.ok(spends[0].witness.includes(swap.preimage.toString('hex')), 'through the claim leaf, with the preimage');
  assert.ok((await world.btc.height()) < swap.lockupDetails.timeoutBlockHeight, "the user's refund path never opened");
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.claimed');
});

test("BTC → L-BTC, nobody claims: Ferry's L-BTC refund reorganised out with its timeout block is broadcast again and pays the operator once", async () => {
  const { swap, serverLockup, lbtcFrom, lbtcBefore } = await lockedBtcToLbtc(115_000);
  const timeout = swap.claimDetails.timeoutBlockHeight;
  await world.lbtc.mineTo(timeout);
  // Ferry's watcher handles every block up to the timeout first: work that grows with the machine's load, waited
  // for as work; the refund after it is a block's worth, under the ceiling.
  await ferryFollowed(world, 'L-BTC');
  const refund = (await untilStatus(world, swap.id, 'transaction.refunded', 60_000)).refundTransaction!;
  await world.lbtc.mine();
  await untilSwap(world, swap.id, (_status, data) => data.refundConfirmed === true, 'its refund confirmed');

  // The refund's nLockTime is the timeout: without the timeout block it is not final, and the node drops it.
  await world.elements.invalidateBlock(await world.elements.getBlockHash(timeout));
  assert.equal(await inMempool(world.elements, refund.txid), false, 'the refund left the node');
  assert.ok(await world.lbtc.isUnspent(serverLockup.txid, serverLockup.vout), "Ferry's lockup is unspent again");

  await world.lbtc.mine();
  await untilInMempool(world.elements, refund.txid, "Ferry's refund");
  await world.lbtc.mine();
  const spends = await world.lbtc.spendsOf(serverLockup.txid, serverLockup.vout, lbtcFrom);
  assert.deepEqual(spends.map((spend) => [spend.txid, spend.height !== undefined]), [[refund.txid, true]], 'the same refund spends the lockup, once');
  const lockupFee = await world.lbtc.fee(serverLockup.txid);
  const refundFee = await world.lbtc.fee(refund.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore - lockupFee - refundFee, 'the operator got its L-BTC back once');
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.refunded');
});
