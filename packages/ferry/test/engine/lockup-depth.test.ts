// Confirmations that scale with the money at risk, on the real devnet with the pairs configured with mainnet's
// default table for Bitcoin (imported, not retyped): a 100,000-sat lockup needs 2 blocks, a larger one more. The
// attack of issue 23 — the user's lockup confirmed in one block, Ferry locks, the user reorganises that block away
// and double-spends — now needs a deeper reorg: after one block Ferry has not locked, and a one-block reorg with a
// double spend fails the swap with Ferry's L-BTC untouched. Without a reorg Ferry locks (or pays) once the lockup
// is deep enough, exactly once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput } from '@ferry/sdk/chains/bitcoin/spends.js';
import { DEFAULT_CONFIRMATIONS, parseConfirmations, requiredConfirmations } from '../../src/swaps/confirmations.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, strangerKey, walletKey } from '../helpers/htlc.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { LightningNodes } from '../swaps/scenarios/support/lightning.ts';
import { createBtcToLbtc, lockBtc, startChainWorld, untilStatus, untilSwap, type ChainWorld } from './chain-support.ts';

const MAINNET_BTC = parseConfirmations(DEFAULT_CONFIRMATIONS.mainnet.BTC);

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('lockup-depth', {
    configure: (config) => {
      // Every pair of [pair] (BTC/BTC, L-BTC/BTC, which serves BTC ↔ L-BTC chain swaps) waits as mainnet's BTC.
      config.pair.confirmations = DEFAULT_CONFIRMATIONS.mainnet.BTC;
      // Below the swaps here, so none is taken unconfirmed whatever its transaction (the wallet's signal RBF anyway).
      config.pair.maximalZeroConf = 50_000;
    },
  });
});

after(async () => {
  await world?.close();
});

const stored = async (id: string) => (await world.ferry.storage.swaps.get(id))!;
/** Every block mined so far processed by Ferry's Bitcoin watcher, its handlers (the depth recheck) included. */
const synced = () => world.ferry.chains.get('BTC')!.watcher.sync();

/** Follows the statuses pushed for a swap to subscribers. */
function pushedOf(id: string) {
  const pushed: string[] = [];
  const stop = world.ferry.swaps!.onStatus((swapId, body) => void (swapId === id && pushed.push(body.status)));
  return { pushed, stop };
}

/** After `blocks` more blocks the swap still waits: transaction.mempool, its lockup not counted, nothing locked. */
async function stillWaitingAfter(id: string, blocks: number, lbtcBefore: bigint) {
  for (let block = 0; block < blocks; block++) {
    await world.btc.mine();
    await synced();
    const swap = await stored(id);
    assert.equal(swap.status, 'transaction.mempool', `still waiting after block ${block + 1}`);
    assert.equal((swap.data.lockup as { confirmed: boolean }).confirmed, false, 'the lockup is recorded, not counted as confirmed');
    assert.notEqual(swap.data.serverLockupRequested, true, 'no lock decided on');
  }
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore, "Ferry's L-BTC wallet did not move");
}

test('a 100,000-sat chain swap without a reorg: Ferry locks once, at the second block', async () => {
  const swap = await createBtcToLbtc(world, 100_000);
  const needed = requiredConfirmations(MAINNET_BTC, swap.lockupDetails.amount);
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  const { pushed, stop } = pushedOf(swap.id);
  await lockBtc(world, swap);
  await untilStatus(world, swap.id, 'transaction.mempool');

  await stillWaitingAfter(swap.id, needed - 1, lbtcBefore);
  await world.btc.mine();
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
  await synced();
  stop();
  assert.equal(locked.lockup!.confirmed, true, 'the lockup counts as confirmed at its depth');
  const sent = locked.serverLockup!;
  const fee = await world.lbtc.fee(sent.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore - BigInt(sent.value) - fee, "Ferry's L-BTC wallet paid one lockup");
  assert.deepEqual(pushed, ['transaction.mempool', 'transaction.confirmed', 'transaction.server.mempool'], 'seen, confirmed once at its depth, locked once');
});

test('a lockup in a higher tier waits for more blocks', async () => {
  const amount = MAINNET_BTC[0].upTo + 100_000;
  const swap = await createBtcToLbtc(world, amount);
  const needed = requiredConfirmations(MAINNET_BTC, swap.lockupDetails.amount);
  assert.ok(needed > requiredConfirmations(MAINNET_BTC, 100_000), `${amount} sat needs more than the first tier`);
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  await lockBtc(world, swap);
  await untilStatus(world, swap.id, 'transaction.mempool');

  await stillWaitingAfter(swap.id, needed - 1, lbtcBefore);
  await world.btc.mine();
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
  assert.equal(locked.serverLockup!.value, swap.claimDetails.amount, 'Ferry locked what it quoted, once the lockup was deep enough');
});

