// A submarine swap whose service is gone: the refund file alone (its PNG, even) and a node — Bitcoin Core for BTC,
// Elements for L-BTC, whose file carries the blinding key that unblinds the lockup — get the coins back through
// the refund leaf once the timeout block is reached (1440 blocks on Liquid) — not one block earlier — with nLockTime
// at the timeout and a non-final sequence, and the devnet (which verifies scripts like Core and elementsd) takes it.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Scripts, swapScript } from 'boltz-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import {
  BitcoinCoreChain,
  FileClientStore,
  ElementsChain,
  RefundTooEarlyError,
  SEQUENCE,
  SwapClient,
  addressOfScript,
  newKeyPair,
  newPreimage,
  readRefundFile,
  swapChain,
  type RefundFile,
} from '@ferry/sdk/client/node.js';
import { startService, temporaryDir, type Service } from './support.ts';

let service: Service;
before(async () => {
  service = await startService();
});
after(async () => {
  await service?.close();
});

const nodes = { BTC: BitcoinCoreChain, 'L-BTC': ElementsChain } as const;

for (const currency of ['BTC', 'L-BTC'] as const) {
  test(`${currency}: script-path refund from a PNG refund file after the timeout, without the service`, async () => {
    const chain = service.chains[currency];
    const store = new FileClientStore(temporaryDir('ferry-client-timeout-'));
    const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store, currency });
    const { invoice } = await service.invoice('bob', 25_000);
    const record = await client.createSubmarine({ invoice });
    // Underpaid: the service will not pay the invoice, and the coins wait for a refund.
    const lockupTxid = await chain.user.sendToAddress(record.lockupAddress, satToBtc(20_000));
    await chain.mine();

    const file = readRefundFile(record.refundFiles!.png);
    assert.equal(file.id, record.id);
    assert.equal(file.currency, currency);
    assert.equal(file.timeoutBlockHeight, record.timeoutBlockHeight);
    assert.equal(file.blindingKey, record.blindingKey, 'on Liquid, the key that unblinds the lockup');

    // The service is gone: nothing answers at its address, chain data comes from the node itself.
    const alone = new SwapClient({ serviceUrl: 'http://127.0.0.1:1', network: 'regtest', chain: new nodes[currency](chain.rpcUrlWithCredentials) });
    const [rate, floor] = [await alone.chainOf(currency).feeRate(), swapChain(currency).minFeeRate];
    assert.ok(rate >= floor && rate < 10 * floor, `the node's estimate ${rate} sat/vB, on the chain's own floor (${floor})`);
    const destination = await chain.user.getNewAddress();
    await chain.mine(record.timeoutBlockHeight - 1 - (await chain.node.getBlockCount()));
    await assert.rejects(alone.refundFromFile(file, { destination, lockupTxid }), (error: unknown) => {
      assert.ok(error instanceof RefundTooEarlyError);
      assert.equal(error.timeoutBlockHeight, record.timeoutBlockHeight);
      assert.equal(error.height, record.timeoutBlockHeight - 1);
      assert.match(error.message, /possible in 1 block\(s\).*cannot reach the swap service/);
      return true;
    });

    await chain.mine();
    const balanceBefore = await chain.userBalance();
    const refund = await alone.refundFromFile(file, { destination, lockupTxid });
    assert.equal(refund.path, 'script');
    assert.equal(refund.lockTime, record.timeoutBlockHeight);
    const decoded = await chain.node.decodeRawTransaction(refund.hex);
    assert.equal(decoded.locktime, record.timeoutBlockHeight);
    assert.equal(decoded.vin[0].sequence, SEQUENCE);
    assert.ok(decoded.vin[0].sequence < 0xffffffff, 'a final sequence would disable the lock time');
    assert.equal(decoded.vin[0].txinwitness?.length, 3, 'signature, refund script, control block');
    assert.equal(decoded.vin[0].txid, lockupTxid);

    await chain.mine();
    const mined = await chain.node.getRawTransaction(refund.txid);
    assert.ok((mined.confirmations ?? 0) >= 1, 'the devnet accepted and mined the refund');
    const coin = (await chain.user.listUnspent(1)).find((u) => u.txid === refund.txid);
    assert.ok(coin, 'the refund is a coin of the user wallet');
    assert.equal(Math.round(coin.amount * 1e8) + Number(refund.fee), 20_000);
    assert.equal((await chain.userBalance()) - balanceBefore, refund.amount);
  });
}

test("a legacy refund file (P2WSH redeemScript, as older clients wrote them) refunds through the script's timeout branch", async () => {
  const client = newKeyPair();
  const timeoutBlockHeight = (await service.node.getBlockCount()) + 3;
  const redeemScript = swapScript(newPreimage().preimageHash, newKeyPair().publicKey, client.publicKey, timeoutBlockHeight);
  const lockupTxid = await service.user.sendToAddress(addressOfScript(Scripts.p2wshOutput(redeemScript), 'regtest'), satToBtc(12_345));
  const file: RefundFile = { id: 'legacy1', currency: 'BTC', redeemScript: hex.encode(redeemScript), privateKey: hex.encode(client.privateKey), timeoutBlockHeight };
  const alone = new SwapClient({ serviceUrl: 'http://127.0.0.1:1', network: 'regtest', chain: new BitcoinCoreChain(service.rpcUrlWithCredentials) });
  const destination = await service.user.getNewAddress();
  await assert.rejects(alone.refundFromFile(file, { destination, lockupTxid }), RefundTooEarlyError);
  await service.mine(3);
  const refund = await alone.refundFromFile(file, { destination, lockupTxid });
  assert.equal(refund.path, 'script');
  assert.equal(refund.lockTime, timeoutBlockHeight);
  await service.mine();
  assert.ok(((await service.node.getRawTransaction(refund.txid)).confirmations ?? 0) >= 1, 'the devnet accepted and mined the refund');
  assert.equal(Number(refund.amount) + Number(refund.fee), 12_345);
});
