// A swap Ferry claimed is followed on chain only until its claim is settled deep (SETTLED_DEPTH): a reorg shallower
// than that is still handled — the user's lockup and Ferry's claim taken out with it fail the swap (lockup.lost) —,
// and once the claim is that deep the swap is done with the chain (claim.settled): its lockup is no longer in the
// watcher's index and no chain row applies any more. Without the guard, every claimed swap stayed followed forever.
// On the devnet, BTC → L-BTC chain swaps at the default confirmations: the client claims Ferry's L-BTC, which hands
// Ferry the preimage, and Ferry claims the client's BTC alone a second later.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput } from '@ferry/sdk/chains/bitcoin/spends.js';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { SETTLED_DEPTH, needsChain } from '../../src/engine/chain-events.ts';
import type { WatchIndex } from '../../src/engine/watch-index.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, walletKey } from '../helpers/htlc.ts';
import { createBtcToLbtc, ferryFollowed, scriptPathClaimOf, startChainWorld, untilStatus, untilSwap, type ChainWorld } from './chain-support.ts';

/** A failure ceiling only: each wait ends on the status it waits for. */
const CEILING_MS = 180_000;

let world: ChainWorld;
let watching: WatchIndex;

before(async () => {
  world = await startChainWorld('claim-settled');
  watching = (world.ferry.swaps as unknown as { ctx: { watching: WatchIndex } }).ctx.watching;
});

after(async () => {
  await world?.close();
});

const stored = async (id: string) => (await world.ferry.storage.swaps.get(id))!;
const followed = (lockup: { txid: string; vout: number }) => watching.ofOutpoint('BTC', lockup.txid, lockup.vout) !== undefined;

/**
 * A chain swap up to Ferry's claim of the user's BTC lockup in a block. The lockup spends a coin whose funding
 * transaction has nLockTime = the tip, so invalidating the funding block takes the lockup (and Ferry's claim) off
 * the node. Returns the lockup, the funding block's height and the height of Ferry's claim.
 */
async function claimedByFerry() {
  const swap = await createBtcToLbtc(world, 100_000);
  const coinScript = p2wpkhScript(walletKey.publicKey);
  // The coin pays the lockup and an ordinary fee: a large one would lift the node's fee estimate past the swaps.
  const fundingTxid = await world.bitcoinUser.sendToAddress(addressOf(coinScript), satToBtc(swap.lockupDetails.amount + 500));
  const fundingHex = await world.bitcoin.getRawTransactionHex(fundingTxid);
  const { locktime } = await world.btc.transaction(fundingTxid);
  await world.btc.mine();
  const found = findOutput(fundingHex, coinScript)!;
  const coin = { txid: fundingTxid, vout: found.vout, value: found.value, script: coinScript };
  const lockup = spendP2wpkh(coin, { destinationScript: scriptOf('regtest', swap.lockupDetails.lockupAddress), outputAmount: BigInt(swap.lockupDetails.amount) });
  await world.bitcoin.sendRawTransaction(lockup.hex);
  await world.btc.mine();
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool', CEILING_MS);
  await world.lbtc.mine();
  const claim = await scriptPathClaimOf(world, swap, locked.serverLockup!.txid);
  await world.elements.sendRawTransaction(claim.hex);
  await world.lbtc.mine();
  await untilStatus(world, swap.id, 'transaction.claimed', CEILING_MS);
  await world.btc.mine();
  await untilSwap(world, swap.id, (_, data) => data.claimConfirmed === true, "Ferry's claim in a block", CEILING_MS);
  const claimHeight = await world.btc.height();
  const userLockup = (await stored(swap.id)).data.lockup as { txid: string; vout: number };
  assert.equal(userLockup.txid, lockup.txid);
  return { id: swap.id, lockup: userLockup, fundingHeight: locktime, claimHeight };
}

test("a claim one block short of settled is still followed: the user's lockup reorganised out with it fails the swap", async () => {
  const { id, lockup, fundingHeight, claimHeight } = await claimedByFerry();
  await world.btc.mineTo(claimHeight + SETTLED_DEPTH - 2); // the claim SETTLED_DEPTH - 1 deep
  await ferryFollowed(world, 'BTC');
  const shallow = await stored(id);
  assert.equal(shallow.status, 'transaction.claimed');
  assert.notEqual(shallow.data.claimSettled, true);
  assert.ok(needsChain(shallow) && followed(lockup), 'still followed on chain');

  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(fundingHeight));
  const failed = await untilStatus(world, id, 'transaction.failed', CEILING_MS);
  assert.equal(failed.lockupLost?.txid, lockup.txid);
  // Back to a chain as long as before, for the next test (the lost swap's coins are not this test's concern).
  await world.btc.mineTo(claimHeight + SETTLED_DEPTH);
});

test('a claim SETTLED_DEPTH deep ends the swap on chain: claim.settled, its lockup no longer watched', async () => {
  const { id, lockup, claimHeight } = await claimedByFerry();
  assert.ok(followed(lockup), 'followed while the claim is shallow');
  await world.btc.mineTo(claimHeight + SETTLED_DEPTH - 1); // the claim SETTLED_DEPTH deep
  const settled = await untilSwap(world, id, (_, data) => data.claimSettled === true, 'claim settled', CEILING_MS);
  assert.equal(settled.claimConfirmed, true);
  const swap = await stored(id);
  assert.equal(swap.status, 'transaction.claimed', 'still claimed: settling is no status change');
  assert.equal(needsChain(swap), false, 'no chain row applies any more');
  assert.equal(followed(lockup), false, "the lockup left the watcher's index");
});
