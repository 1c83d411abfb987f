// A reverse swap whose client handed over the preimage before the timeout, while Ferry's Lightning node could not
// settle (an outage, injected here into the real node's client): the timeout block then arrives. Refunding the
// lockup and settling the invoice later would let Ferry take both sides. Ferry must keep the lockup for the
// client while the held payment can still be settled, settle it once the node is back, and still co-sign.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import type { HoldInvoiceRequest, LightningBackend, PayRequest } from '../../src/lightning/backend.ts';
import { rejects, sleep, waitFor } from './adversarial-support.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

/** The real node's client, with settling failing while `down` is set (as during an outage of the node). */
class SettlementOutage implements LightningBackend {
  target?: LightningBackend;
  down = false;
  settleAttempts = 0;

  private get node(): LightningBackend {
    if (this.target === undefined) throw new Error('no node yet');
    return this.target;
  }
  getInfo() {
    return this.node.getInfo();
  }
  getStats() {
    return this.node.getStats();
  }
  decodeInvoice(paymentRequest: string) {
    return this.node.decodeInvoice(paymentRequest);
  }
  createHoldInvoice(request: HoldInvoiceRequest) {
    return this.node.createHoldInvoice(request);
  }
  async settleHoldInvoice(preimage: string) {
    this.settleAttempts++;
    if (this.down) throw new Error('connect ECONNREFUSED (injected outage)');
    return this.node.settleHoldInvoice(preimage);
  }
  cancelHoldInvoice(paymentHash: string) {
    return this.node.cancelHoldInvoice(paymentHash);
  }
  lookupInvoice(paymentHash: string) {
    return this.node.lookupInvoice(paymentHash);
  }
  listPendingInvoices() {
    return this.node.listPendingInvoices();
  }
  subscribeInvoice(paymentHash: string, onUpdate: Parameters<LightningBackend['subscribeInvoice']>[1]) {
    return this.node.subscribeInvoice(paymentHash, onUpdate);
  }
  payInvoice(request: PayRequest) {
    return this.node.payInvoice(request);
  }
  lookupPayment(paymentHash: string) {
    return this.node.lookupPayment(paymentHash);
  }
}

describe('adversarial: settlement against the timeout', () => {
  let world: World;
  const lightning = new SettlementOutage();

  before(async () => {
    world = await startWorld({ lightning });
    lightning.target = world.ferryNode;
  });
  after(async () => {
    await world?.close();
  });

  test('a preimage learned before the timeout: no refund while the invoice can be settled, then settled and co-signed', async () => {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 50_000 });
    const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');

    lightning.down = true;
    await rejects(world.engine.reverseClaim(created.id, { preimage: hex.encode(preimage) }), 400, 'the invoice of this swap could not be settled yet');
    await world.mine(created.timeoutBlockHeight - (await world.height()));
    await sleep(1_000); // several retries of the settlement and of anything the timeout started
    assert.ok(lightning.settleAttempts > 1);
    assert.ok(await world.node.getTxOut(output.txid, output.vout, true), 'Ferry did not take its lockup back');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'ACCEPTED');

    lightning.down = false;
    await world.waitForStatus(created.id, 'invoice.settled');
    assert.equal((await payment).status, 'SUCCEEDED');
    await world.engine.whenIdle(created.id);
    await waitFor(async () => (await world.storage.effects.listPending({ swapId: created.id })).length === 0);
    assert.ok(await world.node.getTxOut(output.txid, output.vout, true), 'the lockup is still the client\'s');

    // The client, paid for, still gets its co-signature and claims.
    const claim = keyPathSpend('claim', output, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, claim.sighash);
    const signed = await world.engine.reverseClaim(created.id, {
      preimage: hex.encode(preimage),
      pubNonce: session.pubNonce,
      transaction: claim.unsignedHex,
      index: 0,
    });
    assert.ok('partialSignature' in signed);
    const signature = session.aggregate(signed.pubNonce, signed.partialSignature);
    assert.ok(schnorr.verify(signature, claim.sighash, lockup.script.slice(2)));
    const txid = await world.node.sendRawTransaction(claim.finish(signature));
    await world.mine();
    assert.ok(await world.node.getTxOut(txid, 0, false));
  });
});
