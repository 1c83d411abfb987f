// An L-BTC submarine swap whose service is gone: the refund file alone (its PNG, with the blinding key that
// unblinds the lockup) and the devnet's Elements node get the coins back through the refund leaf once the timeout
// block is reached — 1440 Liquid blocks later, not one block earlier — blinded to the user wallet's address.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { satToBtc } from '../../src/chains/core-rpc.ts';
import { ClientStore, ElementsChain, RefundTooEarlyError, SEQUENCE, SwapClient, readRefundFile } from '../../src/client/index.ts';
import { startService, temporaryDir, type Service } from './support.ts';

let service: Service;
before(async () => {
  service = await startService();
});
after(async () => {
  await service?.close();
});

test('script-path refund of an L-BTC swap from its PNG refund file after the timeout, through an Elements node alone', async () => {
  const store = new ClientStore(temporaryDir('ferry-client-liquid-timeout-'));
  const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store, currency: 'L-BTC' });
  const { invoice } = await service.invoice('bob', 25_000);
  const record = await client.createSubmarine({ invoice });
  const height = await service.elements.getBlockCount();
  assert.ok(record.timeoutBlockHeight - height >= 1440, `the timeout is ${record.timeoutBlockHeight - height} Liquid blocks away`);
  // Underpaid: the service will not pay the invoice, and the coins wait for a refund.
  const lockupTxid = await service.liquidUser.sendToAddress(record.lockupAddress, satToBtc(20_000));
  await service.mineLiquid();

  const file = readRefundFile(record.refundFiles!.png);
  assert.equal(file.currency, 'L-BTC');
  assert.equal(file.blindingKey, record.blindingKey);

  // The service is gone: nothing answers at its address, chain data comes from the Elements node itself.
  const alone = new SwapClient({ serviceUrl: 'http://127.0.0.1:1', network: 'regtest', chain: new ElementsChain(service.elementsRpcUrlWithCredentials) });
  assert.equal(await alone.chainOf('L-BTC').feeRate(), 0.1, "the Elements node's fee floor");
  const destination = await service.liquidUser.getNewAddress();
  await service.mineLiquid(record.timeoutBlockHeight - 1 - (await service.elements.getBlockCount()));
  await assert.rejects(alone.refundFromFile(file, { destination, lockupTxid }), (error: unknown) => {
    assert.ok(error instanceof RefundTooEarlyError, String(error));
    assert.equal(error.height, record.timeoutBlockHeight - 1);
    assert.match(error.message, /possible in 1 block\(s\).*cannot reach the swap service/);
    return true;
  });

  await service.mineLiquid();
  const balanceBefore = await service.liquidUserBalance();
  const refund = await alone.refundFromFile(file, { destination, lockupTxid });
  assert.equal(refund.path, 'script');
  assert.equal(refund.lockTime, record.timeoutBlockHeight);
  const decoded = await service.elements.decodeRawTransaction(refund.hex);
  assert.equal(decoded.locktime, record.timeoutBlockHeight);
  assert.equal(decoded.vin[0].sequence, SEQUENCE);
  assert.equal(decoded.vin[0].txinwitness?.length, 3, 'signature, refund script, control block');
  assert.equal(decoded.vin[0].txid, lockupTxid);
  assert.equal(Number(refund.amount) + Number(refund.fee), 20_000);

  await service.mineLiquid();
  assert.ok(((await service.elements.getRawTransaction(refund.txid)).confirmations ?? 0) >= 1, 'the Elements node accepted and mined the refund');
  assert.equal((await service.liquidUserBalance()) - balanceBefore, refund.amount, 'the user wallet unblinds the refund');
});
