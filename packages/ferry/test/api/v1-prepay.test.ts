// The miner fee prepay of v1 reverse swaps (operator option swap.prepayMinerFee), as a v1 client meets it: /getpairs
// says `prepay.minerfee`, /createswap answers a `minerFeeInvoice` beside the hold invoice (together the invoice
// amount), `minerfee.paid` is pushed once it is paid, Ferry locks only once both are paid, and a swap whose other
// invoice is never paid gives both payments back. Effects: the payers' payments (settled or failed), what was locked.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction } from 'boltz-core';
import type { ClaimDetails } from 'boltz-core';
import { NETWORKS } from '../../src/chains/bitcoin/network.ts';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
let expiring: V1World;
before(async () => {
  world = await startV1World({}, (config) => {
    config.swap.prepayMinerFee = true;
  });
  expiring = await startV1World({}, (config) => {
    config.swap.prepayMinerFee = true;
    config.swap.invoiceExpirySeconds = 6;
  });
});
after(async () => {
  await world.close();
  await expiring.close();
});

const sat = (invoice: string) => Number(decodeBolt11(invoice).amountMsat! / 1000n);
const scriptOfAddress = (address: string) => OutScript.encode(Address(NETWORKS.regtest).decode(address));

async function createPrepaid(on: V1World, invoiceAmount: number) {
  const preimage = randomBytes(32);
  const claimKey = secp256k1.utils.randomSecretKey();
  const created = await on.call('POST', '/createswap', {
    type: 'reversesubmarine',
    pairId: 'BTC/BTC',
    orderSide: 'buy',
    invoiceAmount,
    preimageHash: hex.encode(sha256(preimage)),
    claimPublicKey: hex.encode(secp256k1.getPublicKey(claimKey, true)),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return { swap: created.json, preimage, claimKey };
}

/** Outputs paying `address` in the mempool and the last blocks: what Ferry locked to it. */
async function lockedTo(on: V1World, address: string): Promise<number[]> {
  const script = hex.encode(scriptOfAddress(address));
  const txids = [...(await on.rpc.getRawMempool())];
  const tip = await on.rpc.getBlockCount();
  for (let height = tip; height > tip - 10; height--) txids.push(...(await on.rpc.getBlock(await on.rpc.getBlockHash(height))).tx);
  const values: number[] = [];
  for (const txid of txids) {
    const tx = (await on.rpc.getRawTransaction(txid)) as any;
    for (const out of tx.vout) if (out.scriptPubKey.hex === script) values.push(Math.round(out.value * 1e8));
  }
  return values;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What `promise` gives, or undefined if it gives nothing within `ms`: a hang guard, its timer cleared with the answer
 * (left armed, it kept the test process alive 30 s after its last test). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

test('v1 prepay: /getpairs says prepay.minerfee; the two invoices make up the invoice amount, the miner fee one the lockup fee', async () => {
  const pairs = await world.call('GET', '/getpairs');
  assert.deepEqual(pairs.json.info, ['prepay.minerfee']);
  const lockupFee = pairs.json.pairs['BTC/BTC'].fees.minerFees.baseAsset.reverse.lockup;
  assert.ok(lockupFee > 0);
  const { swap } = await createPrepaid(world, 60_000);
  assert.deepEqual(Object.keys(swap).sort(), ['id', 'invoice', 'lockupAddress', 'minerFeeInvoice', 'onchainAmount', 'redeemScript', 'timeoutBlockHeight']);
  assert.equal(sat(swap.minerFeeInvoice), lockupFee);
  assert.equal(sat(swap.invoice) + sat(swap.minerFeeInvoice), 60_000);
  assert.notEqual(decodeBolt11(swap.minerFeeInvoice).paymentHash, decodeBolt11(swap.invoice).paymentHash);
  // A v2 reverse swap has no field for it: v2 swaps are not asked to prepay.
  const v2 = await world.call('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'BTC',
    invoiceAmount: 60_000,
    preimageHash: hex.encode(sha256(randomBytes(32))),
    claimPublicKey: hex.encode(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)),
  });
  assert.equal(v2.status, 201);
  assert.equal(v2.json.minerFeeInvoice, undefined);
  assert.equal(sat(v2.json.invoice), 60_000);
});

test('v1 prepay: miner fee paid first → minerfee.paid, no lockup; the hold invoice paid → Ferry locks; the claim settles both', async () => {
  const { swap, preimage, claimKey } = await createPrepaid(world, 70_000);
  const stream = world.statusStream(swap.id);
  const minerFeePayment = world.pay('alice', swap.minerFeeInvoice);
  await world.waitForStatus(swap.id, ['minerfee.paid'], { timeoutMs: 20_000 });
  await settle(1_500);
  assert.equal((await world.call('POST', '/swapstatus', { id: swap.id })).json.status, 'minerfee.paid');
  assert.deepEqual(await lockedTo(world, swap.lockupAddress), [], 'nothing is locked for the miner fee alone');

  const payment = world.pay('alice', swap.invoice);
  const locked = await world.waitForStatus(swap.id, ['transaction.mempool'], { timeoutMs: 30_000 });
  assert.deepEqual(await lockedTo(world, swap.lockupAddress), [swap.onchainAmount]);
  // Ferry's lock settles the miner fee invoice: that payment is done, with Ferry's preimage, not the swap's.
  const feePaid = await minerFeePayment;
  assert.equal(feePaid.status, 'SUCCEEDED');
  assert.notEqual(feePaid.preimage, hex.encode(preimage));

  const lockupTx = (await world.rpc.decodeRawTransaction(locked.transaction.hex)) as any;
  const vout = lockupTx.vout.findIndex((out: any) => out.scriptPubKey.hex === hex.encode(scriptOfAddress(swap.lockupAddress)));
  const destination = await world.user.getNewAddress();
  const claim = constructClaimTransaction(
    [
      {
        type: OutputType.Bech32,
        redeemScript: hex.decode(swap.redeemScript),
        preimage,
        privateKey: claimKey,
        transactionId: locked.transaction.id,
        vout,
        script: scriptOfAddress(swap.lockupAddress),
        amount: BigInt(swap.onchainAmount),
      } as unknown as ClaimDetails,
    ],
    scriptOfAddress(destination),
    500n,
    true,
  );
  const broadcast = await world.call('POST', '/broadcasttransaction', { currency: 'BTC', transactionHex: hex.encode(claim.toBytes(true, true)) });
  assert.equal(broadcast.status, 200, JSON.stringify(broadcast.json));
  await world.waitForStatus(swap.id, ['invoice.settled'], { mine: true, timeoutMs: 30_000 });
  const paid = await payment;
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(paid.preimage, hex.encode(preimage));
  await world.mine();
  const received = (await world.user.listUnspent(1)).filter((coin) => coin.txid === claim.id);
  assert.deepEqual(received.map((coin) => Math.round(coin.amount * 1e8)), [swap.onchainAmount - 500]);

  await settle(200);
  await stream.close();
  const seen = stream.statuses();
  assert.deepEqual(seen.slice(0, 3), ['swap.created', 'minerfee.paid', 'transaction.mempool']);
  assert.equal(seen.at(-1), 'invoice.settled');
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 prepay: the hold invoice paid first waits for the miner fee; then Ferry locks once', async () => {
  const { swap } = await createPrepaid(world, 50_000);
  const payment = world.pay('alice', swap.invoice);
  payment.catch(() => {});
  await settle(2_500);
  assert.equal((await world.call('POST', '/swapstatus', { id: swap.id })).json.status, 'swap.created');
  assert.deepEqual(await lockedTo(world, swap.lockupAddress), []);
  const fee = world.pay('alice', swap.minerFeeInvoice);
  await world.waitForStatus(swap.id, ['transaction.mempool'], { timeoutMs: 30_000 });
  assert.equal((await fee).status, 'SUCCEEDED');
  await world.mine();
  await world.waitForStatus(swap.id, ['transaction.confirmed'], { timeoutMs: 30_000 });
  assert.deepEqual(await lockedTo(world, swap.lockupAddress), [swap.onchainAmount], 'locked exactly once');
});

for (const paidOnly of ['minerFeeInvoice', 'invoice'] as const) {
  test(`v1 prepay: only the ${paidOnly === 'invoice' ? 'hold invoice' : 'miner fee invoice'} paid → at expiry both are cancelled, the payment fails back, nothing is locked`, async () => {
    const { swap } = await createPrepaid(expiring, 40_000);
    const payment = await within(expiring.pay('alice', swap[paidOnly]), 40_000);
    assert.ok(payment !== undefined, 'the held payment was never given back');
    assert.equal(payment.status, 'FAILED');
    const status = await expiring.waitForStatus(swap.id, ['invoice.expired'], { timeoutMs: 20_000 });
    assert.equal(status.status, 'invoice.expired');
    assert.deepEqual(await lockedTo(expiring, swap.lockupAddress), []);
    assert.deepEqual(failedRequests(expiring.log), []);
  });
}
