// API v1 swaps end to end, written as a v1 client writes them against Ferry on its devnet: /getpairs, /createswap,
// the client checks the redeem script and the address itself, locks or pays, follows the status over SSE and
// /swapstatus, and spends with the redeem script (a reverse claim with <signature> <preimage> <redeem script>, a
// submarine refund from a refund file through `ferry swap refund --file` after the timeout). Effects are checked
// on chain and on the Lightning nodes: which transaction spent which output, who received what.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Address, OutScript, Script } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction, reverseSwapScript, swapScript } from 'boltz-core';
import type { ClaimDetails } from 'boltz-core';
import { NETWORKS } from '../../src/chains/bitcoin/network.ts';
import { legacyRefund } from '@ferry/sdk/chains/bitcoin/spends.js';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

const regtest = NETWORKS.regtest;
const keyPair = () => {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
};
const scriptOfAddress = (address: string) => OutScript.encode(Address(regtest).decode(address));
const p2shP2wshAddress = (script: Uint8Array) =>
  Address(regtest).encode({ type: 'sh', hash: ripemd160(sha256(OutScript.encode({ type: 'wsh', hash: sha256(script) }))) });
const p2wshAddress = (script: Uint8Array) => Address(regtest).encode({ type: 'wsh', hash: sha256(script) });

/** The transaction spending an outpoint, in the mempool or the last blocks. */
async function spenderOf(txid: string, vout: number): Promise<{ txid: string; hex: string; vin: any[]; vout: any[] } | undefined> {
  const candidates = [...(await world.rpc.getRawMempool())];
  const tip = await world.rpc.getBlockCount();
  for (let height = tip; height > tip - 200 && height > 0; height--) {
    candidates.push(...(await world.rpc.getBlock(await world.rpc.getBlockHash(height))).tx);
  }
  for (const candidate of candidates) {
    const decoded = (await world.rpc.getRawTransaction(candidate)) as any;
    if (decoded.vin.some((input: any) => input.txid === txid && input.vout === vout)) return decoded;
  }
  return undefined;
}

const lndOf = (name: string) => {
  const node = world.ferry.devnet!.info.lightning[name];
  return new LndRestClient({ url: node.restUrl, macaroon: node.macaroon });
};

