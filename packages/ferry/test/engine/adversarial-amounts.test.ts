// Lockup amounts at and around the edges, several outputs and several transactions paying one submarine address,
// and a lockup after the swap expired. Ferry pays an invoice at most once, only for a single output of an accepted
// amount, and claims only that output; whatever else reaches the address stays the user's (cooperatively
// refundable while the swap is failed, otherwise through the refund leaf after the timeout).
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Musig, OutputType, TaprootUtils, constructRefundTransaction } from 'boltz-core';
import { submarineData } from '../../src/engine/data.ts';
import { p2wpkhScript, type KeyPair } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, rejects, sleep, spendToOutputs } from './adversarial-support.ts';
import { clientSession, keyPathSpend, lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('adversarial: lockup amounts', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function submarine(owner: KeyPair, sat: number) {
    const { invoice, hash } = await aliceInvoice(world, sat);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    return { created, hash, lockup: lockupOf(created.swapTree, created.claimPublicKey, owner) };
  }

  /** Pays the outputs (script, sat) from one fresh coin and returns the transaction. */
  async function pay(outputs: { script: Uint8Array; amount: number }[]) {
    const coin = await fundedCoin(world, outputs.reduce((sum, output) => sum + output.amount, 0) + 3_000);
    const tx = spendToOutputs(coin, outputs);
    await world.node.sendRawTransaction(tx.hex);
    return tx;
  }

  test('exactly expected and up to the tolerance are paid; one sat short, just over the tolerance and far above fail', async () => {
    const owner = newKeyPair();
    const cases = [
      { name: 'exact', amount: (e: number) => e, paid: true },
      { name: 'one short', amount: (e: number) => e - 1, paid: false, reason: /is less than expected/ },
      { name: 'at tolerance', amount: (e: number) => e + Math.floor((e * 2) / 100), paid: true },
      { name: 'over tolerance', amount: (e: number) => e + Math.floor((e * 2) / 100) + 1, paid: false, reason: /is more than expected/ },
      { name: 'far above', amount: (e: number) => e * 10, paid: false, reason: /is more than expected/ },
    ];
    const swaps = [];
    for (const [i, c] of cases.entries()) swaps.push({ ...c, ...(await submarine(owner, 30_000 + i)) });
    await pay(swaps.map((swap) => ({ script: swap.lockup.script, amount: swap.amount(swap.created.expectedAmount!) })));
    await world.mine();
    for (const [i, swap] of swaps.entries()) {
      if (swap.paid) {
        await world.waitForStatus(swap.created.id, 'transaction.claim.pending');
        assert.equal((await aliceInvoiceState(world, swap.hash)).amt_paid_sat, String(30_000 + i), swap.name);
      } else {
        const failed = await world.waitForStatus(swap.created.id, 'transaction.lockupFailed');
        assert.match(failed.failureReason!, swap.reason!, swap.name);
        assert.deepEqual(failed.failureDetails, { expected: swap.created.expectedAmount, actual: swap.amount(swap.created.expectedAmount!) });
        assert.equal(await world.ferryNode.lookupPayment(swap.hash), undefined, swap.name);
      }
    }
  });

  test('two outputs to one address in one transaction: the first decides, one payment, the other output stays the user\'s', async () => {
    const owner = newKeyPair();
    const swap = await submarine(owner, 26_000);
    const expected = swap.created.expectedAmount!;
    const tx = await pay([
      { script: swap.lockup.script, amount: expected },
      { script: swap.lockup.script, amount: expected },
    ]);
    await world.mine();
    await world.waitForStatus(swap.created.id, 'transaction.claim.pending');
    const recorded = submarineData((await world.storage.swaps.get(swap.created.id))!).lockup!;
    assert.deepEqual([recorded.txid, recorded.vout], [tx.txid, 0]);
    assert.equal((await aliceInvoiceState(world, swap.hash)).amt_paid_sat, '26000');
    assert.equal((await world.ferryNode.lookupPayment(swap.hash))?.status, 'SUCCEEDED');
    assert.ok(await world.node.getTxOut(tx.txid, 1, true), 'the second output is untouched');
  });

  test('a second lockup transaction to a paid swap: not paid again, not claimed, recoverable by the user after the timeout', async () => {
    const owner = newKeyPair();
    const swap = await submarine(owner, 27_000);
    const expected = swap.created.expectedAmount!;
    const first = await pay([{ script: swap.lockup.script, amount: expected }]);
    await world.mine();
    await world.waitForStatus(swap.created.id, 'transaction.claim.pending');
    const second = await pay([{ script: swap.lockup.script, amount: expected }]);
    await world.mine();

    // The cooperative claim spends the first lockup only.
    const details = await world.engine.submarineClaimDetails(swap.created.id);
    const session = clientSession(owner, swap.lockup.keys, swap.lockup.swapTree, hex.decode(details.transactionHash));
    await world.engine.submarineClaimSignature(swap.created.id, { pubNonce: session.pubNonce, partialSignature: session.sign(details.pubNonce) });
    await world.mine();
    assert.equal(await world.node.getTxOut(first.txid, 0, true), null);
    assert.ok(await world.node.getTxOut(second.txid, 0, true), 'the second lockup was not claimed');
    assert.equal((await aliceInvoiceState(world, swap.hash)).amt_paid_sat, '27000', 'paid once');

    // A swap that succeeded gives no cooperative refund, also not for the extra coins: the refund leaf does.
    const cooperative = keyPathSpend('refund', { txid: second.txid, vout: 0, value: BigInt(expected), script: swap.lockup.script }, owner);
    const refundSession = clientSession(owner, swap.lockup.keys, swap.lockup.swapTree, cooperative.sighash);
    await rejects(
      world.engine.submarineRefund(swap.created.id, { pubNonce: refundSession.pubNonce, transaction: cooperative.unsignedHex, index: 0 }),
      400,
      'swap not eligible for a cooperative refund: status not eligible',
    );
    await world.mine(swap.created.timeoutBlockHeight - (await world.height()));
    const internalKey = TaprootUtils.toXOnly(Musig.create(owner.privateKey, swap.lockup.keys).internalKey);
    const refund = constructRefundTransaction(
      [
        {
          type: OutputType.Taproot,
          transactionId: second.txid,
          vout: 0,
          script: swap.lockup.script,
          amount: BigInt(expected),
          privateKey: owner.privateKey,
          swapTree: swap.lockup.swapTree,
          internalKey,
        },
      ],
      p2wpkhScript(owner.publicKey),
      swap.created.timeoutBlockHeight,
      500n,
      true,
    );
    const refundTxid = await world.node.sendRawTransaction(hex.encode(refund.toBytes(true, true)));
    await world.mine();
    assert.ok(await world.node.getTxOut(refundTxid, 0, false));
    assert.equal((await world.engine.status(swap.created.id))?.status, 'transaction.claimed');
  });

  test('a lockup after the swap expired is never paid for and is refunded cooperatively', async () => {
    const owner = newKeyPair();
    const swap = await submarine(owner, 28_000);
    await world.mine(swap.created.timeoutBlockHeight - (await world.height()));
    await world.waitForStatus(swap.created.id, 'swap.expired');
    const expected = swap.created.expectedAmount!;
    const late = await pay([{ script: swap.lockup.script, amount: expected }]);
    await world.mine();
    await world.engine.whenIdle(swap.created.id);
    await sleep(200);
    assert.equal((await world.engine.status(swap.created.id))?.status, 'swap.expired');
    assert.equal(await world.ferryNode.lookupPayment(swap.hash), undefined);

    const refund = keyPathSpend('refund', { txid: late.txid, vout: 0, value: BigInt(expected), script: swap.lockup.script }, owner);
    const session = clientSession(owner, swap.lockup.keys, swap.lockup.swapTree, refund.sighash);
    const signed = await world.engine.submarineRefund(swap.created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 });
    const txid = await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature)));
    await world.mine();
    assert.ok(await world.node.getTxOut(txid, 0, false));
    assert.equal(await world.ferryNode.lookupPayment(swap.hash), undefined, 'and never paid afterwards');
  });
});
