// A chain swap's user lockup leaving the chain before Ferry locked its side, on the real devnet (invalidateblock):
// the machine's rows move the swap back (the lockup vanished: swap.created) or fail it (its coin spent elsewhere:
// transaction.lockupFailed), and a refused lockup back in the mempool takes no quote until it confirms again.
// Ferry's wallet on the other chain never moves for a lockup that is gone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, strangerKey, walletKey } from '../helpers/htlc.ts';
import { findOutput } from '../../src/chains/bitcoin/spends.ts';
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
