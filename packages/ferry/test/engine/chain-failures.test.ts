// The failure paths of a BTC → L-BTC chain swap on the real devnet, asserted on the chains: Ferry cannot lock (its
// L-BTC wallet is empty) and the client takes its BTC back cooperatively; nobody claims, Ferry takes its L-BTC
// back at its timeout, and the client takes its BTC back — cooperatively once Ferry's refund is in a block (not
// before: until then the client could still claim Ferry's lockup too), or alone through the refund leaf.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TransactionRejected } from '@ferry/sdk/chains/backend.js';
import {
  api,
  cooperativeRefund,
  createBtcToLbtc,
  ferryFollowed,
  lockBtc,
  scriptPathRefundOf,
  startChainWorld,
  untilStatus,
  untilSwap,
  type ChainWorld,
} from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('chain-failures');
});

after(async () => {
  await world?.close();
});

const REFUSED = { status: 400, json: { error: 'swap not eligible for a cooperative refund: status not eligible' } };

/** The output script of a Liquid address, as the node reads it. */
const liquidScript = async (address: string) =>
  Buffer.from((await world.elementsUser.call<{ scriptPubKey: string }>('getaddressinfo', [address])).scriptPubKey, 'hex');

/** Moves every L-BTC of Ferry's wallet to the user's; the amount moved. */
async function emptyOperatorWallet(): Promise<bigint> {
  const operator = world.lbtc.operator;
  await world.lbtc.mine();
  const held = await world.lbtc.balance(operator);
  await operator.call('sendtoaddress', [await world.elementsUser.getNewAddress(), Number(held) / 1e8, '', '', true]);
  await world.lbtc.mine();
  assert.equal(await world.lbtc.balance(operator), 0n, "Ferry's L-BTC wallet is empty");
  return held;
}

async function refillOperatorWallet(amount: bigint): Promise<void> {
  await world.elementsUser.sendToAddress(await world.lbtc.operator.getNewAddress(), Number(amount - 100_000n) / 1e8);
  await world.lbtc.mine();
}

test('Ferry cannot lock: transaction.failed, the client refunds its BTC cooperatively, and Ferry never locks later', async () => {
  const held = await emptyOperatorWallet();
  const swap = await createBtcToLbtc(world, 100_000);
  const [btcFrom, lbtcFrom] = [(await world.btc.height()) + 1, (await world.lbtc.height()) + 1];
  const userBefore = await world.btc.balance(world.btc.user);
  let lockup;
  try {
    lockup = await lockBtc(world, swap);
    await world.btc.mine();
    const failed = await untilStatus(world, swap.id, 'transaction.failed');
    assert.equal(failed.failureReason, 'onchain coins could not be sent');
    assert.equal(failed.serverLockup, undefined);
  } finally {
    await refillOperatorWallet(held);
  }
  assert.deepEqual((await api(world, 'GET', `/v2/swap/${swap.id}`)).json, { status: 'transaction.failed', failureReason: 'onchain coins could not be sent' });

  const { answer, refund } = await cooperativeRefund(world, swap, lockup.txid);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  await world.bitcoin.sendRawTransaction(refund!.hex);
  await world.btc.mine();
  const spends = await world.btc.spendsOf(lockup.txid, lockup.vout, btcFrom);
  assert.deepEqual(spends.map((s) => [s.txid, s.witness.length]), [[refund!.txid, 1]], "the user's lockup is spent once, by its key-path refund");
  assert.equal(await world.btc.confirmations(refund!.txid), 1);
  const fees = (await world.btc.fee(lockup.txid)) + (await world.btc.fee(refund!.txid));
  assert.equal(await world.btc.balance(world.btc.user), userBefore - fees, 'the user has its BTC back, less the two miner fees');

  // With Ferry's wallet funded again, a late retry of the lockup would pay now: blocks pass on both chains, and
  // nothing ever pays Ferry's lockup address.
  await world.btc.mine(2);
  await world.lbtc.mine(2);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.deepEqual(await world.lbtc.paymentsTo(await liquidScript(swap.claimDetails.lockupAddress), lbtcFrom), []);
  assert.equal((await api(world, 'GET', `/v2/swap/chain/${swap.id}/transactions`)).json.serverLock, undefined);
  assert.equal((await world.ferry.storage.swaps.get(swap.id))!.status, 'transaction.failed');
});

