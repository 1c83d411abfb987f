// Audit: Ferry learns a reverse swap's preimage from a claim witness only by hash (a class of bug the reference
// backend fixed in 2026). One transaction claims two reverse swaps by their script paths on the real devnet:
// each input's witness holds its own swap's preimage, so a Ferry that took "the 32-byte item" of the transaction,
// or of the wrong input, would settle an invoice with the other swap's preimage (which Lightning refuses, leaving
// the payer's HTLC to time out). Both invoices settle, each payer gets its own preimage.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Musig, OutputType, TaprootUtils, constructClaimTransaction } from 'boltz-core';
import { p2wpkhScript } from '../helpers/htlc.ts';
import { findOutput, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('audit: preimage detection from a witness by hash', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function lockedSwap(invoiceAmount: number) {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount });
    const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const found = findOutput(mempool.transaction!.hex!, lockup.script);
    const utxo = {
      type: OutputType.Taproot as const,
      transactionId: mempool.transaction!.id,
      vout: found.vout,
      script: lockup.script,
      amount: found.value,
      privateKey: client.privateKey,
      preimage,
      swapTree: lockup.swapTree,
      internalKey: TaprootUtils.toXOnly(Musig.create(client.privateKey, lockup.keys).internalKey),
    };
    return { created, preimage, preimageHash, payment, utxo, client };
  }

  test('one transaction claims two swaps by script path: each invoice settles with its own preimage', async () => {
    const a = await lockedSwap(61_000);
    const b = await lockedSwap(62_000);
    // Inputs in the order b, a: the first claim input is not this swap's for a.
    const tx = constructClaimTransaction([b.utxo, a.utxo], p2wpkhScript(a.client.publicKey), 900n);
    await world.node.sendRawTransaction(hex.encode(tx.toBytes(true, true)));
    await world.waitForStatus(a.created.id, 'invoice.settled');
    await world.waitForStatus(b.created.id, 'invoice.settled');
    const [paidA, paidB] = await Promise.all([a.payment, b.payment]);
    assert.deepEqual([paidA.status, paidA.preimage], ['SUCCEEDED', hex.encode(a.preimage)]);
    assert.deepEqual([paidB.status, paidB.preimage], ['SUCCEEDED', hex.encode(b.preimage)]);
    assert.equal((await world.ferryNode.lookupInvoice(a.preimageHash))?.state, 'SETTLED');
    assert.equal((await world.ferryNode.lookupInvoice(b.preimageHash))?.state, 'SETTLED');
    assert.equal(world.published.get(a.created.id)?.filter((status) => status === 'invoice.settled').length, 1);
  });
});
