// Child pays for parent on the real devnet (no replacements: the node refuses bumpfee's): Ferry's reverse lockup
// is kept unconfirmed by empty blocks while its fee estimate rises; after feeBumpAfterBlocks blocks the wallet's
// bumpfee is refused, so Ferry spends the lockup's change in a child paying enough for both. The miner (ancestor
// fee rate) takes lockup and child in the next block; the swap names the same lockup, the operator pays the
// child's fee once, the user claims, every status is reported once, and a later bump cycle makes no second child.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import type { Logger } from '../../src/log/index.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { mineEmpty as mineEmptyBlocks, waitFor } from './adversarial-support.ts';
import { startWorld, type World } from './world.ts';

const AFTER_BLOCKS = 2;
let world: World;
let estimate = 2;
let burn: string;
const warnings: string[] = [];
const infos: string[] = [];
const logger: Logger = {
  debug: () => {},
  info: (message) => void infos.push(message),
  warn: (message) => void warnings.push(message),
  error: () => {},
  child: () => logger,
};

before(async () => {
  world = await startWorld({ claimDelayMs: 0, feeBumpAfterBlocks: AFTER_BLOCKS, btcFeeRate: async () => estimate, logger });
  assert.equal(world.devnet.bitcoin.node.fullRbf, false, 'the node refuses replacements');
  burn = await world.user.getNewAddress();
});
after(async () => {
  await world?.close();
});

/** Blocks that confirm nothing, so Ferry's transaction stays in the mempool while the chain moves on. */
const mineEmpty = (blocks: number) => mineEmptyBlocks(world, burn, blocks);

interface Entry {
  vsize: number;
  fees: { base: number };
  depends: string[];
}
const entryOf = async (txid: string) => (await world.node.getMempoolEntry(txid)) as unknown as Entry;
const count = (id: string, status: string) => (world.published.get(id) ?? []).filter((seen) => seen === status).length;
const childOf = async (id: string) => (await world.storage.swaps.get(id))!.data.lockupChild as { txid: string; parent: string } | undefined;

test("a lockup the wallet cannot replace is paid for by a child: both confirm at the estimate, once, and the user claims", async () => {
  estimate = 2;
  const client = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const operatorBefore = await world.operatorBalance();
  const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 90_000 });
  const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
  const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
  const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
  const parent = mempool.transaction!.id;

  estimate = 15;
  await mineEmpty(AFTER_BLOCKS);
  await waitFor(async () => (await childOf(created.id)) !== undefined);
  const child = (await childOf(created.id))!;
  assert.equal(child.parent, parent);
  assert.deepEqual((await world.engine.status(created.id))?.transaction?.id, parent, 'the swap still names its lockup');
  const [parentEntry, childEntry] = [await entryOf(parent), await entryOf(child.txid)];
  assert.deepEqual(childEntry.depends, [parent], 'the child spends the lockup');
  assert.ok(Number(btcToSat(parentEntry.fees.base)) / parentEntry.vsize < 15, 'the lockup alone pays below the estimate');
  const packageFee = btcToSat(parentEntry.fees.base) + btcToSat(childEntry.fees.base);
  assert.ok(Number(packageFee) / (parentEntry.vsize + childEntry.vsize) >= 15, 'lockup and child together pay the estimate');

  // Another bump cycle while the child waits: bumpfee is refused again, and no second child is made.
  const attempts = infos.filter((message) => message.includes('a child pays for it')).length;
  estimate = 20;
  await mineEmpty(AFTER_BLOCKS);
  await waitFor(async () => infos.filter((message) => message.includes('a child pays for it')).length > attempts);
  const spendingParent = [];
  for (const txid of await world.node.getRawMempool()) if ((await entryOf(txid)).depends.includes(parent)) spendingParent.push(txid);
  assert.deepEqual(spendingParent, [child.txid], 'one child only');
  assert.equal((await childOf(created.id))?.txid, child.txid);

  // A block at the estimate: a miner choosing by ancestor fee rate takes both, though the lockup alone pays less.
  const [hash] = await world.node.call<string[]>('generatetoaddress', [1, burn]);
  const mined = (await world.node.getBlockVerbose(hash)).tx.map((tx) => tx.txid);
  assert.ok(mined.includes(parent) && mined.includes(child.txid), 'lockup and child confirmed together');
  await world.watcher.sync();
  await world.waitForStatus(created.id, 'transaction.confirmed');
  assert.equal(count(created.id, 'transaction.mempool'), 1, 'mempool was reported once');
  assert.equal(count(created.id, 'transaction.confirmed'), 1, 'confirmed was reported once');

  // The user claims the lockup cooperatively; Ferry settles the invoice.
  const output = { txid: parent, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };
  const claim = keyPathSpend('claim', output, client);
  const session = clientSession(client, lockup.keys, lockup.swapTree, claim.sighash);
  const answer = await world.engine.reverseClaim(created.id, { preimage: hex.encode(preimage), pubNonce: session.pubNonce, transaction: claim.unsignedHex, index: 0 });
  assert.ok('pubNonce' in answer);
  await world.node.sendRawTransaction(claim.finish(session.aggregate(answer.pubNonce, answer.partialSignature)));
  await world.mine();
  assert.equal((await payment).status, 'SUCCEEDED', 'the invoice was paid');
  await world.waitForStatus(created.id, 'invoice.settled');
  assert.equal(count(created.id, 'invoice.settled'), 1, 'settled was reported once');

  const fees = btcToSat(parentEntry.fees.base) + btcToSat(childEntry.fees.base);
  assert.equal((await world.operatorBalance()) - operatorBefore, -BigInt(created.onchainAmount) - fees, 'the operator locked once and paid the child once');
  assert.equal(warnings.filter((message) => message.includes('no child can pay')).length, 0);
});