test('nobody claims: Ferry refunds its L-BTC at its timeout; the user refunds its BTC cooperatively once that refund is in a block, or alone after its own timeout', async () => {
  const [btcFrom, lbtcFrom] = [(await world.btc.height()) + 1, (await world.lbtc.height()) + 1];
  const operatorBefore = await world.lbtc.balance(world.lbtc.operator);
  const userBefore = await world.btc.balance(world.btc.user);
  // Two swaps locked in the same blocks: `coop` is refunded with Ferry's signature, `alone` through the refund leaf.
  const coop = await createBtcToLbtc(world, 150_000);
  const alone = await createBtcToLbtc(world, 160_000);
  const lockups = [await lockBtc(world, coop), await lockBtc(world, alone)];
  await world.btc.mine();
  const locked = [await untilStatus(world, coop.id, 'transaction.server.mempool'), await untilStatus(world, alone.id, 'transaction.server.mempool')];
  await world.lbtc.mine();
  await untilStatus(world, coop.id, 'transaction.server.confirmed');
  await untilStatus(world, alone.id, 'transaction.server.confirmed');
  const serverLockups = locked.map((data) => data.serverLockup!);

  // Ferry's lockup can be claimed: no cooperative refund of the user's.
  assert.deepEqual((await cooperativeRefund(world, coop, lockups[0].txid)).answer, REFUSED);

  // Ferry's timeout (the earlier one): it refunds its lockups through the refund leaf; the refunds wait in the mempool.
  assert.equal(coop.claimDetails.timeoutBlockHeight, alone.claimDetails.timeoutBlockHeight);
  await world.lbtc.mineTo(coop.claimDetails.timeoutBlockHeight);
  // ~1,440 L-BTC blocks at once: Ferry's watcher goes through each (minutes on a busy machine); the refunds follow.
  await ferryFollowed(world, 'L-BTC');
  const refunded = [await untilStatus(world, coop.id, 'transaction.refunded'), await untilStatus(world, alone.id, 'transaction.refunded')];
  for (const [i, data] of refunded.entries()) {
    const spends = await world.lbtc.spendsOf(serverLockups[i].txid, serverLockups[i].vout, lbtcFrom);
    assert.deepEqual(spends.map((s) => [s.txid, s.height]), [[data.refundTransaction!.txid, undefined]], "Ferry's refund spends its lockup, unconfirmed");
    assert.equal((await world.lbtc.transaction(data.refundTransaction!.txid)).locktime, coop.claimDetails.timeoutBlockHeight);
  }
  // While the refund is unconfirmed the client could still claim Ferry's lockup: still no cooperative refund.
  assert.deepEqual((await cooperativeRefund(world, coop, lockups[0].txid)).answer, REFUSED);

  await world.lbtc.mine();
  await untilSwap(world, coop.id, (_, data) => data.refundConfirmed === true, 'refund confirmed');
  await untilSwap(world, alone.id, (_, data) => data.refundConfirmed === true, 'refund confirmed');
  const lbtcFees = await Promise.all([...serverLockups.map((l) => world.lbtc.fee(l.txid)), ...refunded.map((d) => world.lbtc.fee(d.refundTransaction!.txid))]);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - lbtcFees.reduce((a, b) => a + b), "Ferry's wallet has its L-BTC back, less the fees");

  // Ferry's refund is in a block: the client's cooperative refund is signed, and spends its BTC lockup.
  const { answer, refund } = await cooperativeRefund(world, coop, lockups[0].txid);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  await world.bitcoin.sendRawTransaction(refund!.hex);

  // The other client refunds alone: refused by the node before its timeout, accepted from it on.
  const leaf = await scriptPathRefundOf(world, alone, lockups[1].txid);
  assert.ok((await world.btc.height()) < alone.lockupDetails.timeoutBlockHeight);
  await assert.rejects(world.bitcoin.sendRawTransaction(leaf.hex), (error: Error) => error instanceof TransactionRejected || /non-final/.test(error.message));
  await world.btc.mineTo(alone.lockupDetails.timeoutBlockHeight);
  await world.bitcoin.sendRawTransaction(leaf.hex);
  await world.btc.mine();

  const coopSpends = await world.btc.spendsOf(lockups[0].txid, lockups[0].vout, btcFrom);
  assert.deepEqual(coopSpends.map((s) => [s.txid, s.witness.length]), [[refund!.txid, 1]], 'the cooperative refund: one key-path signature');
  const aloneSpends = await world.btc.spendsOf(lockups[1].txid, lockups[1].vout, btcFrom);
  assert.deepEqual(aloneSpends.map((s) => [s.txid, s.witness.length]), [[leaf.txid, 3]], 'the refund leaf: signature, script, control block');
  assert.equal((await world.btc.transaction(leaf.txid)).locktime, alone.lockupDetails.timeoutBlockHeight);
  const btcFees = await Promise.all([lockups[0].txid, lockups[1].txid, refund!.txid, leaf.txid].map((txid) => world.btc.fee(txid)));
  assert.equal(await world.btc.balance(world.btc.user), userBefore - btcFees.reduce((a, b) => a + b), 'the user has both BTC lockups back, less the fees');
  for (const id of [coop.id, alone.id]) assert.equal((await world.ferry.storage.swaps.get(id))!.status, 'transaction.refunded');
});
