// What Ferry's MuSig2 key signs, attacked: refund transactions that also spend other swaps' lockups or point the
// index elsewhere, malformed and impossible transactions, replayed client nonces, partial signatures over another
// message or with the keys in the wrong order, and reverse claims before payment or for another input. Ferry must
// sign only its own lockup input of a swap entitled to it, with a fresh nonce every time, or answer 400.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { Session, nonceAggregate } from '@scure/btc-signer/musig2.js';
import { Musig, TaprootUtils } from 'boltz-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { submarineData } from '../../src/engine/data.ts';
import type { KeyPair } from '../helpers/htlc.ts';
import { p2wpkhScript } from '../helpers/htlc.ts';
import { aliceInvoice, fundedCoin, rejects, spendToOutputs } from './adversarial-support.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

type Lockup = ReturnType<typeof lockupOf>;
interface Spendable {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

/** An unsigned key-path spend of several outputs to one destination, with the sighash of each input. */
function batchSpend(inputs: Spendable[], destination: Uint8Array, fee = 1_000n) {
  const tx = new Transaction({ version: 2 });
  for (const input of inputs) tx.addInput({ txid: input.txid, index: input.vout, sequence: 0xfffffffd });
  tx.addOutput({ script: destination, amount: inputs.reduce((sum, input) => sum + input.value, 0n) - fee });
  const scripts = inputs.map((input) => input.script);
  const amounts = inputs.map((input) => input.value);
  return {
    unsignedHex: hex.encode(tx.toBytes(true, true)),
    sighash: (index: number) => tx.preimageWitnessV1(index, scripts, SigHash.DEFAULT, amounts),
    finish(signatures: Uint8Array[]): string {
      signatures.forEach((signature, index) => tx.updateInput(index, { finalScriptWitness: [signature] }, true));
      return hex.encode(tx.toBytes(true, true));
    },
  };
}

/** BIP327 PartialSigVerify of Ferry's partial signature, with the two keys (and nonces) in the given order. */
function servicePartialValid(
  client: KeyPair,
  lockup: Lockup,
  serviceFirst: boolean,
  message: Uint8Array,
  nonces: { service: string; client: string },
  partial: string,
): boolean {
  const keys = serviceFirst ? lockup.keys : [lockup.keys[1], lockup.keys[0]];
  const pubNonces = (serviceFirst ? [nonces.service, nonces.client] : [nonces.client, nonces.service]).map((n) => hex.decode(n));
  const tweak = TaprootUtils.tweakMusig(Musig.create(client.privateKey, keys), lockup.swapTree.tree).tweak!;
  const session = new Session(nonceAggregate(pubNonces), keys, message, [tweak], [true]);
  return session.partialSigVerify(hex.decode(partial), pubNonces, serviceFirst ? 0 : 1);
}

describe('adversarial: what Ferry signs', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** Submarine swaps of one owner locked in one transaction (one output each, of the given amounts). */
  async function lockedTogether(owner: KeyPair, amounts: ((expected: number) => number)[]) {
    const swaps = [];
    for (let i = 0; i < amounts.length; i++) {
      const { invoice } = await aliceInvoice(world, 20_000 + i);
      const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
      swaps.push({ created, lockup: lockupOf(created.swapTree, created.claimPublicKey, owner), amount: amounts[i](created.expectedAmount!) });
    }
    const coin = await fundedCoin(world, swaps.reduce((sum, swap) => sum + swap.amount, 0) + 2_000);
    const funding = spendToOutputs(
      coin,
      swaps.map((swap) => ({ script: swap.lockup.script, amount: swap.amount })),
    );
    await world.node.sendRawTransaction(funding.hex);
    return swaps.map((swap, vout) => ({ ...swap, output: { txid: funding.txid, vout, value: BigInt(swap.amount), script: swap.lockup.script } }));
  }

  test('a refund spending several lockups: each swap signs only its own input, and only if it failed', async () => {
    const owner = newKeyPair();
    const [a, b, c] = await lockedTogether(owner, [(e) => e - 1_000, (e) => e - 2_000, (e) => e]);
    await world.waitForStatus(a.created.id, 'transaction.lockupFailed');
    await world.waitForStatus(b.created.id, 'transaction.lockupFailed');
    await world.waitForStatus(c.created.id, 'transaction.mempool');
    const destination = p2wpkhScript(owner.publicKey);

    // A batch refund of A and B with C's lockup (a swap being paid) slipped in.
    const greedy = batchSpend([a.output, b.output, c.output], destination);
    const ask = (swap: typeof a, index: number, tx = greedy) => {
      const session = clientSession(owner, swap.lockup.keys, swap.lockup.swapTree, tx.sighash(index));
      return world.engine.submarineRefund(swap.created.id, { pubNonce: session.pubNonce, transaction: tx.unsignedHex, index });
    };
    await rejects(ask(a, 1), 400, 'the input to sign does not spend the lockup of this swap');
    await rejects(ask(a, 2), 400, 'the input to sign does not spend the lockup of this swap');
    await rejects(ask(c, 2), 400, 'swap not eligible for a cooperative refund: status not eligible');
    assert.equal(submarineData((await world.storage.swaps.get(a.created.id))!).refundSigned, undefined, 'nothing signed, nothing recorded');

    // A's signature over the greedy transaction is only A's: C's input stays unsigned, the transaction invalid.
    const onlyA = await ask(a, 0);
    assert.ok(onlyA.partialSignature);
    assert.equal(submarineData((await world.storage.swaps.get(c.created.id))!).refundSigned, undefined);

    // The honest batch refund of the two failed swaps is completed input by input and confirms.
    const batch = batchSpend([a.output, b.output], destination);
    const signatures = [a, b].map((swap, index) => {
      const session = clientSession(owner, swap.lockup.keys, swap.lockup.swapTree, batch.sighash(index));
      return { session, index, swap };
    });
    const signed = [];
    for (const { session, index, swap } of signatures) {
      const answer = await world.engine.submarineRefund(swap.created.id, { pubNonce: session.pubNonce, transaction: batch.unsignedHex, index });
      signed.push(session.aggregate(answer.pubNonce, answer.partialSignature));
    }
    const txid = await world.node.sendRawTransaction(batch.finish(signed));
    await world.mine();
    assert.ok(await world.node.getTxOut(txid, 0, false));
  });

  test('malformed or impossible refund transactions are refused with 400 and sign nothing', async () => {
    const owner = newKeyPair();
    const [a] = await lockedTogether(owner, [(e) => e - 500]);
    await world.waitForStatus(a.created.id, 'transaction.lockupFailed');
    const session = clientSession(owner, a.lockup.keys, a.lockup.swapTree, new Uint8Array(32));
    const refund = (transaction: string, index = 0) =>
      world.engine.submarineRefund(a.created.id, { pubNonce: session.pubNonce, transaction, index });
    const destination = p2wpkhScript(owner.publicKey);
    const good = keyPathSpend('refund', a.output, owner);

    await rejects(refund('00'), 400, 'invalid parameter: transaction');
    await rejects(refund(good.unsignedHex.slice(0, 40)), 400, 'invalid parameter: transaction');
    await rejects(refund(good.unsignedHex + '00'), 400, 'invalid parameter: transaction');
    // version, no inputs, one output, locktime
    const noInputs = '02000000' + '00' + '01' + 'e803000000000000' + '16' + hex.encode(destination) + '00000000';
    await rejects(refund(noInputs), 400, /^invalid parameter: (transaction|index)$/);
    await rejects(refund(good.unsignedHex, 1), 400, 'invalid parameter: index');
    await rejects(refund(good.unsignedHex, 0xffffffff), 400, 'invalid parameter: index');
    await rejects(refund(good.unsignedHex, -1), 400, 'invalid parameter: index');
    await rejects(refund(good.unsignedHex, 0.5), 400, 'invalid parameter: index');
    const unknown = batchSpend([{ ...a.output, txid: hex.encode(randomBytes(32)) }], destination);
    await rejects(refund(unknown.unsignedHex), 400, 'could not find the outputs the transaction spends');
    // a batch of 101 inputs would cost 101 node lookups under the swap's lock: refused before any of them
    const huge = batchSpend(Array.from({ length: 101 }, (_, vout) => ({ ...a.output, vout })), destination);
    await rejects(refund(huge.unsignedHex), 400, 'transaction has too many inputs: 101 (at most 100)');
    const wrongVout = batchSpend([{ ...a.output, vout: 7 }], destination);
    await rejects(refund(wrongVout.unsignedHex), 400, 'could not find the outputs the transaction spends');
    const coin = await fundedCoin(world, 30_000);
    const otherCoin = batchSpend([coin], destination);
    await rejects(refund(otherCoin.unsignedHex), 400, 'the input to sign does not spend the lockup of this swap');
    await rejects(world.engine.submarineRefund(a.created.id, { pubNonce: '02' + '11'.repeat(65), transaction: good.unsignedHex, index: 0 }), 400, 'invalid parameter: pubNonce');

    const record = (await world.storage.swaps.get(a.created.id))!;
    assert.equal(record.status, 'transaction.lockupFailed');
    assert.equal(submarineData(record).refundSigned, undefined, 'no refund was signed');
  });

  test('every refund signature uses a fresh Ferry nonce, also when the client replays its own nonce', async () => {
    const owner = newKeyPair();
    const [a] = await lockedTogether(owner, [(e) => e + 50_000]);
    const failed = await world.waitForStatus(a.created.id, 'transaction.lockupFailed');
    assert.match(failed.failureReason!, /is more than expected/);
    const first = keyPathSpend('refund', a.output, owner, 500n);
    const second = keyPathSpend('refund', a.output, owner, 800n);
    const session = clientSession(owner, a.lockup.keys, a.lockup.swapTree, first.sighash);
    const one = await world.engine.submarineRefund(a.created.id, { pubNonce: session.pubNonce, transaction: first.unsignedHex, index: 0 });
    // The same client nonce for another transaction: Ferry's side must still be a new nonce.
    const two = await world.engine.submarineRefund(a.created.id, { pubNonce: session.pubNonce, transaction: second.unsignedHex, index: 0 });
    const three = await world.engine.submarineRefund(a.created.id, { pubNonce: session.pubNonce, transaction: first.unsignedHex, index: 0 });
    assert.equal(new Set([one.pubNonce, two.pubNonce, three.pubNonce]).size, 3);
    const nonces = (answer: typeof one) => ({ service: answer.pubNonce, client: session.pubNonce });
    assert.ok(servicePartialValid(owner, a.lockup, true, first.sighash, nonces(one), one.partialSignature));
    assert.ok(servicePartialValid(owner, a.lockup, true, second.sighash, nonces(two), two.partialSignature));
    assert.ok(!servicePartialValid(owner, a.lockup, true, second.sighash, nonces(one), one.partialSignature), 'signed for its own message only');
    // Key order is [service, client]: under the reversed order Ferry's partial signature is not valid.
    assert.ok(!servicePartialValid(owner, a.lockup, false, first.sighash, nonces(one), one.partialSignature));
    const signature = session.aggregate(one.pubNonce, one.partialSignature);
    assert.ok(schnorr.verify(signature, first.sighash, a.lockup.script.slice(2)));
  });

  test('submarine claim: a partial signature over another message or key order is refused, then the right one claims once', async () => {
    const claimWorld = world;
    const owner = newKeyPair();
    const { invoice } = await aliceInvoice(claimWorld, 22_000);
    const created = await claimWorld.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, owner);
    await rejects(claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: '02' + '11'.repeat(65), partialSignature: '11'.repeat(32) }), 400, 'swap not eligible for a cooperative claim');
    await claimWorld.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await claimWorld.mine();
    await claimWorld.waitForStatus(created.id, 'transaction.claim.pending');
    await rejects(
      claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: '02' + '11'.repeat(65), partialSignature: '11'.repeat(32) }),
      400,
      'no claim details were requested for this swap',
    );
    const details = await claimWorld.engine.submarineClaimDetails(created.id);

    const otherMessage = clientSession(owner, lockup.keys, lockup.swapTree, randomBytes(32));
    const attempt = (session: ReturnType<typeof clientSession>) =>
      claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: session.pubNonce, partialSignature: session.sign(details.pubNonce) });
    await rejects(attempt(otherMessage), 400, 'invalid partial signature');
    // A client aggregating the keys as [client, service]: a different key, so its partial signature is invalid.
    const reversed = TaprootUtils.tweakMusig(Musig.create(owner.privateKey, [lockup.keys[1], lockup.keys[0]]), lockup.swapTree.tree)
      .message(hex.decode(details.transactionHash))
      .generateNonce();
    const reversedPartial = reversed.aggregateNonces([[lockup.keys[0], hex.decode(details.pubNonce)]]).initializeSession().signPartial();
    await rejects(
      claimWorld.engine.submarineClaimSignature(created.id, {
        pubNonce: hex.encode(reversed.publicNonce),
        partialSignature: hex.encode(reversedPartial.ourPartialSignature),
      }),
      400,
      'invalid partial signature',
    );
    const garbageNonce = clientSession(owner, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    await rejects(
      claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: '03' + '00'.repeat(65), partialSignature: garbageNonce.sign(details.pubNonce) }),
      400,
      'invalid parameter: pubNonce',
    );
    // The failed attempts neither used nor replaced Ferry's nonce.
    assert.equal((await claimWorld.engine.submarineClaimDetails(created.id)).pubNonce, details.pubNonce);

    const right = clientSession(owner, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    const partialSignature = right.sign(details.pubNonce);
    assert.deepEqual(await claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: right.pubNonce, partialSignature }), {});
    await rejects(claimWorld.engine.submarineClaimSignature(created.id, { pubNonce: right.pubNonce, partialSignature }), 400, 'swap not eligible for a cooperative claim');
    await rejects(claimWorld.engine.submarineClaimDetails(created.id), 400, 'swap not eligible for a cooperative claim');
    assert.equal((await claimWorld.engine.status(created.id))?.status, 'transaction.claimed');
  });

  test('reverse claim: no settlement or co-signature before the lockup, for a wrong preimage, or for another input', async () => {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await world.engine.createReverse({ from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(client.publicKey), invoiceAmount: 40_000 });
    const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
    await rejects(world.engine.reverseClaim(created.id, { preimage: hex.encode(preimage) }), 400, 'swap not eligible for a cooperative claim');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'OPEN', 'nothing settled before Ferry locked');

    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const output = { txid: mempool.transaction!.id, ...findOutput(mempool.transaction!.hex!, lockup.script), script: lockup.script };
    const honest = keyPathSpend('claim', output, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, honest.sighash);
    await rejects(
      world.engine.reverseClaim(created.id, { preimage: hex.encode(randomBytes(32)), pubNonce: session.pubNonce, transaction: honest.unsignedHex, index: 0 }),
      400,
      'incorrect preimage',
    );
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'ACCEPTED');
    assert.equal((await world.engine.status(created.id))?.status, 'transaction.mempool');

    // With the right preimage Ferry settles, but co-signs only an input spending this swap's lockup.
    const coin = await fundedCoin(world, 30_000);
    const mixed = batchSpend([coin, output], p2wpkhScript(client.publicKey));
    const pointingAway = clientSession(client, lockup.keys, lockup.swapTree, mixed.sighash(0));
    await rejects(
      world.engine.reverseClaim(created.id, { preimage: hex.encode(preimage), pubNonce: pointingAway.pubNonce, transaction: mixed.unsignedHex, index: 0 }),
      400,
      'the input to sign does not spend the lockup of this swap',
    );
    assert.equal((await payment).status, 'SUCCEEDED');
    const elsewhere = batchSpend([{ ...output, vout: output.vout + 1 }], p2wpkhScript(client.publicKey));
    await rejects(
      world.engine.reverseClaim(created.id, { preimage: hex.encode(preimage), pubNonce: session.pubNonce, transaction: elsewhere.unsignedHex, index: 0 }),
      400,
      'the input to sign does not spend the lockup of this swap',
    );
    const rightInput = clientSession(client, lockup.keys, lockup.swapTree, mixed.sighash(1));
    const signed = await world.engine.reverseClaim(created.id, {
      preimage: hex.encode(preimage),
      pubNonce: rightInput.pubNonce,
      transaction: mixed.unsignedHex,
      index: 1,
    });
    assert.ok('partialSignature' in signed);
    assert.ok(schnorr.verify(rightInput.aggregate(signed.pubNonce, signed.partialSignature), mixed.sighash(1), lockup.script.slice(2)));
  });
});
