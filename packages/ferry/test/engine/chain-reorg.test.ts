// Reorgs under a chain swap's server statuses, on the real devnet (invalidateblock): Ferry's lockup leaves its block
// (back to the mempool, or gone altogether), or the user's lockup leaves its block after Ferry locked. Whatever
// happens, Ferry locks once (one transaction ever pays its lockup address, its wallet pays once) and the swap is
// not lost: the client can still claim, and Ferry then claims the user's lockup.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, scriptPathClaim } from '@ferry/sdk/chains/bitcoin/spends.js';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { swapOutputKey } from '@ferry/sdk/keys/index.js';
import { createBtcToLbtc, createChainSwap, lockBtc, scriptPathClaimOf, sleep, startChainWorld, untilStatus, type ChainWorld, type ClientSwap } from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('chain-reorg');
});

after(async () => {
  await world?.close();
});

const blockOf = async (rpc: CoreRpcClient, txid: string): Promise<string> => (await rpc.getRawTransaction(txid)).blockhash!;
const inMempool = async (rpc: CoreRpcClient, txid: string): Promise<boolean> => (await rpc.getRawMempool()).includes(txid);

/** The output script of a Liquid address, as the node reads it. */
const liquidScript = async (address: string) =>
  Buffer.from((await world.elementsUser.call<{ scriptPubKey: string }>('getaddressinfo', [address])).scriptPubKey, 'hex');

/** A BTC → L-BTC swap whose BTC lockup is confirmed and whose L-BTC lockup Ferry sent. */
async function lockedSwap(amount: number) {
  const swap = await createBtcToLbtc(world, amount);
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const operatorBefore = await world.lbtc.balance(world.lbtc.operator);
  const lockup = await lockBtc(world, swap);
  await world.btc.mine();
  const data = await untilStatus(world, swap.id, 'transaction.server.mempool');
  return { swap, lockup, serverLockup: data.serverLockup!, lbtcFrom, operatorBefore, serverScript: await liquidScript(swap.claimDetails.lockupAddress) };
}

/** The client claims Ferry's lockup; Ferry claims the user's BTC lockup in turn, once, through the claim leaf. */
async function claimBoth(swap: ClientSwap, serverLockupTxid: string, lockup: { txid: string; vout: number }, btcFrom: number) {
  const claim = await scriptPathClaimOf(world, swap, serverLockupTxid);
  await world.elements.sendRawTransaction(claim.hex);
  const claimed = await untilStatus(world, swap.id, 'transaction.claimed');
  await world.btc.mine();
  const spends = await world.btc.spendsOf(lockup.txid, lockup.vout, btcFrom);
  assert.deepEqual(spends.map((s) => s.txid), [claimed.claimTransaction!.txid], "Ferry claimed the user's lockup once");
  assert.ok(spends[0].witness.includes(swap.preimage.toString('hex')), 'with the preimage the client revealed');
}

test("Ferry's lockup reorganised back into the mempool: Ferry does not lock again, and the swap completes", async () => {
  const btcFrom = (await world.btc.height()) + 1;
  const { swap, lockup, serverLockup, lbtcFrom, operatorBefore, serverScript } = await lockedSwap(110_000);
  await world.lbtc.mine();
  await untilStatus(world, swap.id, 'transaction.server.confirmed');

  await world.elements.invalidateBlock(await blockOf(world.elements, serverLockup.txid));
  assert.ok(await inMempool(world.elements, serverLockup.txid), "Ferry's lockup is unconfirmed again");
  await sleep(1_000); // Ferry's watcher polls every 100 ms: room for a wrong second lockup
  assert.deepEqual((await world.lbtc.paymentsTo(serverScript, lbtcFrom)).map((tx) => tx.txid), [serverLockup.txid], 'one lockup, in the mempool');
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.server.confirmed');

  await world.lbtc.mine();
  await claimBoth(swap, serverLockup.txid, lockup, btcFrom);
  assert.deepEqual((await world.lbtc.paymentsTo(serverScript, lbtcFrom)).map((tx) => tx.txid), [serverLockup.txid], 'one transaction ever paid the lockup');
  const fee = await world.lbtc.fee(serverLockup.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - BigInt(serverLockup.value) - fee, "Ferry's wallet paid once");
});

