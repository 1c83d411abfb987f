// A restarted engine picks up where the stopped one left: chain events that happened while it was down,
// invoices paid meanwhile, and effects that were pending, without paying or locking twice.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { reverseData } from '../../src/engine/data.ts';
import { rest } from '../lightning/helpers.ts';
import { findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('engine restart', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  test('a submarine lockup confirmed while Ferry was down is found and paid after the restart', async () => {
    const client = newKeyPair();
    const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 15_000 });
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: body.payment_request, refundPublicKey: hex.encode(client.publicKey) });
    await world.engine.stop();
    await world.watcher.stop();
    await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.node.generateToAddress(2, await world.user.getNewAddress());
    await world.restart();
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    const hash = Buffer.from(body.r_hash, 'base64').toString('hex');
    assert.equal((await world.alice.lookupInvoice(hash))?.state, 'SETTLED');
  });

  test('an invoice paid while Ferry was down gets its lockup after the restart', async () => {
    const client = newKeyPair();
    const { preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 30_000 });
    await world.engine.stop();
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await waitFor(async () => (await world.ferryNode.lookupInvoice(preimageHash))?.state === 'ACCEPTED');
    await world.restart();
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const script = lockupOf(created.swapTree, created.refundPublicKey, client).script;
    assert.equal(findOutput(mempool.transaction!.hex!, script).value, BigInt(created.onchainAmount));
    await world.ferryNode.cancelHoldInvoice(preimageHash);
    await payment;
  });

  test('a lockup sent just before a crash is found on chain and not sent again', async () => {
    const client = newKeyPair();
    const { preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 40_000 });
    await world.engine.stop();
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    await waitFor(async () => (await world.ferryNode.lookupInvoice(preimageHash))?.state === 'ACCEPTED');

    // The state a crash right after sendtoaddress leaves: lockup requested and marked started, the effect still
    // pending, the transaction in the mempool, nothing recorded about it.
    const swap = (await world.storage.swaps.get(created.id))!;
    const applied = await world.storage.saveTransition(
      { id: swap.id, expectedStatus: swap.status, expectedVersion: swap.version, data: { ...swap.data, lockupRequested: true } },
      [{ kind: 'sendLockup' }],
    );
    assert.ok(applied.applied);
    await world.storage.kv.set(`reverse.lockup.started:${swap.id}`, String(Date.now()));
    const sentBeforeCrash = await world.operator.sendToAddress(created.lockupAddress, satToBtc(created.onchainAmount));
    const balanceAfterSend = await world.operatorBalance();

    await world.restart();
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    assert.equal(mempool.transaction?.id, sentBeforeCrash);
    await world.engine.whenIdle(created.id);
    assert.equal(await world.operatorBalance(), balanceAfterSend, 'nothing else was sent');
    const recorded = reverseData((await world.storage.swaps.get(created.id))!);
    assert.equal(recorded.lockup?.txid, sentBeforeCrash);
    assert.equal(await world.storage.kv.get(`reverse.lockup.started:${swap.id}`), undefined);
    assert.deepEqual(await world.storage.effects.listPending({ swapId: created.id }), []);
    await world.ferryNode.cancelHoldInvoice(preimageHash);
    await payment;
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