test('a submarine swap above maximalZeroConf pays the invoice only once its lockup is as deep as its amount needs', async () => {
  const info = world.ferry.devnet!.info;
  const lightning = new LightningNodes(info);
  const wallet = await SwapWallet.open({ apiUrl: world.apiUrl, devnet: info });
  try {
    const { invoice, paymentHash } = await lightning.addInvoice('alice', 100_000);
    const swap = await wallet.createSubmarine({ invoice });
    const needed = requiredConfirmations(MAINNET_BTC, swap.expectedAmount!);
    assert.ok(needed >= 2);
    await wallet.fund(swap, swap.expectedAmount!);
    await untilSwap(world, swap.id, (status) => status === 'transaction.mempool', 'transaction.mempool');
    for (let block = 0; block < needed - 1; block++) {
      await world.btc.mine();
      await synced();
      assert.equal((await stored(swap.id)).status, 'transaction.mempool', `not paid after block ${block + 1}`);
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'OPEN', "alice's invoice is not paid");
    }
    await world.btc.mine();
    await untilSwap(world, swap.id, (status) => ['transaction.claim.pending', 'transaction.claimed'].includes(status), 'paid', 60_000);
    assert.equal((await lightning.invoice('alice', paymentHash)).state, 'SETTLED', 'alice is paid once the lockup is deep enough');
  } finally {
    wallet.close();
  }
});

test('a 100,000-sat chain swap: the lockup confirmed in one block, then reorganised away and double spent — Ferry never locked, the swap fails', async () => {
  const swap = await createBtcToLbtc(world, 100_000);
  assert.ok(requiredConfirmations(MAINNET_BTC, swap.lockupDetails.amount) >= 2, 'mainnet wants at least 2 blocks for this amount');
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);
  const { pushed, stop } = pushedOf(swap.id);
  // The user's own coin, confirmed, so the user can spend it again elsewhere; the lockup signals RBF.
  const coinScript = p2wpkhScript(walletKey.publicKey);
  // A modest fee on the lockup and on its double spend, so the devnet's fee estimate stays where the other tests priced.
  const fundingTxid = await world.bitcoinUser.sendToAddress(addressOf(coinScript), (swap.lockupDetails.amount + 2_000) / 1e8);
  const found = findOutput(await world.bitcoin.getRawTransactionHex(fundingTxid), coinScript)!;
  await world.btc.mine();
  const coin = { txid: fundingTxid, vout: found.vout, value: found.value, script: coinScript };
  const lockup = spendP2wpkh(coin, { destinationScript: scriptOf('regtest', swap.lockupDetails.lockupAddress), outputAmount: BigInt(swap.lockupDetails.amount) });
  await world.bitcoin.sendRawTransaction(lockup.hex);
  await untilStatus(world, swap.id, 'transaction.mempool');

  // One block: the lockup is in it, and Ferry waits.
  await stillWaitingAfter(swap.id, 1, lbtcBefore);
  const block = (await world.bitcoin.getRawTransaction(lockup.txid)).blockhash!;
  assert.ok(block, 'the lockup is in a block');

  // The attack: that block goes, and a double spend of the user's coin is mined instead.
  await world.bitcoin.invalidateBlock(block);
  world.ferry.devnet!.bitcoin.node.fullRbf = true;
  const elsewhere = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), outputAmount: BigInt(swap.lockupDetails.amount) - 1_000n });
  try {
    await world.bitcoin.sendRawTransaction(elsewhere.hex);
  } finally {
    world.ferry.devnet!.bitcoin.node.fullRbf = false;
  }
  await world.btc.mine();
  assert.ok((await world.bitcoin.getRawTransaction(elsewhere.txid)).blockhash, 'the double spend is mined');

  const failed = await untilStatus(world, swap.id, 'transaction.lockupFailed');
  await synced();
  stop();
  assert.equal(failed.failureReason, 'the lockup transaction was double spent');
  const final = await stored(swap.id);
  assert.equal(final.data.serverLockup, undefined, 'Ferry never locked');
  assert.notEqual(final.data.serverLockupRequested, true, 'no lock was ever decided on');
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore, "Ferry's L-BTC wallet did not move");
  assert.equal(pushed.includes('transaction.confirmed'), false, 'never pushed as confirmed');
  assert.equal(pushed.at(-1), 'transaction.lockupFailed');
  assert.equal((await world.ferry.storage.effects.listPending({ swapId: swap.id })).length, 0, 'no effect is left retrying');
});
