// Races a hostile or impatient client can start: floods of cooperative refund requests while the lockup confirms
// (and, worse, while the same block also times the swap out), and parallel claims of one reverse swap. Ferry may
// answer in any order, but never gives a refund signature for a swap it pays, settles once, and every signature
// it hands out completes a valid key-path spend.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { httpStatusOf } from '../../src/api/http/errors.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { SwapError } from '../../src/engine/index.ts';
import { submarineData } from '../../src/engine/data.ts';
import { spendP2wpkh } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, waitFor } from './adversarial-support.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

const REFUSED_STATUS = 'swap not eligible for a cooperative refund: status not eligible';

describe('adversarial: races', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** Fires `count` refund requests at once, each with its own client nonce; sorts the answers. */
  function refundFlood(
    id: string,
    client: ReturnType<typeof newKeyPair>,
    lockup: ReturnType<typeof lockupOf>,
    output: { txid: string; vout: number; value: bigint },
    count: number,
  ) {
    return Array.from({ length: count }, () => {
      const refund = keyPathSpend('refund', { ...output, script: lockup.script }, client);
      const session = clientSession(client, lockup.keys, lockup.swapTree, refund.sighash);
      return world.engine
        .submarineRefund(id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 })
        .then((signed) => ({ signed, refund, session }), (error: unknown) => ({ error }));
    });
  }

  test('refund requests flooding in while the lockup confirms: the invoice is paid once, no refund is signed', async () => {
    const owner = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, 45_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const txid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.waitForStatus(created.id, 'transaction.mempool');
    const { vout, value } = findOutput(await world.node.getRawTransactionHex(txid), lockup.script);

    const flood = [...refundFlood(created.id, owner, lockup, { txid, vout, value }, 12)];
    const mined = world.mine();
    flood.push(...refundFlood(created.id, owner, lockup, { txid, vout, value }, 12));
    await mined;
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    flood.push(...refundFlood(created.id, owner, lockup, { txid, vout, value }, 4));

    for (const answer of await Promise.all(flood)) {
      assert.ok('error' in answer, 'no refund signature for a swap being paid');
      assert.ok(answer.error instanceof SwapError && httpStatusOf(answer.error) === 400, String(answer.error));
    }
    assert.equal((await aliceInvoiceState(world, hash)).amt_paid_sat, '45000', 'paid exactly once');
    assert.equal(submarineData((await world.storage.swaps.get(created.id))!).refundSigned, undefined);
  });

  test('the lockup confirms in the timeout block while refunds flood in: expired unpaid, refunds signed, never both', async () => {
    const owner = newKeyPair();
    const { invoice, hash } = await aliceInvoice(world, 35_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    const coin = await fundedCoin(world, created.expectedAmount! + 5_000);
    await world.mine(created.timeoutBlockHeight - 1 - (await world.height()));
    // Final only from the timeout block on, so it waits in the mempool until exactly that block.
    const spend = spendP2wpkh(coin, {
      destinationScript: lockup.script,
      outputAmount: BigInt(created.expectedAmount!),
      lockTime: created.timeoutBlockHeight - 1,
    });
    await world.node.sendRawTransaction(spend.hex);
    await world.waitForStatus(created.id, 'transaction.mempool');
    const output = { txid: spend.txid, vout: 0, value: BigInt(created.expectedAmount!) };

    const flood = [...refundFlood(created.id, owner, lockup, output, 12)];
    const mined = world.mine();
    flood.push(...refundFlood(created.id, owner, lockup, output, 12));
    await mined;
    await world.waitForStatus(created.id, 'swap.expired');
    await world.engine.whenIdle(created.id);
    const late = refundFlood(created.id, owner, lockup, output, 2);
    flood.push(...late);

    const answers = await Promise.all(flood);
    const signed = answers.filter((answer) => 'signed' in answer);
    for (const answer of answers) {
      if ('error' in answer) assert.ok(answer.error instanceof SwapError && answer.error.message === REFUSED_STATUS, String(answer.error));
    }
    assert.ok(signed.length >= late.length, 'refunds are signed once the swap expired');
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'Ferry never paid a swap it signed refunds for');
    assert.equal((await aliceInvoiceState(world, hash)).state, 'OPEN');

    // Every signature handed out completes the refund; one of them is broadcast and confirmed.
    const nonces = new Set<string>();
    let refundHex = '';
    for (const answer of signed) {
      if (!('signed' in answer)) continue;
      nonces.add(answer.signed.pubNonce);
      const signature = answer.session.aggregate(answer.signed.pubNonce, answer.signed.partialSignature);
      assert.ok(schnorr.verify(signature, answer.refund.sighash, lockup.script.slice(2)));
      refundHex = answer.refund.finish(signature);
    }
    assert.equal(nonces.size, signed.length, 'a fresh Ferry nonce for every signature');
    const refundTxid = await world.node.sendRawTransaction(refundHex);
    await world.mine();
    assert.ok(await world.node.getTxOut(refundTxid, 0, false));
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined);
  });

  test('parallel cooperative claims of one reverse swap: settled once, every co-signature valid', async () => {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await world.engine.createReverse({
      from: 'BTC',
      to: 'BTC',
      preimageHash,
      claimPublicKey: hex.encode(client.publicKey),
      invoiceAmount: 60_000,
    });
    const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };

    const claims = Array.from({ length: 8 }, (_, i) => {
      const claim = keyPathSpend('claim', output, client, 400n + BigInt(i));
      const session = clientSession(client, lockup.keys, lockup.swapTree, claim.sighash);
      const request =
        i % 4 === 3
          ? { preimage: hex.encode(preimage) } // settle only
          : { preimage: hex.encode(preimage), pubNonce: session.pubNonce, transaction: claim.unsignedHex, index: 0 };
      return world.engine.reverseClaim(created.id, request).then((answer) => ({ answer, claim, session }));
    });
    const answers = await Promise.all(claims);
    assert.equal((await world.engine.status(created.id))?.status, 'invoice.settled');
    const paid = await payment;
    assert.equal(paid.status, 'SUCCEEDED');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'SETTLED');
    assert.equal(world.published.get(created.id)?.filter((status) => status === 'invoice.settled').length, 1);

    const nonces = new Set<string>();
    let claimHex = '';
    for (const { answer, claim, session } of answers) {
      if (!('pubNonce' in answer)) continue;
      nonces.add(answer.pubNonce);
      const signature = session.aggregate(answer.pubNonce, answer.partialSignature);
      assert.ok(schnorr.verify(signature, claim.sighash, lockup.script.slice(2)), 'the co-signature completes the claim');
      claimHex = claim.finish(signature);
    }
    assert.equal(nonces.size, 6);
    await world.node.sendRawTransaction(claimHex);
    await world.mine();
    await waitFor(async () => (await world.node.getTxOut(output.txid, output.vout, true)) === null);
  });
});