test("the user's lockup reorganised back into the mempool after Ferry locked: Ferry does not lock again, and claims it once the client claims", async () => {
  const btcFrom = (await world.btc.height()) + 1;
  const { swap, lockup, serverLockup, lbtcFrom, operatorBefore, serverScript } = await lockedSwap(120_000);

  await world.bitcoin.invalidateBlock(await blockOf(world.bitcoin, lockup.txid));
  assert.ok(await inMempool(world.bitcoin, lockup.txid), "the user's lockup is unconfirmed again");
  await sleep(1_000);
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.server.mempool');
  await world.lbtc.mine();
  await untilStatus(world, swap.id, 'transaction.server.confirmed');
  await world.btc.mine(); // the user's lockup confirms again
  await sleep(500);
  assert.deepEqual((await world.lbtc.paymentsTo(serverScript, lbtcFrom)).map((tx) => tx.txid), [serverLockup.txid], 'one lockup');

  await claimBoth(swap, serverLockup.txid, lockup, btcFrom);
  const fee = await world.lbtc.fee(serverLockup.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - BigInt(serverLockup.value) - fee, "Ferry's wallet paid once");
});

test("Ferry's BTC lockup gone in a reorg (its nLockTime is not final on the shorter chain): Ferry sends the same transaction again, never a second one", async () => {
  const { id, claimKey, preimage, claimDetails, lockupDetails } = await createChainSwap(world, 'L-BTC', 'BTC', { serverLockAmount: 100_000 });
  const btcFrom = (await world.btc.height()) + 1;
  const operatorBefore = await world.btc.balance(world.btc.operator);
  const userLockupTxid = await world.elementsUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await world.lbtc.mine();
  const serverLockup = (await untilStatus(world, id, 'transaction.server.mempool')).serverLockup!;
  await world.btc.mine();
  await untilStatus(world, id, 'transaction.server.confirmed');
  const tree = deserializeTree(claimDetails.swapTree);
  const { internalKey, outputScript } = swapOutputKey(Buffer.from(claimDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(claimKey, true), tree);

  // Ferry's wallet set nLockTime to the tip it sent at: without that block, the lockup is not final and is dropped.
  const { locktime } = await world.btc.transaction(serverLockup.txid);
  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
  assert.equal(await world.bitcoin.getTxOut(serverLockup.txid, serverLockup.vout, true), null, "Ferry's lockup is gone");
  assert.equal(await inMempool(world.bitcoin, serverLockup.txid), false);
  await sleep(500);
  assert.equal((await world.ferry.storage.swaps.get(id))!.status, 'transaction.server.confirmed', 'the swap stays locked');

  // Once the chain is high enough for it again, Ferry's lockup is back: the same transaction, in the mempool.
  await world.btc.mineTo(locktime);
  const deadline = Date.now() + 10_000;
  while (!(await inMempool(world.bitcoin, serverLockup.txid))) {
    if (Date.now() > deadline) throw new Error("Ferry's lockup was not sent again");
    await sleep(100);
  }
  await world.btc.mine();
  const payments = await world.btc.paymentsTo(outputScript, btcFrom);
  assert.deepEqual(payments.map((tx) => tx.txid), [serverLockup.txid], 'one transaction ever paid the lockup address');
  assert.equal(await world.btc.balance(world.btc.operator), operatorBefore - BigInt(serverLockup.value) - (await world.btc.fee(serverLockup.txid)), "Ferry's wallet paid once");

  // The swap goes on: the client claims Ferry's BTC, Ferry claims the user's L-BTC.
  const output = findOutput(await world.bitcoin.getRawTransactionHex(serverLockup.txid), outputScript)!;
  const claim = scriptPathClaim({ output, tree, internalKey, privateKey: claimKey, preimage, destination: scriptOf('regtest', await world.bitcoinUser.getNewAddress()), feeRate: 2 });
  await world.bitcoin.sendRawTransaction(claim.hex);
  const claimed = await untilStatus(world, id, 'transaction.claimed');
  const ferryClaim = (await world.elements.getRawTransaction(claimed.claimTransaction!.txid)) as unknown as { vin: { txid: string }[] };
  assert.equal(ferryClaim.vin[0].txid, userLockupTxid, "Ferry claimed the user's L-BTC");
});
