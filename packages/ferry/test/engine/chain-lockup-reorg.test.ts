// A chain swap's user lockup leaving the chain before Ferry locked its side, on the real devnet (invalidateblock):
// the machine's rows move the swap back (the lockup vanished: swap.created; a confirmed one back in the mempool:
// transaction.mempool) or fail it (its coin spent elsewhere: transaction.lockupFailed), a lock decided on for a
// confirmed lockup is not sent once it is gone, and a refused lockup back in the mempool takes no quote until it
// confirms again.
// Ferry's wallet on the other chain never moves for a lockup that is gone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, strangerKey, walletKey } from '../helpers/htlc.ts';
import { findOutput } from '@ferry/sdk/chains/bitcoin/spends.js';
import { NamedLocks } from '../../src/engine/locks.ts';
import { api, createBtcToLbtc, sleep, startChainWorld, untilStatus, untilSwap, type ChainWorld } from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('chain-lockup-reorg');
});

after(async () => {
  await world?.close();
});

const stored = async (id: string) => (await world.ferry.storage.swaps.get(id))!;

test("the user's lockup vanishes before Ferry locked: back to swap.created; its coin spent elsewhere: transaction.lockupFailed; Ferry never locks", async () => {
  const swap = await createBtcToLbtc(world, 100_000);
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  // The user's coin comes from a wallet payment with nLockTime = the tip: without that block it is not final.
  const coinScript = p2wpkhScript(walletKey.publicKey);
  const fundingTxid = await world.bitcoinUser.sendToAddress(addressOf(coinScript), 0.002);
  const fundingHex = await world.bitcoin.getRawTransactionHex(fundingTxid);
  const { locktime } = await world.btc.transaction(fundingTxid);
  await world.btc.mine();
  const found = findOutput(fundingHex, coinScript)!;
  const coin = { txid: fundingTxid, vout: found.vout, value: found.value, script: coinScript };
  // The lockup signals RBF, so it is not accepted unconfirmed: Ferry waits for a block before locking.
  const lockup = spendP2wpkh(coin, { destinationScript: scriptOf('regtest', swap.lockupDetails.lockupAddress), outputAmount: BigInt(swap.lockupDetails.amount) });
  await world.bitcoin.sendRawTransaction(lockup.hex);
  await untilStatus(world, swap.id, 'transaction.mempool');

  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
  assert.equal((await world.bitcoin.getRawMempool()).includes(lockup.txid), false, 'the lockup left the node with its coin');
  const back = await untilSwap(world, swap.id, (status) => status === 'swap.created', 'back to swap.created');
  assert.equal(back.lockup, undefined, 'no lockup is recorded any more');
  assert.equal(back.vanishedLockup?.txid, lockup.txid, 'the vanished one is kept');

  // The coin's own transaction comes back, and the user spends the coin elsewhere.
  await world.btc.mineTo(locktime);
  await world.bitcoin.sendRawTransaction(fundingHex);
  await world.btc.mine();
  const elsewhere = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), outputAmount: found.value - 1_000n });
  await world.bitcoin.sendRawTransaction(elsewhere.hex);
  await world.btc.mine();
  const failed = await untilStatus(world, swap.id, 'transaction.lockupFailed');
  assert.equal(failed.failureReason, 'the lockup transaction was double spent');

  await sleep(500);
  const final = await stored(swap.id);
  assert.notEqual(final.data.serverLockupRequested, true, 'no lock is decided on');
  assert.equal(final.data.serverLockup, undefined, 'Ferry never locked');
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore, "Ferry's L-BTC wallet did not move");
  assert.equal((await world.ferry.storage.effects.listPending({ swapId: swap.id })).length, 0, 'no effect is left retrying');
});

test('a refused lockup reorganised back into the mempool takes no quote until it confirms again', async () => {
  const swap = await createBtcToLbtc(world, 150_000);
  const txid = await world.bitcoinUser.sendToAddress(swap.lockupDetails.lockupAddress, 100_000 / 1e8);
  await world.btc.mine();
  await untilSwap(world, swap.id, (status, data) => status === 'transaction.lockupFailed' && data.lockup?.confirmed === true, 'a confirmed refused lockup');
  const quote = async () => (await api(world, 'GET', `/v2/swap/chain/${swap.id}/quote`)).json.amount as number;

  await world.bitcoin.invalidateBlock((await world.bitcoin.getRawTransaction(txid)).blockhash!);
  await untilSwap(world, swap.id, (status, data) => status === 'transaction.lockupFailed' && data.lockup?.confirmed === false, 'the lockup unconfirmed again');
  assert.deepEqual(await api(world, 'POST', `/v2/swap/chain/${swap.id}/quote`, { amount: await quote() }), {
    status: 400,
    json: { error: 'the lockup is not confirmed yet: accept the quote once it is' },
  });

  await world.btc.mine();
  await untilSwap(world, swap.id, (_status, data) => data.lockup?.confirmed === true, 'the lockup confirmed again');
  const accepted = await quote();
  assert.deepEqual(await api(world, 'POST', `/v2/swap/chain/${swap.id}/quote`, { amount: accepted }), { status: 200, json: {} });
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
  assert.equal(locked.serverLockup!.value, accepted, 'Ferry locked the quoted amount, once the lockup was confirmed again');
});

