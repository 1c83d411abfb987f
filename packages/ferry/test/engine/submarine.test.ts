// Submarine swaps on the real devnet, driven through the engine with boltz-core as the wallet: the happy path with
// a cooperative claim, 0-conf, the script-path claim of a silent client, and the refund rules.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { httpStatusOf } from '../../src/api/http/errors.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { swapTree } from 'boltz-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { SwapError } from '../../src/engine/index.ts';
import { serializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { rest } from '../lightning/helpers.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, walletKey } from '../helpers/htlc.ts';
import { clientSession, findOutput, keyPathSpend, lockupOf, newKeyPair, newPreimage } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('submarine swaps', () => {
  let world: World;

  before(async () => {
    world = await startWorld({ claimDelayMs: 60_000 });
  });
  after(async () => {
    await world?.close();
  });

  async function aliceInvoice(sat: number): Promise<{ invoice: string; hash: string }> {
    const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', {
      value: sat,
      memo: 'engine test',
    });
    return { invoice: body.payment_request, hash: Buffer.from(body.r_hash, 'base64').toString('hex') };
  }

  async function aliceInvoiceState(hash: string): Promise<{ state: string; amt_paid_sat: string }> {
    return (await rest<{ state: string; amt_paid_sat: string }>(world.devnet.info.lightning.alice, 'GET', `/v1/invoice/${hash}`)).body;
  }

  async function rejects(promise: Promise<unknown>, status: number, message: string | RegExp): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof SwapError, String(error));
      assert.equal(httpStatusOf(error), status);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    });
  }

  test('happy path: lockup, confirmation, payment, cooperative key-path claim', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(50_000);
    const pairs = await world.engine.submarinePairs();
    const pair = pairs.BTC.BTC;
    const created = await world.engine.createSubmarine({
      from: 'BTC',
      to: 'BTC',
      invoice,
      refundPublicKey: hex.encode(client.publicKey),
      pairHash: pair.hash,
    });
    assert.equal(created.expectedAmount, 50_000 + 50 + pair.fees.minerFees);
    assert.equal(created.acceptZeroConf, true);
    assert.equal(created.timeoutBlockHeight, (await world.height()) + 144);
    assert.match(created.bip21!, new RegExp(`^bitcoin:${created.address}\\?amount=0\\.\\d+&label=`));

    // The wallet checks the address against the tree, and the tree against what it expects.
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    assert.equal(lockup.address, created.address);
    const expectedTree = swapTree(false, hex.decode(hash), hex.decode(created.claimPublicKey), client.publicKey, created.timeoutBlockHeight);
    assert.deepEqual(created.swapTree, serializeTree(expectedTree));

    // The devnet wallet signals RBF, so the unconfirmed lockup is not trusted.
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    const mempool = await world.waitForStatus(created.id, 'transaction.mempool');
    assert.equal(mempool.zeroConfRejected, true);
    assert.equal(mempool.transaction?.id, lockupTxid);
    await assert.rejects(world.engine.submarineClaimDetails(created.id), /not eligible for a cooperative claim/);

    await world.mine();
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    assert.deepEqual((await aliceInvoiceState(hash)).state, 'SETTLED');
    assert.equal((await aliceInvoiceState(hash)).amt_paid_sat, '50000');

    const details = await world.engine.submarineClaimDetails(created.id);
    assert.equal(hex.encode(sha256(hex.decode(details.preimage))), hash, 'the preimage pays the invoice');
    assert.equal(details.publicKey, created.claimPublicKey);
    assert.deepEqual(await world.engine.submarinePreimage(created.id), { preimage: details.preimage });
    const session = clientSession(client, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    // The client's secret nonce signs once (the library wipes it): tamper with a copy of the one partial signature.
    const partialSignature = session.sign(details.pubNonce);
    const tampered = partialSignature.slice(0, -1) + (partialSignature.endsWith('0') ? '1' : '0');
    await rejects(world.engine.submarineClaimSignature(created.id, { pubNonce: session.pubNonce, partialSignature: tampered }), 400, 'invalid partial signature');

    const balanceBefore = await world.operatorBalance();
    const result = await world.engine.submarineClaimSignature(created.id, { pubNonce: session.pubNonce, partialSignature });
    assert.deepEqual(result, {});
    assert.equal((await world.engine.status(created.id))?.status, 'transaction.claimed');
    const { vout } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null, 'the lockup is spent');
    await world.mine();
    const gained = (await world.operatorBalance()) - balanceBefore;
    assert.ok(gained > BigInt(created.expectedAmount! - 1_000) && gained < BigInt(created.expectedAmount!), `gained ${gained}`);
    assert.deepEqual(world.published.get(created.id), [
      'invoice.set',
      'transaction.mempool',
      'transaction.confirmed',
      'invoice.pending',
      'invoice.paid',
      'transaction.claim.pending',
      'transaction.claimed',
    ]);
  });

  test('0-conf: a final, well-paying lockup under the limit is paid before it confirms', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(20_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    // A coin of the test wallet key, spent without RBF straight into the lockup with a generous fee.
    const fundingTxid = await world.user.sendToAddress(addressOf(p2wpkhScript(walletKey.publicKey)), satToBtc(created.expectedAmount! + 2_000));
    await world.mine();
    const fundingHex = await world.node.getRawTransactionHex(fundingTxid);
    const out = findOutput(fundingHex, p2wpkhScript(walletKey.publicKey));
    const lockupScript = lockupOf(created.swapTree, created.claimPublicKey, client).script;
    const spend = spendP2wpkh(
      { txid: fundingTxid, vout: out.vout, value: out.value, script: p2wpkhScript(walletKey.publicKey) },
      { destinationScript: lockupScript, outputAmount: BigInt(created.expectedAmount!), rbf: false },
    );
    await world.node.sendRawTransaction(spend.hex);
    await world.waitForStatus(created.id, 'transaction.claim.pending');
    assert.equal((await world.node.getRawTransaction(spend.txid)).confirmations ?? 0, 0, 'paid while unconfirmed');
    assert.equal((await aliceInvoiceState(hash)).state, 'SETTLED');
    assert.ok(!world.published.get(created.id)!.includes('transaction.confirmed'));
  });

  test('a silent client: Ferry claims through the script path after the claim delay', async () => {
    const silentWorld = await startWorld({ claimDelayMs: 200 });
    try {
      const client = newKeyPair();
      const { body } = await rest<{ payment_request: string }>(silentWorld.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 30_000 });
      const created = await silentWorld.engine.createSubmarine({
        from: 'BTC',
        to: 'BTC',
        invoice: body.payment_request,
        refundPublicKey: hex.encode(client.publicKey),
      });
      const lockupTxid = await silentWorld.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
      await silentWorld.mine();
      const before = await silentWorld.operatorBalance();
      await silentWorld.waitForStatus(created.id, 'transaction.claimed');
      const lockupScript = lockupOf(created.swapTree, created.claimPublicKey, client).script;
      const { vout } = findOutput(await silentWorld.node.getRawTransactionHex(lockupTxid), lockupScript);
      assert.equal(await silentWorld.node.getTxOut(lockupTxid, vout, true), null);
      await silentWorld.mine();
      assert.ok((await silentWorld.operatorBalance()) - before > BigInt(created.expectedAmount! - 1_000));
    } finally {
      await silentWorld.close();
    }
  });

  test('refunds: refused before failure, signed for a wrong lockup amount, and the input must be the lockup', async () => {
    const client = newKeyPair();
    const { invoice } = await aliceInvoice(40_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    const short = created.expectedAmount! - 1_000;
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(short));
    const failed = await world.waitForStatus(created.id, 'transaction.lockupFailed');
    assert.equal(failed.failureReason, `locked ${short} is less than expected ${created.expectedAmount}`);
    assert.deepEqual(failed.failureDetails, { expected: created.expectedAmount, actual: short });

    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, refund.sighash);
    await rejects(
      world.engine.submarineRefund(created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 1 }),
      400,
      'invalid parameter: index',
    );
    const signed = await world.engine.submarineRefund(created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 });
    const refundHex = refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature));
    const refundTxid = await world.node.sendRawTransaction(refundHex);
    await world.mine();
    const out = await world.node.getTxOut(refundTxid, 0, false);
    assert.equal(out?.scriptPubKey.hex, hex.encode(refund.destination));
    assert.equal(Math.round(out!.value * 1e8), Number(refund.amount));
    assert.equal((await world.storage.swaps.get(created.id))?.data.refundSigned, true);

    // Another swap that has not failed gets no refund signature.
    const other = await world.engine.createSubmarine({
      from: 'BTC',
      to: 'BTC',
      invoice: (await aliceInvoice(40_001)).invoice,
      refundPublicKey: hex.encode(client.publicKey),
    });
    await rejects(
      world.engine.submarineRefund(other.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 }),
      400,
      'swap not eligible for a cooperative refund: status not eligible',
    );
  });

  test('no refund while the payment is in flight; once it failed, a refund and never a payment', async () => {
    const client = newKeyPair();
    const { preimageHash } = newPreimage();
    const { paymentRequest } = await world.alice.createHoldInvoice({ paymentHash: preimageHash, amountMsat: 25_000_000n });
    const created = await world.engine.createSubmarine({
      from: 'BTC',
      to: 'BTC',
      invoice: paymentRequest,
      refundPublicKey: hex.encode(client.publicKey),
    });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine();
    await world.waitForStatus(created.id, 'invoice.pending');
    await waitFor(async () => (await world.alice.lookupInvoice(preimageHash))?.state === 'ACCEPTED');

    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, refund.sighash);
    const request = { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 };
    await rejects(world.engine.submarineRefund(created.id, request), 400, 'swap not eligible for a cooperative refund: status not eligible');
    await assert.rejects(world.engine.setSubmarineInvoice(created.id, paymentRequest), (error: unknown) => {
      assert.ok(error instanceof SwapError);
      assert.equal(error.message, 'lightning payment in progress already');
      assert.deepEqual(error.extra, { invoice: paymentRequest });
      return true;
    });

    await world.alice.cancelHoldInvoice(preimageHash);
    const failed = await world.waitForStatus(created.id, 'invoice.failedToPay');
    assert.equal(failed.failureReason, 'invoice could not be paid');
    const signed = await world.engine.submarineRefund(created.id, request);
    const refundTxid = await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature)));
    await world.mine();
    assert.ok(await world.node.getTxOut(refundTxid, 0, false));
    assert.equal((await world.ferryNode.lookupPayment(preimageHash))?.status, 'FAILED');
    await rejects(world.engine.setSubmarineInvoice(created.id, paymentRequest), 400, 'cannot set an invoice in status invoice.failedToPay');
  });

  test('never paid after a refund: an expired swap refunded cooperatively refuses its invoice', async () => {
    const client = newKeyPair();
    const { invoice, hash } = await aliceInvoice(30_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash: hash, refundPublicKey: hex.encode(client.publicKey) });
    assert.equal(created.expectedAmount, undefined);
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(40_000));
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.confirmed');
    assert.ok((await world.engine.submarineInvoiceAmount(created.id)).invoiceAmount > 30_000);

    await world.mine(created.timeoutBlockHeight - (await world.height()));
    const expired = await world.waitForStatus(created.id, 'swap.expired');
    assert.equal(expired.failureReason, 'onchain HTLC timed out');

    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, refund.sighash);
    const signed = await world.engine.submarineRefund(created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 });
    await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature)));

    await rejects(world.engine.setSubmarineInvoice(created.id, invoice), 400, 'cannot set an invoice in status swap.expired');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await world.ferryNode.lookupPayment(hash), undefined, 'Ferry never started a payment');
    assert.equal((await aliceInvoiceState(hash)).state, 'OPEN');
  });

  test('coins sent after the swap expired: Ferry records no lockup, and co-signs their refund (an input paying the swap script) as the reference does', async () => {
    const client = newKeyPair();
    const { invoice } = await aliceInvoice(30_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    await world.mine(created.timeoutBlockHeight - (await world.height()));
    await world.waitForStatus(created.id, 'swap.expired');

    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine();
    await rejects(world.engine.submarineTransaction(created.id), 400, 'no coins were locked up yet');
    const { vout, value } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);

    // An input that does not pay the swap's script (another output of the same transaction) gets no signature.
    const elsewhere = keyPathSpend('refund', { txid: lockupTxid, vout: vout === 0 ? 1 : 0, value, script: lockup.script }, client);
    const refused = clientSession(client, lockup.keys, lockup.swapTree, elsewhere.sighash);
    await rejects(world.engine.submarineRefund(created.id, { pubNonce: refused.pubNonce, transaction: elsewhere.unsignedHex, index: 0 }), 400, 'the input to sign does not spend the lockup of this swap');

    const refund = keyPathSpend('refund', { txid: lockupTxid, vout, value, script: lockup.script }, client);
    const session = clientSession(client, lockup.keys, lockup.swapTree, refund.sighash);
    const signed = await world.engine.submarineRefund(created.id, { pubNonce: session.pubNonce, transaction: refund.unsignedHex, index: 0 });
    const refundTxid = await world.node.sendRawTransaction(refund.finish(session.aggregate(signed.pubNonce, signed.partialSignature)));
    await world.mine();
    assert.ok(await world.node.getTxOut(refundTxid, 0, false), 'the refund, co-signed by Ferry, confirmed');
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null, 'the lockup is spent');
    assert.equal((await world.engine.status(created.id))?.status, 'swap.expired', 'the swap stays expired: the coins were never its lockup');
  });

  test('creation errors use the reference texts', async () => {
    const client = hex.encode(newKeyPair().publicKey);
    const { invoice } = await aliceInvoice(10_000);
    await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: client });
    await rejects(world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: client }), 409, 'a swap with this invoice exists already');
    await rejects(
      world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: (await aliceInvoice(9_999)).invoice, refundPublicKey: client }),
      400,
      '9999 is less than minimal of 10000',
    );
    await rejects(
      world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: (await aliceInvoice(20_000)).invoice, refundPublicKey: client, pairHash: 'ab' }),
      400,
      'invalid pair hash',
    );
    await rejects(world.engine.createSubmarine({ from: 'L-BTC', to: 'BTC', invoice, refundPublicKey: client }), 400, 'could not find pair with id: L-BTC/BTC');
    // Optional on the wire (an RBTC lockup names its refund address), required of a UTXO chain's lockup.
    await rejects(world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice: (await aliceInvoice(21_000)).invoice }), 400, 'undefined parameter: refundPublicKey');
    await rejects(world.engine.submarineInvoiceAmount('nope'), 404, 'could not find swap with id: nope');
    const later = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash: newPreimage().preimageHash, refundPublicKey: client });
    await rejects(world.engine.submarineInvoiceAmount(later.id), 400, 'no coins were locked up yet');
    await rejects(world.engine.setSubmarineInvoice(later.id, (await aliceInvoice(20_000)).invoice), 400, /does not match the preimage hash/);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
