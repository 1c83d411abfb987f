// An invoice that expires before the lockup confirms: the node refuses to pay it before any payment exists, so
// retrying can never succeed. Ferry must give up on it (invoice.failedToPay) so the client gets its cooperative
// refund now, instead of keeping the swap in invoice.pending until the on-chain timeout.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { rest } from '../lightning/helpers.ts';
import { waitFor } from './adversarial-support.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('adversarial: invoices', () => {
  let world: World;

  before(async () => {
    // A short minimum validity lets a test hand over an invoice that expires before the lockup confirms.
    world = await startWorld({ minInvoiceValiditySeconds: 1 });
  });
  after(async () => {
    await world?.close();
  });

  test('an invoice that expired before the lockup confirmed fails the swap, which is then refunded cooperatively', async () => {
    const owner = newKeyPair();
    const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', {
      value: 25_000,
      expiry: 4,
    });
    const hash = Buffer.from(body.r_hash, 'base64').toString('hex');
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: body.payment_request, refundPublicKey: hex.encode(owner.publicKey) });
    const expiresAt = (await world.ferryNode.decodeInvoice(body.payment_request)).timestamp + 4;
    await waitFor(async () => Date.now() / 1000 > expiresAt + 0.5);

    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine();
    const failed = await world.waitForStatus(created.id, 'invoice.failedToPay');
    assert.equal(failed.failureReason, 'invoice could not be paid');
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'no payment was ever made');

    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, owner);
    const session = clientSession(owner, lockup.keys, lockup.swapTree, refund.sighash);
    const signed = await world.engine.submarineRefund(created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 });
    const txid = await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature)));
    await world.mine();
    assert.ok(await world.node.getTxOut(txid, 0, false));
    await world.engine.whenIdle(created.id);
    assert.deepEqual(await world.storage.effects.listPending({ swapId: created.id }), [], 'nothing left retrying');
  });
});
