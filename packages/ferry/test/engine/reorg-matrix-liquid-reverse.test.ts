// A reverse swap Lightning → L-BTC reorganised after its invoice settled, on the real devnet (invalidateblock on the
// Elements node): the blocks of Ferry's lockup and of the client's claim through the claim leaf go, three deep, and
// both return to the mempool (the devnet's Elements wallet pays with nLockTime 0, so its payments stay final).
// Ferry sends no second lockup and refunds nothing; the claim confirms again and takes the lockup; Ferry's L-BTC
// wallet paid one lockup and alice's payment stays settled. BTC's deep cases are in reorg-matrix-reverse.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { LndRestClient } from '../../src/lightning/index.ts';
import type { ReverseLockup } from '../../src/engine/data.ts';
import { api, scriptPathClaimOf, sleep, startChainWorld, untilStatus, type ChainWorld, type ClientSwap } from './chain-support.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('reorg-matrix-liquid-reverse');
});

after(async () => {
  await world?.close();
});

const inMempool = async (txid: string): Promise<boolean> => (await world.elements.getRawMempool()).includes(txid);

test("L-BTC reverse: Ferry's lockup and the client's claim reorganised back into the mempool, three blocks deep, after the invoice settled: one lockup, no refund, the claim confirms", async () => {
  const preimage = randomBytes(32);
  const claimKey = secp256k1.utils.randomSecretKey();
  const created = await api(world, 'POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'L-BTC',
    preimageHash: Buffer.from(sha256(preimage)).toString('hex'),
    claimPublicKey: Buffer.from(secp256k1.getPublicKey(claimKey, true)).toString('hex'),
    invoiceAmount: 90_000,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, invoice, swapTree, refundPublicKey, blindingKey, lockupAddress } = created.json;
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const operatorBefore = await world.lbtc.balance(world.lbtc.operator);
  const { restUrl, macaroon } = world.ferry.devnet!.info.lightning.alice;
  const payment = new LndRestClient({ url: restUrl, macaroon }).payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
  const lockup = (await untilStatus(world, id, 'transaction.mempool')).lockup as unknown as ReverseLockup;
  await world.lbtc.mine();
  await untilStatus(world, id, 'transaction.confirmed');

  // The client claims through the claim leaf (the same build as a chain swap's claim of Ferry's L-BTC).
  const client = { id, claimKey, preimage, claimDetails: { swapTree, serverPublicKey: refundPublicKey, blindingKey } } as unknown as ClientSwap;
  const claim = await scriptPathClaimOf(world, client, lockup.txid);
  await world.elements.sendRawTransaction(claim.hex);
  await untilStatus(world, id, 'invoice.settled');
  assert.equal((await payment).status, 'SUCCEEDED', "alice's payment was taken");
  await world.lbtc.mine(2);

  await world.elements.invalidateBlock((await world.elements.getRawTransaction(lockup.txid)).blockhash!);
  assert.ok((await inMempool(lockup.txid)) && (await inMempool(claim.txid)), 'lockup and claim are unconfirmed again');
  await sleep(1_000); // Ferry's watcher polls every 100 ms: room for a wrong second lockup or a refund
  const script = Buffer.from((await world.elementsUser.call<{ scriptPubKey: string }>('getaddressinfo', [lockupAddress])).scriptPubKey, 'hex');
  assert.deepEqual((await world.lbtc.paymentsTo(script, lbtcFrom)).map((tx) => tx.txid), [lockup.txid], 'one transaction ever paid the lockup');

  await world.lbtc.mine();
  const spends = await world.lbtc.spendsOf(lockup.txid, lockup.vout, lbtcFrom);
  assert.deepEqual(spends.map((spend) => [spend.txid, spend.height !== undefined]), [[claim.txid, true]], "the client's claim, confirmed, spends Ferry's lockup");
  assert.equal((await world.ferry.storage.swaps.get(id))!.status, 'invoice.settled');
  assert.deepEqual((await world.ferry.storage.effects.listForSwap(id)).filter((effect) => effect.kind === 'refundLockup'), [], 'no refund was attempted');
  const fee = await world.lbtc.fee(lockup.txid);
  assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - BigInt(lockup.value) - fee, "Ferry's L-BTC wallet paid one lockup");
});
