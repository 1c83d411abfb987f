// API v1 swaps on Liquid (L-BTC/BTC) end to end against Ferry on its devnet, as a v1 client writes them: the lockup
// is P2WSH of the redeem script behind a confidential address blinded with the answer's `blindingKey`; the client
// checks both, locks L-BTC (Ferry pays the invoice and claims) or pays the hold invoice and claims Ferry's blinded
// lockup with <signature> <preimage> <redeem script>; a submarine lockup is refunded from a refund file (with its
// blindingKey) through `ferry swap refund --file` after the timeout, and Ferry refunds its own unclaimed reverse
// lockup through the redeem script. Effects are checked on the Elements chain and on Lightning.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Scripts, reverseSwapScript, swapScript } from 'boltz-core';
import { Transaction } from 'liquidjs-lib';
import { CoreRpcClient, satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { confidentialAddress, decodeAddress } from '@ferry/sdk/chains/liquid/network.js';
import { legacyClaim, legacyRefund } from '@ferry/sdk/chains/liquid/spends.js';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
let elements: CoreRpcClient;
let liquidUser: CoreRpcClient;
before(async () => {
  // Short L-BTC timeouts (Liquid's defaults are 1440 blocks) so that the refund tests mine a hundred blocks; an
  // invoice's CLTV still sets a longer submarine timeout, up to the maximum.
  world = await startV1World({}, (config) => {
    config.pairs = [
      { id: 'BTC/BTC', ...config.pair },
      { id: 'L-BTC/BTC', ...config.pair, timeoutReverse: 100, timeoutSwapMinimal: 100, timeoutSwapMaximal: 2880 },
    ];
  });
  const info = world.ferry.devnet!.info.elements;
  elements = new CoreRpcClient({ url: info.rpcUrl, user: info.rpcUser, password: info.rpcPassword });
  liquidUser = elements.wallet(info.wallets.user);
});
after(() => world.close());

const keyPair = () => {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
};
const mineLiquid = async (blocks = 1) => elements.generateToAddress(blocks, await liquidUser.getNewAddress());

/** Polls v1 /swapstatus until one of `statuses`, mining a Liquid block now and then. */
async function waitLiquid(id: string, statuses: string[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (let round = 1; Date.now() < deadline; round++) {
    const answer = await world.call('POST', '/swapstatus', { id });
    if (statuses.includes(answer.json.status)) return answer.json;
    if (round % 5 === 0) await mineLiquid();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`swap ${id} never reached ${statuses.join(' / ')}: ${world.log.join('\n')}`);
}

/** The output of a Liquid transaction paying `script`, and the transaction spending it (mempool or recent blocks). */
async function spenderOf(txid: string, vout: number) {
  const candidates = [...(await elements.getRawMempool())];
  const tip = await elements.getBlockCount();
  for (let height = tip; height > tip - 50; height--) candidates.push(...(await elements.getBlock(await elements.getBlockHash(height))).tx);
  for (const candidate of candidates) {
    const tx = Transaction.fromHex(await elements.getRawTransactionHex(candidate));
    const input = tx.ins.findIndex((i) => Buffer.from(i.hash).reverse().toString('hex') === txid && i.index === vout);
    if (input >= 0) return { txid: tx.getId(), witness: tx.ins[input].witness.map((item) => item.toString('hex')) };
  }
  return undefined;
}

const outputPaying = (txHex: string, script: Uint8Array) => Transaction.fromHex(txHex).outs.findIndex((out) => hex.encode(out.script) === hex.encode(script));

test('v1 L-BTC submarine: a blinded P2WSH lockup the client checks, Ferry pays the invoice and claims it', async () => {
  const refund = keyPair();
  const bob = await world.invoice('bob', 30_000);
  const created = await world.call('POST', '/createswap', { type: 'submarine', pairId: 'L-BTC/BTC', orderSide: 'sell', invoice: bob.invoice, refundPublicKey: hex.encode(refund.publicKey) });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['acceptZeroConf', 'address', 'bip21', 'blindingKey', 'expectedAmount', 'id', 'redeemScript', 'timeoutBlockHeight']);
  const serviceKey = (await import('@scure/btc-signer')).Script.decode(hex.decode(swap.redeemScript))[4] as Uint8Array;
  assert.equal(swap.redeemScript, hex.encode(swapScript(hex.decode(bob.paymentHash), serviceKey, refund.publicKey, swap.timeoutBlockHeight)));
  const script = Scripts.p2wshOutput(hex.decode(swap.redeemScript));
  assert.equal(swap.address, confidentialAddress(script, secp256k1.getPublicKey(hex.decode(swap.blindingKey), true), 'regtest'));

  const lockupTxid = await liquidUser.sendToAddress(swap.address, satToBtc(swap.expectedAmount));
  const vout = outputPaying(await elements.getRawTransactionHex(lockupTxid), script);
  await waitLiquid(swap.id, ['transaction.claimed']);
  assert.equal((await new LndRestClient({ url: world.ferry.devnet!.info.lightning.bob.restUrl, macaroon: world.ferry.devnet!.info.lightning.bob.macaroon }).lookupInvoice(bob.paymentHash))?.state, 'SETTLED');
  const claim = await spenderOf(lockupTxid, vout);
  assert.ok(claim, 'the lockup was spent');
  assert.equal(hex.encode(sha256(hex.decode(claim.witness[1]))), bob.paymentHash);
  assert.equal(claim.witness[2], swap.redeemScript);
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 L-BTC reverse: the client unblinds Ferry\'s P2WSH lockup with blindingKey and claims it with its redeem script', async () => {
  const preimage = randomBytes(32);
  const claimKey = keyPair();
  const created = await world.call('POST', '/createswap', {
    type: 'reversesubmarine',
    pairId: 'L-BTC/BTC',
    orderSide: 'buy',
    invoiceAmount: 40_000,
    preimageHash: hex.encode(sha256(preimage)),
    claimPublicKey: hex.encode(claimKey.publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['blindingKey', 'id', 'invoice', 'lockupAddress', 'onchainAmount', 'redeemScript', 'timeoutBlockHeight']);
  const redeemScript = hex.decode(swap.redeemScript);
  const serviceKey = (await import('@scure/btc-signer')).Script.decode(redeemScript)[13] as Uint8Array;
  assert.equal(swap.redeemScript, hex.encode(reverseSwapScript(sha256(preimage), claimKey.publicKey, serviceKey, swap.timeoutBlockHeight)));
  const script = Scripts.p2wshOutput(redeemScript);
  assert.equal(swap.lockupAddress, confidentialAddress(script, secp256k1.getPublicKey(hex.decode(swap.blindingKey), true), 'regtest'));

  const payment = world.pay('alice', swap.invoice);
  const locked = await waitLiquid(swap.id, ['transaction.mempool', 'transaction.confirmed']);
  const lockupHex = locked.transaction.hex ?? (await elements.getRawTransactionHex(locked.transaction.id));
  const vout = outputPaying(lockupHex, script);
  const destinationAddress = await liquidUser.getNewAddress();
  const destination = decodeAddress(destinationAddress, 'regtest');
  const claim = legacyClaim({
    lockup: { txid: locked.transaction.id, vout, prevout: Transaction.fromHex(lockupHex).outs[vout], blindingPrivateKey: hex.decode(swap.blindingKey) },
    redeemScript,
    privateKey: claimKey.privateKey,
    preimage,
    destination: { script: destination.script, blindingPublicKey: destination.blindingPublicKey },
    feeRate: 0.1,
    network: 'regtest',
  });
  assert.equal(claim.amount + claim.fee, BigInt(swap.onchainAmount));
  const broadcast = await world.call('POST', '/broadcasttransaction', { currency: 'L-BTC', transactionHex: claim.hex });
  assert.deepEqual(broadcast, { status: 200, json: { transactionId: claim.txid } });
  await waitLiquid(swap.id, ['invoice.settled']);
  assert.equal((await payment).status, 'SUCCEEDED');
  await mineLiquid();
  assert.equal((await spenderOf(locked.transaction.id, vout))?.txid, claim.txid);
  const received = (await liquidUser.listUnspent(1)).filter((coin) => coin.txid === claim.txid);
  assert.deepEqual(received.map((coin) => Math.round(coin.amount * 1e8)), [Number(claim.amount)]);
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 L-BTC submarine refund: early refund refused with the timeout; `ferry swap refund --file` with the blindingKey refunds after it', async () => {
  const refundKey = keyPair();
  const created = await world.call('POST', '/createswap', {
    type: 'submarine',
    pairId: 'L-BTC/BTC',
    orderSide: 'sell',
    preimageHash: hex.encode(sha256(randomBytes(32))),
    refundPublicKey: hex.encode(refundKey.publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['address', 'blindingKey', 'id', 'redeemScript', 'timeoutBlockHeight']);
  const script = Scripts.p2wshOutput(hex.decode(swap.redeemScript));
  const lockupTxid = await liquidUser.sendToAddress(swap.address, satToBtc(50_000));
  await waitLiquid(swap.id, ['transaction.mempool', 'transaction.confirmed']);
  const lockupHex = await elements.getRawTransactionHex(lockupTxid);
  assert.equal((await world.call('POST', '/getswaptransaction', { id: swap.id })).json.transactionHex, lockupHex);
  const vout = outputPaying(lockupHex, script);

  // Before the timeout the node refuses the refund as non-final, and the answer says when to come back.
  const destination = decodeAddress(await liquidUser.getNewAddress(), 'regtest');
  const early = legacyRefund({
    lockup: { txid: lockupTxid, vout, prevout: Transaction.fromHex(lockupHex).outs[vout], blindingPrivateKey: hex.decode(swap.blindingKey) },
    redeemScript: hex.decode(swap.redeemScript),
    privateKey: refundKey.privateKey,
    timeoutBlockHeight: swap.timeoutBlockHeight,
    destination: { script: destination.script, blindingPublicKey: destination.blindingPublicKey },
    feeRate: 0.1,
    network: 'regtest',
  });
  const refused = await world.call('POST', '/broadcasttransaction', { currency: 'L-BTC', transactionHex: early.hex });
  assert.equal(refused.status, 400);
  assert.match(refused.json.error, /non-final|locktime/i);
  assert.equal(refused.json.timeoutBlockHeight, swap.timeoutBlockHeight);

  // The refund file in the interface's format, with the key that unblinds the lockup, refunded by Ferry's CLI.
  const dir = mkdtempSync(join(tmpdir(), 'ferry-v1-liquid-refund-'));
  const file = join(dir, `refund-${swap.id}.json`);
  writeFileSync(file, JSON.stringify({ id: swap.id, currency: 'L-BTC', redeemScript: swap.redeemScript, privateKey: hex.encode(refundKey.privateKey), timeoutBlockHeight: swap.timeoutBlockHeight, blindingKey: swap.blindingKey }));
  await mineLiquid(swap.timeoutBlockHeight - (await elements.getBlockCount()));
  await waitLiquid(swap.id, ['swap.expired']);
  const rpcUrl = new URL(world.ferry.devnet!.info.elements.rpcUrl);
  rpcUrl.username = world.ferry.devnet!.info.elements.rpcUser;
  rpcUrl.password = world.ferry.devnet!.info.elements.rpcPassword;
  const refundAddress = await liquidUser.getNewAddress();
  const env = { ...process.env, FERRY_CLIENT_DIR: join(dir, 'client'), FERRY_SERVICE_URL: world.ferry.apiUrl };
  const result = await ferryCommand(env, 'swap', 'refund', '--file', file, '--address', refundAddress, '--elements-rpc', rpcUrl.toString().replace(/\/$/, ''), '--json');
  assert.equal(result.code, 0, result.stderr);
  const refunded = jsonLines(result.stdout).find((line) => line.event === 'refunded')!;
  assert.equal(refunded.path, 'script');
  await mineLiquid();
  const spender = await spenderOf(lockupTxid, vout);
  assert.equal(spender?.txid, refunded.txid);
  assert.deepEqual([spender!.witness[1], spender!.witness[2]], ['', swap.redeemScript]);
  const received = (await liquidUser.listUnspent(1)).filter((coin) => coin.txid === refunded.txid);
  assert.deepEqual(received.map((coin) => Math.round(coin.amount * 1e8)), [50_000 - (refunded.fee as number)]);
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 L-BTC reverse never claimed: Ferry refunds its blinded P2WSH lockup through the redeem script and gives the payment back', async () => {
  const created = await world.call('POST', '/createswap', {
    type: 'reversesubmarine',
    pairId: 'L-BTC/BTC',
    orderSide: 'buy',
    invoiceAmount: 30_000,
    preimageHash: hex.encode(sha256(randomBytes(32))),
    claimPublicKey: hex.encode(keyPair().publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  const payment = world.pay('alice', swap.invoice);
  const locked = await waitLiquid(swap.id, ['transaction.mempool', 'transaction.confirmed']);
  const lockupHex = locked.transaction.hex ?? (await elements.getRawTransactionHex(locked.transaction.id));
  const vout = outputPaying(lockupHex, Scripts.p2wshOutput(hex.decode(swap.redeemScript)));
  await mineLiquid(swap.timeoutBlockHeight - (await elements.getBlockCount()));
  await waitLiquid(swap.id, ['transaction.refunded']);
  // The held payment is given back once the refund is in a block (until then a claim could still win).
  let settled: Awaited<typeof payment> | undefined;
  void payment.then((update) => (settled = update));
  for (let round = 0; settled === undefined; round++) {
    assert.ok(round < 100, 'the held payment was never given back');
    await mineLiquid();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(settled.status, 'FAILED');
  const refund = await spenderOf(locked.transaction.id, vout);
  assert.ok(refund, 'the lockup was spent');
  assert.deepEqual([refund.witness[1], refund.witness[2]], ['', swap.redeemScript]);
  assert.deepEqual(failedRequests(world.log), []);
});
