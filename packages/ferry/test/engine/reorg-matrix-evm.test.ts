// Reorgs of the EVM chain (anvil's evm_snapshot / evm_revert, then other blocks at the same heights) after Ferry
// acted, asserted on the contract (which lock stands, who claimed it, who got the RBTC) and on Ferry's account:
// - a reverse swap's claim by the client taken back after Ferry settled the invoice: past the timelock Ferry does not
//   refund the lock it was paid for, and the client's claim sent again takes it;
// - a chain swap BTC → RBTC's lock of Ferry's taken back several blocks deep: Ferry locks again with the same values
//   (one lock stands, Ferry paid for one), the client claims, Ferry claims the user's BTC;
// - a chain swap BTC → RBTC's claim by the client taken back after Ferry claimed the user's BTC: past the timelock
//   Ferry does not refund its lock, and the client's claim sent again takes it.
// evm-reorg.test.ts has a reverse swap's lock taken back before the claim, and a submarine lock taken back after
// Ferry paid; reorg-matrix-evm-open.test.ts the cases not handled yet; a user's lock lost for good after Ferry acted
// is the lost-lockup tests' case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sleep, untilStatus } from './chain-support.ts';
import { gasCost } from './evm-chain-support.ts';
import { claimsOf, createBtcToRbtc, effectsOf, lockedReverse, lockupsOf, reorgTo, snapshot, status, until, useEvmReorgWorld } from './reorg-matrix-evm-support.ts';

const m = useEvmReorgWorld('reorg-matrix-evm');

test("reverse RBTC: the client's claim taken back after the invoice settled: Ferry does not refund past the timelock, the claim sent again takes the lock", async () => {
  const { id, preimage, values, pay } = await lockedReverse(50_000);
  const payment = pay();
  await untilStatus(m.world(), id, 'transaction.confirmed');
  assert.equal(await m.evm().locked(values), true);
  const beforeClaim = await snapshot();
  const claim = await m.evm().claim(preimage, values);
  await untilStatus(m.world(), id, 'invoice.settled');
  assert.equal((await payment).status, 'SUCCEEDED', "alice's payment was taken");
  await m.evm().mine(2);
  await m.evm().ferry.follower.sync();

  await reorgTo(beforeClaim, claim.blockNumber + 2);
  assert.deepEqual(await claimsOf(values), [], 'the claim is gone');
  assert.equal(await m.evm().locked(values), true, "Ferry's lock stands, unclaimed");
  const ferryBefore = await m.evm().balance(values.refundAddress);

  // Past the timelock Ferry could take the lock back (only its refund address can): it must not.
  await m.evm().mine(values.timelock - (await m.evm().height()) + 2);
  await m.evm().ferry.follower.sync();
  await sleep(1_000); // room for a wrong refund
  assert.equal(await m.evm().locked(values), true, 'not refunded');
  assert.equal(await status(id), 'invoice.settled');
  assert.deepEqual(await effectsOf(id, 'refundLockup'), [], 'no refund was ever attempted');
  assert.equal(await m.evm().balance(values.refundAddress), ferryBefore, "Ferry's account did not move");

  const userBefore = await m.evm().balance();
  const again = await m.evm().claim(preimage, values);
  assert.equal(await m.evm().locked(values), false);
  assert.deepEqual((await claimsOf(values)).map((event) => event.transactionHash), [again.hash], 'claimed once, by the client');
  assert.equal(await m.evm().balance(), userBefore + values.amount - gasCost(again), 'the client has the RBTC');
});

test("chain BTC → RBTC: Ferry's lock taken back several blocks deep: locked again with the same values, paid once; the client claims and Ferry claims the BTC", async () => {
  const { id, preimage, values, lockupDetails } = await createBtcToRbtc(100_000);
  const ferryBefore = await m.evm().balance(values.refundAddress);
  const beforeLock = await snapshot();
  const btcFrom = (await m.world().btc.height()) + 1;
  const userLockup = await m.world().bitcoinUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await m.world().btc.mine();
  await untilStatus(m.world(), id, 'transaction.server.confirmed');
  const [lost] = await lockupsOf(values);
  await m.evm().mine(5);
  await m.evm().ferry.follower.sync();

  await reorgTo(beforeLock, lost.blockNumber + 5);
  await until(() => m.evm().locked(values), 'locked again');
  const standing = await lockupsOf(values);
  assert.equal(standing.length, 1, 'one lock on the chain');
  assert.notEqual(standing[0].blockHash, lost.blockHash, 'mined again on the new chain');
  await sleep(1_000); // room for a wrong second lock
  assert.equal((await lockupsOf(values)).length, 1, 'still one lock');
  const lockReceipt = await m.evm().receipt(standing[0].transactionHash);
  assert.equal(await m.evm().balance(values.refundAddress), ferryBefore - values.amount - gasCost(lockReceipt), 'Ferry paid for one lock');

  // The client claims the RBTC; Ferry learns the preimage and claims the user's BTC.
  const userBefore = await m.evm().balance();
  const claim = await m.evm().claim(preimage, values);
  assert.equal(await m.evm().balance(), userBefore + values.amount - gasCost(claim), 'the client has the RBTC');
  const ferryClaim = (await untilStatus(m.world(), id, 'transaction.claimed')).claimTransaction!;
  await m.world().btc.mine();
  const output = (await m.world().btc.transaction(userLockup)).vout.findIndex((out) => out.scriptPubKey.address === lockupDetails.lockupAddress);
  assert.deepEqual((await m.world().btc.spendsOf(userLockup, output, btcFrom)).map((spend) => spend.txid), [ferryClaim.txid], "Ferry claimed the user's BTC");
});

test("chain BTC → RBTC: the client's claim taken back after Ferry claimed the BTC: Ferry does not refund its lock past the timelock, the claim sent again takes it", async () => {
  const { id, preimage, values, lockupDetails } = await createBtcToRbtc(105_000);
  await m.world().bitcoinUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await m.world().btc.mine();
  await untilStatus(m.world(), id, 'transaction.server.confirmed');
  const beforeClaim = await snapshot();
  const claim = await m.evm().claim(preimage, values);
  await untilStatus(m.world(), id, 'transaction.claimed');
  await m.world().btc.mine();
  await m.evm().mine(2);
  await m.evm().ferry.follower.sync();

  await reorgTo(beforeClaim, claim.blockNumber + 2);
  assert.deepEqual(await claimsOf(values), [], 'the claim is gone');
  assert.equal(await m.evm().locked(values), true, "Ferry's lock stands, unclaimed");
  const ferryBefore = await m.evm().balance(values.refundAddress);
  await m.evm().mine(values.timelock - (await m.evm().height()) + 2);
  await m.evm().ferry.follower.sync();
  await sleep(1_000); // room for a wrong refund
  assert.equal(await m.evm().locked(values), true, 'not refunded');
  assert.equal(await status(id), 'transaction.claimed');
  assert.deepEqual(await effectsOf(id, 'refundLockup'), [], 'no refund was ever attempted');
  assert.equal(await m.evm().balance(values.refundAddress), ferryBefore, "Ferry's account did not move");

  const userBefore = await m.evm().balance();
  const again = await m.evm().claim(preimage, values);
  assert.deepEqual((await claimsOf(values)).map((event) => event.transactionHash), [again.hash], 'claimed once, by the client');
  assert.equal(await m.evm().balance(), userBefore + values.amount - gasCost(again), 'the client has the RBTC');
});