test('v1 submarine: createswap with an invoice, the client checks the P2SH-P2WSH address, locks, Ferry pays and claims', async () => {
  const pairs = await world.call('GET', '/getpairs');
  const pair = pairs.json.pairs['BTC/BTC'];
  const refund = keyPair();
  const bob = await world.invoice('bob', 40_000);
  const created = await world.call('POST', '/createswap', {
    type: 'submarine',
    pairId: 'BTC/BTC',
    orderSide: 'sell',
    invoice: bob.invoice,
    refundPublicKey: hex.encode(refund.publicKey),
    pairHash: pair.hash,
    referralId: 'partner',
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['acceptZeroConf', 'address', 'bip21', 'expectedAmount', 'id', 'redeemScript', 'timeoutBlockHeight']);
  assert.equal(swap.expectedAmount, 40_000 + Math.ceil(40_000 / 1000) + pair.fees.minerFees.baseAsset.normal);
  assert.equal(swap.bip21, `bitcoin:${swap.address}?amount=${swap.expectedAmount / 1e8}&label=Send%20to%20BTC%20lightning`);

  // The client's own checks: the script is swapScript with our hash, our refund key and the timeout, and the
  // address is that script nested in P2SH-P2WSH.
  const redeemScript = hex.decode(swap.redeemScript);
  const parts = Script.decode(redeemScript);
  assert.equal(parts.length, 12);
  const serviceKey = parts[4] as Uint8Array;
  assert.equal(swap.redeemScript, hex.encode(swapScript(hex.decode(bob.paymentHash), serviceKey, refund.publicKey, swap.timeoutBlockHeight)));
  assert.equal(swap.address, p2shP2wshAddress(redeemScript));

  const stream = world.statusStream(swap.id);
  const userBefore = await world.user.getBalance();
  const lockupTxid = await world.fund(swap.address, swap.expectedAmount);
  const lockupTx = (await world.rpc.getRawTransaction(lockupTxid)) as any;
  const vout = lockupTx.vout.findIndex((out: any) => out.scriptPubKey.hex === hex.encode(scriptOfAddress(swap.address)));
  const final = await world.waitForStatus(swap.id, ['transaction.claimed'], { mine: true, timeoutMs: 30_000 });
  assert.equal(final.status, 'transaction.claimed');

  // Bob was paid on Lightning; Ferry's claim spent the lockup with the preimage through the redeem script.
  const invoice = await lndOf('bob').lookupInvoice(bob.paymentHash);
  assert.equal(invoice?.state, 'SETTLED');
  assert.equal(invoice?.amountPaidMsat, 40_000_000n);
  const claim = await spenderOf(lockupTxid, vout);
  assert.ok(claim, 'the lockup was spent');
  const witness = claim.vin[0].txinwitness as string[];
  assert.equal(hex.encode(sha256(hex.decode(witness[1]))), bob.paymentHash);
  assert.equal(witness[2], swap.redeemScript);
  const claimed = Math.round(claim.vout[0].value * 1e8);
  assert.ok(claimed > swap.expectedAmount - 2_000 && claimed < swap.expectedAmount, `claimed ${claimed}`);
  const userAfter = await world.user.getBalance();
  assert.ok(userBefore - userAfter >= swap.expectedAmount / 1e8, 'the user wallet paid the lockup');

  await new Promise((resolve) => setTimeout(resolve, 200));
  await stream.close();
  const seen = stream.statuses();
  assert.equal(seen[0], 'invoice.set');
  assert.equal(seen.at(-1), 'transaction.claimed');
  assert.ok(seen.includes('transaction.mempool') || seen.includes('transaction.confirmed'), seen.join(' '));
  // No cooperative claim for a legacy swap: the v2 call refuses with a 4xx.
  const cooperative = await world.call('GET', `/v2/swap/submarine/${swap.id}/claim`);
  assert.equal(cooperative.status, 400);
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 reverse: createswap, the client checks the P2WSH script, pays the hold invoice and claims with <signature> <preimage> <redeem script>', async () => {
  const preimage = randomBytes(32);
  const preimageHash = sha256(preimage);
  const claimKey = keyPair();
  const created = await world.call('POST', '/createswap', {
    type: 'reversesubmarine',
    pairId: 'BTC/BTC',
    orderSide: 'buy',
    invoiceAmount: 60_000,
    preimageHash: hex.encode(preimageHash),
    claimPublicKey: hex.encode(claimKey.publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['id', 'invoice', 'lockupAddress', 'onchainAmount', 'redeemScript', 'timeoutBlockHeight']);
  const redeemScript = hex.decode(swap.redeemScript);
  const serviceKey = Script.decode(redeemScript)[13] as Uint8Array;
  assert.equal(swap.redeemScript, hex.encode(reverseSwapScript(preimageHash, claimKey.publicKey, serviceKey, swap.timeoutBlockHeight)));
  assert.equal(swap.lockupAddress, p2wshAddress(redeemScript));

  const stream = world.statusStream(swap.id);
  const payment = world.pay('alice', swap.invoice);
  const locked = await world.waitForStatus(swap.id, ['transaction.mempool'], { timeoutMs: 30_000 });
  const lockupHex = locked.transaction.hex as string;
  const lockupTx = (await world.rpc.decodeRawTransaction(lockupHex)) as any;
  const vout = lockupTx.vout.findIndex((out: any) => out.scriptPubKey.hex === hex.encode(scriptOfAddress(swap.lockupAddress)));
  assert.equal(Math.round(lockupTx.vout[vout].value * 1e8), swap.onchainAmount);

  // The client's claim, as any v1 wallet builds it, broadcast through Ferry's v1 call.
  const destination = await world.user.getNewAddress();
  const utxo = {
    type: OutputType.Bech32,
    redeemScript,
    preimage,
    privateKey: claimKey.privateKey,
    transactionId: locked.transaction.id,
    vout,
    script: scriptOfAddress(swap.lockupAddress),
    amount: BigInt(swap.onchainAmount),
  };
  const claimTx = constructClaimTransaction([utxo as ClaimDetails], scriptOfAddress(destination), 500n, true);
  const broadcast = await world.call('POST', '/broadcasttransaction', { currency: 'BTC', transactionHex: hex.encode(claimTx.toBytes(true, true)) });
  assert.deepEqual(broadcast, { status: 200, json: { transactionId: claimTx.id } });

  const settled = await world.waitForStatus(swap.id, ['invoice.settled'], { mine: true, timeoutMs: 30_000 });
  assert.equal(settled.status, 'invoice.settled');
  const paid = await payment;
  assert.equal(paid.status, 'SUCCEEDED');
  assert.equal(paid.preimage, hex.encode(preimage));
  await world.mine();
  const spender = await spenderOf(locked.transaction.id, vout);
  assert.equal(spender?.txid, claimTx.id);
  const received = (await world.user.listUnspent(1)).filter((coin) => coin.txid === claimTx.id);
  assert.deepEqual(received.map((coin) => [coin.address, Math.round(coin.amount * 1e8)]), [[destination, swap.onchainAmount - 500]]);

  await new Promise((resolve) => setTimeout(resolve, 200));
  await stream.close();
  const seen = stream.statuses();
  assert.equal(seen[0], 'swap.created');
  assert.ok(seen.includes('transaction.mempool'), seen.join(' '));
  assert.equal(seen.at(-1), 'invoice.settled');
  assert.deepEqual(failedRequests(world.log), []);
});

test('v1 submarine refund: an early refund is a 400 with the timeout, and `ferry swap refund --file` refunds after it', async () => {
  const refundKey = keyPair();
  const preimageHash = sha256(randomBytes(32));
  const created = await world.call('POST', '/createswap', {
    type: 'submarine',
    pairId: 'BTC/BTC',
    orderSide: 'sell',
    preimageHash: hex.encode(preimageHash),
    refundPublicKey: hex.encode(refundKey.publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;
  assert.deepEqual(Object.keys(swap).sort(), ['address', 'id', 'redeemScript', 'timeoutBlockHeight']);
  assert.equal(swap.address, p2shP2wshAddress(hex.decode(swap.redeemScript)));

  const lockupTxid = await world.fund(swap.address, 70_000);
  await world.waitForStatus(swap.id, ['transaction.mempool', 'transaction.confirmed']);
  assert.deepEqual(await world.call('POST', '/swaprates', { id: swap.id }), { status: 200, json: { invoiceAmount: Math.floor(((70_000 - (await world.call('GET', '/getpairs')).json.pairs['BTC/BTC'].fees.minerFees.baseAsset.normal) / 1.001)) } });
  const lockupHex = await world.rpc.getRawTransactionHex(lockupTxid);
  const transaction = await world.call('POST', '/getswaptransaction', { id: swap.id });
  assert.equal(transaction.json.transactionHex, lockupHex);
  const lockupTx = (await world.rpc.getRawTransaction(lockupTxid)) as any;
  const vout = lockupTx.vout.findIndex((out: any) => out.scriptPubKey.hex === hex.encode(scriptOfAddress(swap.address)));

  // Broadcasting the refund before the timeout: refused, with when to try again.
  const early = legacyRefund({
    output: { txid: lockupTxid, vout, value: 70_000n, script: scriptOfAddress(swap.address) },
    outputType: 'p2sh-p2wsh',
    redeemScript: hex.decode(swap.redeemScript),
    privateKey: refundKey.privateKey,
    timeoutBlockHeight: swap.timeoutBlockHeight,
    destination: scriptOfAddress(await world.user.getNewAddress()),
    feeRate: 2,
  });
  const refused = await world.call('POST', '/broadcasttransaction', { currency: 'BTC', transactionHex: early.hex });
  assert.equal(refused.status, 400);
  assert.match(refused.json.error, /non-final|locktime/i);
  assert.equal(refused.json.timeoutBlockHeight, swap.timeoutBlockHeight);
  assert.equal(typeof refused.json.timeoutEta, 'number');

  // The refund file in the interface's format, refunded by Ferry's own client command after the timeout.
  const dir = mkdtempSync(join(tmpdir(), 'ferry-v1-refund-'));
  const file = join(dir, `refund-${swap.id}.json`);
  const refundFile = { id: swap.id, currency: 'BTC', redeemScript: swap.redeemScript, privateKey: hex.encode(refundKey.privateKey), timeoutBlockHeight: swap.timeoutBlockHeight };
  writeFileSync(file, JSON.stringify(refundFile));
  await world.mine(swap.timeoutBlockHeight - (await world.rpc.getBlockCount()));
  await world.waitForStatus(swap.id, ['swap.expired']);
  const bitcoin = world.ferry.devnet!.info.bitcoin;
  const rpcUrl = new URL(bitcoin.rpcUrl);
  rpcUrl.username = bitcoin.rpcUser;
  rpcUrl.password = bitcoin.rpcPassword;
  const destination = await world.user.getNewAddress();
  const env = { ...process.env, FERRY_CLIENT_DIR: join(dir, 'client'), FERRY_SERVICE_URL: world.ferry.apiUrl };
  const result = await ferryCommand(env, 'swap', 'refund', '--file', file, '--address', destination, '--bitcoin-rpc', rpcUrl.toString().replace(/\/$/, ''), '--json');
  assert.equal(result.code, 0, result.stderr);
  const refunded = jsonLines(result.stdout).find((line) => line.event === 'refunded')!;
  assert.equal(refunded.path, 'script');
  await world.mine();
  const spender = await spenderOf(lockupTxid, vout);
  assert.equal(spender?.txid, refunded.txid);
  const received = (await world.user.listUnspent(1)).filter((coin) => coin.txid === refunded.txid);
  assert.deepEqual(received.map((coin) => [coin.address, Math.round(coin.amount * 1e8)]), [[destination, 70_000 - (refunded.fee as number)]]);
  assert.deepEqual(failedRequests(world.log), []);
});