/**
 * A BTC → L-BTC swap whose user lockup (spending a coin of walletKey's) just confirmed while Ferry's L-BTC wallet
 * is busy (another instance holds its lock): the lock is decided on and waits. `release` frees the wallet.
 */
async function confirmedWhileWalletBusy() {
  const swap = await createBtcToLbtc(world, 100_000);
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  const pushed: string[] = [];
  const stop = world.ferry.swaps!.onStatus((id, body) => void (id === swap.id && pushed.push(body.status)));
  // Ferry's L-BTC wallet is busy (another instance holds its lock) when the lockup confirms: the lock is decided
  // on, and the reorg and the double spend come before it can be sent.
  const gate = new NamedLocks(world.ferry.storage.locks, { owner: 'test-gate' });
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const busy = gate.run('wallet:L-BTC', () => new Promise<void>((resolve) => ((release = resolve), held())));
  await holding;

  const coinScript = p2wpkhScript(walletKey.publicKey);
  const fundingTxid = await world.bitcoinUser.sendToAddress(addressOf(coinScript), 0.002);
  const found = findOutput(await world.bitcoin.getRawTransactionHex(fundingTxid), coinScript)!;
  await world.btc.mine();
  const coin = { txid: fundingTxid, vout: found.vout, value: found.value, script: coinScript };
  const lockup = spendP2wpkh(coin, { destinationScript: scriptOf('regtest', swap.lockupDetails.lockupAddress), outputAmount: BigInt(swap.lockupDetails.amount) });
  await world.bitcoin.sendRawTransaction(lockup.hex);
  await world.btc.mine();
  const confirmed = await untilStatus(world, swap.id, 'transaction.confirmed');
  assert.equal(confirmed.serverLockupRequested, true, 'Ferry decided to lock');

  return { swap, lbtcBefore, pushed, stop, release, busy, coin, lockup };
}

test("the user's confirmed lockup reorganised out and double spent while Ferry's lock waits for its wallet: the lock is refused, Ferry never locks", async () => {
  const { swap, lbtcBefore, pushed, stop, release, busy, coin, lockup } = await confirmedWhileWalletBusy();
  // The lockup's block goes, and a double spend paying more replaces the lockup and is mined.
  await world.bitcoin.invalidateBlock((await world.bitcoin.getRawTransaction(lockup.txid)).blockhash!);
  world.ferry.devnet!.bitcoin.node.fullRbf = true;
  const outputAmount = BigInt(swap.lockupDetails.amount) - 10_000n; // more fee than the lockup, as a replacement must pay
  const elsewhere = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), outputAmount });
  try {
    await world.bitcoin.sendRawTransaction(elsewhere.hex);
  } finally {
    world.ferry.devnet!.bitcoin.node.fullRbf = false;
  }
  await world.btc.mine();
  assert.ok((await world.bitcoin.getRawTransaction(elsewhere.txid)).blockhash, 'the double spend is mined');

  // The wallet is free again: the lock decided on finds the user's lockup gone and is not sent.
  release();
  await busy;
  const failed = await untilSwap(world, swap.id, (status) => status !== 'transaction.confirmed', 'moved on from transaction.confirmed');
  await sleep(1_000);
  stop();
  const final = await stored(swap.id);
  assert.equal(final.status, 'transaction.failed', 'the refused lock fails the swap (server.failed)');
  assert.equal(failed.failureReason, 'the user lockup is spent or gone');
  assert.equal(final.data.serverLockup, undefined, 'Ferry never locked');
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore, "Ferry's L-BTC wallet did not move");
  // transaction.mempool only if Ferry saw the lockup before its block.
  assert.deepEqual(pushed.filter((status) => status !== 'transaction.mempool'), ['transaction.confirmed', 'transaction.failed'], 'confirmed, then failed, each pushed once');
  assert.equal(new Set(pushed).size, pushed.length, 'no status pushed twice');
  assert.equal((await world.ferry.storage.effects.listPending({ swapId: swap.id })).length, 0, 'no effect is left retrying');
});

test("the user's confirmed lockup reorganised back into the mempool while Ferry's lock waits: not sent; back to transaction.mempool; locked once when it confirms again", async () => {
  const { swap, lbtcBefore, pushed, stop, release, busy, lockup } = await confirmedWhileWalletBusy();
  await world.bitcoin.invalidateBlock((await world.bitcoin.getRawTransaction(lockup.txid)).blockhash!);
  assert.ok((await world.bitcoin.getRawMempool()).includes(lockup.txid), 'the lockup is back in the mempool');

  // The wallet is free: the lock decided on finds the lockup unconfirmed and waits; the reorg takes the decision back.
  release();
  await busy;
  const back = await untilStatus(world, swap.id, 'transaction.mempool');
  assert.notEqual(back.serverLockupRequested, true, 'the decision to lock is taken back');
  await sleep(500);
  assert.equal((await stored(swap.id)).data.serverLockup, undefined, 'Ferry did not lock for an unconfirmed lockup');

  await world.btc.mine();
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
  await sleep(500);
  stop();
  const sent = locked.serverLockup!;
  const fee = await world.lbtc.fee(sent.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore - BigInt(sent.value) - fee, "Ferry's L-BTC wallet paid one lockup");
  assert.deepEqual(pushed.filter((status) => status !== 'transaction.mempool'), ['transaction.confirmed', 'transaction.confirmed', 'transaction.server.mempool']);
});
