// A chain swap L-BTC → BTC whose BTC lockup of Ferry's stays unconfirmed (empty blocks, full RBF on the devnet):
// after feeBumpAfterBlocks blocks the wallet bumps it, the swap records the replacement, which confirms; the user
// claims the replacement and gets the coins once, Ferry claims the user's L-BTC, and Ferry's BTC wallet paid once.
// And Ferry's L-BTC claim kept out of Liquid blocks: rebuilt at a higher fee, it replaces the original on the
// devnet's Elements node (full RBF, the policy shared with the Bitcoin node) and is what confirms.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, scriptPathClaim } from '@ferry/sdk/chains/bitcoin/spends.js';
import { btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { swapOutputKey } from '@ferry/sdk/keys/index.js';
import { api, createChainSwap, startChainWorld, untilStatus, untilSwap, type ChainWorld } from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('chain-fee-bump', { feeBumpAfterBlocks: 2 });
  world.ferry.devnet!.bitcoin.node.fullRbf = true;
});

after(async () => {
  await world?.close();
});

test("Ferry's stuck BTC lockup is bumped; the user claims the replacement once and Ferry's wallet pays once", async () => {
  const { id, claimKey, preimage, claimDetails, lockupDetails } = await createChainSwap(world, 'L-BTC', 'BTC', { serverLockAmount: 100_000 });
  const tree = deserializeTree(claimDetails.swapTree);
  const { internalKey, outputScript } = swapOutputKey(Buffer.from(claimDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(claimKey, true), tree);
  const btcFrom = (await world.btc.height()) + 1;
  const operatorBefore = await world.btc.balance(world.btc.operator);

  await world.elementsUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await world.lbtc.mine();
  const original = (await untilStatus(world, id, 'transaction.server.mempool')).serverLockup!;

  const miner = await world.bitcoinUser.getNewAddress();
  for (let i = 0; i < 2; i++) await world.bitcoin.call('generateblock', [miner, []]);
  const bumped = (await untilSwap(world, id, (_status, data) => data.serverLockup?.txid !== original.txid, 'a replaced lockup')).serverLockup!;
  assert.equal((await world.bitcoin.getRawMempool()).includes(original.txid), false, 'the original lockup left the mempool');
  const bumpedFee = btcToSat(((await world.bitcoin.getMempoolEntry(bumped.txid)) as { fees: { base: number } }).fees.base);
  assert.equal(bumped.value, original.value, 'the same amount is locked');

  await world.btc.mine();
  const confirmed = await untilStatus(world, id, 'transaction.server.confirmed');
  assert.equal(confirmed.serverLockup!.txid, bumped.txid, 'the confirmed lockup is the replacement');
  const transactions = await api(world, 'GET', `/v2/swap/chain/${id}/transactions`);
  assert.equal(transactions.json.serverLock.transaction.id, bumped.txid, 'the API names the replacement');

  // The user claims what is on chain; Ferry learns the preimage and claims the user's L-BTC.
  const destination = scriptOf('regtest', await world.bitcoinUser.getNewAddress());
  const output = findOutput(await world.bitcoin.getRawTransactionHex(bumped.txid), outputScript)!;
  const claim = scriptPathClaim({ output, tree, internalKey, privateKey: claimKey, preimage, destination, feeRate: 2 });
  await world.bitcoin.sendRawTransaction(claim.hex);
  await untilStatus(world, id, 'transaction.claimed');
  await world.btc.mine();

  const payments = await world.btc.paymentsTo(outputScript, btcFrom);
  assert.deepEqual(payments.map((tx) => tx.txid), [bumped.txid], 'one transaction ever paid the lockup address on chain');
  const spends = await world.btc.spendsOf(bumped.txid, bumped.vout, btcFrom);
  assert.deepEqual(spends.map((spend) => spend.txid), [claim.txid], 'the user claimed once');
  assert.equal(claim.amount, BigInt(bumped.value) - claim.fee, 'the user got the locked amount less its claim fee');
  assert.equal(await world.btc.balance(world.btc.operator), operatorBefore - BigInt(bumped.value) - bumpedFee, "Ferry's BTC wallet paid once");
});

test("Ferry's stuck L-BTC claim is replaced at a higher fee (the devnet's Elements node with full RBF); the replacement confirms and pays Ferry once", async () => {
  world.ferry.devnet!.elements.node.fullRbf = true;
  const { id, claimKey, preimage, claimDetails, lockupDetails } = await createChainSwap(world, 'L-BTC', 'BTC', { serverLockAmount: 100_000 });
  const tree = deserializeTree(claimDetails.swapTree);
  const { internalKey, outputScript } = swapOutputKey(Buffer.from(claimDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(claimKey, true), tree);
  await world.elementsUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await world.lbtc.mine();
  const serverLockup = (await untilStatus(world, id, 'transaction.server.mempool')).serverLockup!;
  await world.btc.mine();
  await untilStatus(world, id, 'transaction.server.confirmed');
  const lbtcBefore = await world.lbtc.balance(world.lbtc.operator);

  // The user claims Ferry's BTC; Ferry learns the preimage and claims the user's L-BTC, which blocks leave out.
  const destination = scriptOf('regtest', await world.bitcoinUser.getNewAddress());
  const output = findOutput(await world.bitcoin.getRawTransactionHex(serverLockup.txid), outputScript)!;
  await world.bitcoin.sendRawTransaction(scriptPathClaim({ output, tree, internalKey, privateKey: claimKey, preimage, destination, feeRate: 2 }).hex);
  const claimed = await untilSwap(world, id, (status, data) => status === 'transaction.claimed' && data.claimTransaction !== undefined, "Ferry's L-BTC claim");
  const original = (claimed.claimTransaction as { txid: string }).txid;
  assert.ok((await world.elements.getRawMempool()).includes(original), "Ferry's claim is in the Liquid mempool");
  const originalFee = await world.lbtc.fee(original);
  const miner = await world.elementsUser.getNewAddress();
  for (let i = 0; i < 2; i++) await world.elements.call('generateblock', [miner, []]);

  const replaced = await untilSwap(world, id, (_status, data) => (data.claimTransaction as { txid: string }).txid !== original, 'a replaced claim');
  const replacement = (replaced.claimTransaction as { txid: string }).txid;
  const mempool = await world.elements.getRawMempool();
  assert.equal(mempool.includes(original), false, 'the original claim left the mempool');
  assert.ok(mempool.includes(replacement), 'the replacement is in the mempool');
  const replacementFee = await world.lbtc.fee(replacement);
  assert.ok(replacementFee > originalFee, 'the replacement pays more');

  await world.lbtc.mine();
  assert.ok((await world.elements.getRawTransaction(replacement)).blockhash, 'the replacement confirmed');
  await untilSwap(world, id, (_status, data) => (data as { claimConfirmed?: boolean }).claimConfirmed === true, 'the claim recorded confirmed');
  const claimedAmount = BigInt(lockupDetails.amount) - replacementFee;
  assert.equal(await world.lbtc.balance(world.lbtc.operator), lbtcBefore + claimedAmount, "Ferry's L-BTC wallet got the user's lockup once, less the replacement's fee");
  world.ferry.devnet!.elements.node.fullRbf = false;
});
