// Reverse swaps on the real devnet, driven through the engine with boltz-core as the wallet: the happy path with a
// cooperative claim, a script-path claim Ferry learns the preimage from, Ferry's refund after the timeout, and a
// lockup the operator wallet cannot fund.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { httpStatusOf } from '../../src/api/http/errors.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Musig, OutputType, TaprootUtils, constructClaimTransaction } from 'boltz-core';
import { btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { SwapError, type CreateReverseResponse } from '../../src/engine/index.ts';
import type { PaymentUpdate } from '../../src/lightning/index.ts';
import { reverseOnchainAmount } from '../../src/swaps/amounts.ts';
import { p2wpkhScript } from '../helpers/htlc.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';
import { onCln } from '../helpers/test-lightning.ts';
import { bolt12InvoiceThrough } from '../helpers/bolt12-wallet.ts';

describe('reverse swaps', () => {
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function rejects(promise: Promise<unknown>, status: number, message: string): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof SwapError, String(error));
      assert.equal(httpStatusOf(error), status);
      assert.equal(error.message, message);
      return true;
    });
  }

  /** Creates a reverse swap and has alice pay its invoice; resolves once Ferry's lockup is in the mempool. */
  async function lockedSwap(invoiceAmount: number) {
    const client = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const created = await world.engine.createReverse({
      from: 'BTC',
      to: 'BTC',
      preimageHash,
      claimPublicKey: hex.encode(client.publicKey),
      invoiceAmount,
    });
    const lockup = lockupOf(created.swapTree, created.refundPublicKey, client);
    assert.equal(lockup.address, created.lockupAddress);
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    const found = findOutput(mempool.transaction!.hex!, lockup.script);
    return { client, preimage, preimageHash, created, lockup, payment, mempool, output: { txid: mempool.transaction!.id, ...found, script: lockup.script } };
  }

  test('happy path: payment held, Ferry locks, the client claims cooperatively and the invoice settles', async () => {
    const pair = (await world.engine.reversePairs()).BTC.BTC;
    const { created, lockup, payment, mempool, output, preimage, preimageHash, client } = await lockedSwap(100_000);
    assert.equal(created.onchainAmount, reverseOnchainAmount(100_000, 1, 0.25, pair.fees.minerFees.lockup));
    assert.equal(created.timeoutBlockHeight, (await world.height()) + 144);
    assert.equal(mempool.transaction?.eta, 1);
    assert.equal(output.value, BigInt(created.onchainAmount), 'Ferry locked exactly the onchain amount');
    assert.deepEqual(await world.engine.reverseTransaction(created.id), {
      id: output.txid,
      hex: mempool.transaction!.hex,
      timeoutBlockHeight: created.timeoutBlockHeight,
    });
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');

    const claim = keyPathSpend('claim', output, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, claim.sighash);
    await rejects(world.engine.reverseClaim(created.id, { preimage: hex.encode(new Uint8Array(32)) }), 400, 'incorrect preimage');
    const signed = await world.engine.reverseClaim(created.id, {
      preimage: hex.encode(preimage),
      pubNonce: session.pubNonce,
      transaction: claim.unsignedHex,
      index: 0,
    });
    assert.equal((await world.engine.status(created.id))?.status, 'invoice.settled');
    const paid: PaymentUpdate = await payment;
    assert.equal(paid.status, 'SUCCEEDED');
    assert.equal(paid.preimage, hex.encode(preimage));
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'SETTLED');

    const claimTxid = await world.node.sendRawTransaction(
      claim.finish(session.aggregate((signed as { pubNonce: string }).pubNonce, (signed as { partialSignature: string }).partialSignature)),
    );
    await world.mine();
    const out = await world.node.getTxOut(claimTxid, 0, false);
    assert.equal(out?.scriptPubKey.hex, hex.encode(claim.destination));
    assert.equal(btcToSat(out!.value), claim.amount);
    assert.deepEqual(world.published.get(created.id), ['swap.created', 'transaction.mempool', 'transaction.confirmed', 'invoice.settled']);
  });

  test('a script-path claim seen on chain reveals the preimage and settles the invoice', async () => {
    const { created, lockup, payment, output, preimage, client } = await lockedSwap(60_000);
    const internalKey = TaprootUtils.toXOnly(Musig.create(client.privateKey, lockup.keys).internalKey);
    const tx = constructClaimTransaction(
      [
        {
          type: OutputType.Taproot,
          transactionId: output.txid,
          vout: output.vout,
          script: output.script,
          amount: output.value,
          privateKey: client.privateKey,
          preimage,
          swapTree: lockup.swapTree,
          internalKey,
        },
      ],
      p2wpkhScript(client.publicKey),
      600n,
    );
    await world.node.sendRawTransaction(hex.encode(tx.toBytes(true, true)));
    await world.waitForStatus(created.id, 'invoice.settled');
    assert.equal((await payment).status, 'SUCCEEDED');
  });

  test('never claimed: Ferry refunds at the timeout and cancels the invoice once the refund confirms', async () => {
    const { created, payment, output, preimageHash } = await lockedSwap(70_000);
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');
    const before = await world.operatorBalance();
    await world.mine(created.timeoutBlockHeight - (await world.height()) - 1);
    assert.equal((await world.engine.status(created.id))?.status, 'transaction.confirmed', 'not before the timeout');
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.refunded');
    assert.equal(await world.node.getTxOut(output.txid, output.vout, true), null, 'the lockup is spent by the refund');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'ACCEPTED', 'held until the refund confirms');
    await rejects(world.engine.reverseClaim(created.id, { preimage: hex.encode(new Uint8Array(32)) }), 400, 'incorrect preimage');
    await world.mine();
    const failed = await payment;
    assert.equal(failed.status, 'FAILED', 'the payer gets the HTLC back');
    const returned = (await world.operatorBalance()) - before;
    assert.ok(returned > output.value - 1_000n && returned < output.value, `returned ${returned}`);
  });

  test('creation errors use the reference texts', async () => {
    const claimPublicKey = hex.encode(newKeyPair().publicKey);
    const { preimageHash } = newPreimage();
    const base = { from: 'BTC', to: 'BTC', preimageHash, claimPublicKey };
    await rejects(world.engine.createReverse({ ...base, invoiceAmount: 50_000, onchainAmount: 40_000 }), 400, 'invoice and onchain amount were specified');
    await rejects(world.engine.createReverse(base), 400, 'no amount was specified');
    // A wallet's BOLT12 invoice: LND cannot hold it; CLN holds it only with a path through its node.
    const walletInvoice = bolt12InvoiceThrough(newKeyPair().publicKey, hex.decode(preimageHash));
    const unheld = onCln() ? "the invoice has no path through Ferry's node" : 'BOLT12 invoices need a Lightning node that can hold them (CLN)';
    await rejects(world.engine.createReverse({ ...base, invoice: walletInvoice }), 400, unheld);
    await rejects(world.engine.createReverse({ ...base, invoiceAmount: 10_000_001 }), 400, '10000001 is exceeds maximal of 10000000');
    await rejects(world.engine.createReverse({ ...base, preimageHash: 'abcd', invoiceAmount: 50_000 }), 400, 'invalid preimage hash length: 2');
    const fromOnchain: CreateReverseResponse = await world.engine.createReverse({ ...base, onchainAmount: 40_000 });
    assert.equal(fromOnchain.onchainAmount, 40_000);
    await rejects(world.engine.createReverse({ ...base, invoiceAmount: 50_000 }), 409, 'a swap with this preimage hash exists already');
    await rejects(
      world.engine.reverseClaim(fromOnchain.id, { preimage: hex.encode(new Uint8Array(32)) }),
      400,
      'incorrect preimage',
    );
    await rejects(world.engine.reverseTransaction(fromOnchain.id), 400, 'no lockup transaction found');
    await rejects(world.engine.reverseTransaction('unknown'), 404, 'could not find swap with id: unknown');
  });

  test('an invoice nobody pays before it expires ends the swap as invoice.expired', async () => {
    const shortLived = await startWorld({ invoiceExpirySeconds: 1 });
    try {
      const { preimageHash } = newPreimage();
      const created = await shortLived.engine.createReverse({
        from: 'BTC',
        to: 'BTC',
        preimageHash,
        claimPublicKey: hex.encode(newKeyPair().publicKey),
        invoiceAmount: 50_000,
      });
      await shortLived.waitForStatus(created.id, 'invoice.expired');
      assert.equal((await shortLived.ferryNode.lookupInvoice(preimageHash))?.state, 'CANCELED');
      const late = await shortLived.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 5 }).catch((e: Error) => e);
      assert.ok(late instanceof Error || late.status === 'FAILED', 'an expired invoice cannot be paid');
      assert.deepEqual(await shortLived.storage.effects.listPending({ swapId: created.id }), []);
    } finally {
      await shortLived.close();
    }
  });

  test('a lockup the wallet cannot fund fails the swap and cancels the invoice', async () => {
    // Empty the operator wallet first.
    const { mine } = await world.operator.getBalances();
    await world.operator.call('sendtoaddress', [await world.user.getNewAddress(), mine.trusted, '', '', true]);
    await world.mine();
    const client = newKeyPair();
    const { preimageHash } = newPreimage();
    const created = await world.engine.createReverse({
      from: 'BTC',
      to: 'BTC',
      preimageHash,
      claimPublicKey: hex.encode(client.publicKey),
      invoiceAmount: 50_000,
    });
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 30 });
    const failed = await world.waitForStatus(created.id, 'transaction.failed');
    assert.equal(failed.failureReason, 'onchain coins could not be sent');
    assert.equal((await payment).status, 'FAILED');
    assert.equal((await world.ferryNode.lookupInvoice(preimageHash))?.state, 'CANCELED');
  });

  test('a Lightning node that cannot hold invoices (CLN without the hold plugin\'s gRPC): reverse swaps are refused, nothing is made', async () => {
    // the backend's capability as ClnBackend reports it without lightning.cln.hold (test/lightning/cln-adapter.test.ts)
    Object.defineProperty(world.ferryNode, 'holdInvoices', { value: false, configurable: true });
    try {
      const pendingBefore = (await world.ferryNode.listPendingInvoices()).length;
      const { preimageHash } = newPreimage();
      const request = { from: 'BTC', to: 'BTC', preimageHash, claimPublicKey: hex.encode(newKeyPair().publicKey), invoiceAmount: 100_000 };
      await rejects(
        world.engine.createReverse(request),
        501,
        "reverse swaps are not available: the Lightning node cannot hold invoices (Core Lightning needs the hold plugin's gRPC, lightning.cln.hold.grpcUrl)",
      );
      assert.equal(await world.ferryNode.lookupInvoice(preimageHash), undefined, 'no invoice was made');
      assert.equal((await world.ferryNode.listPendingInvoices()).length, pendingBefore);
    } finally {
      delete (world.ferryNode as { holdInvoices?: boolean }).holdInvoices;
    }
  });
});
