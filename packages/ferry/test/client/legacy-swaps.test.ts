// The client SDK's v1 (legacy) submarine swaps against Ferry on the devnet: created through POST /createswap and
// checked (redeem script, address, amount), the refund file written in the spec's format (.json and PNG QR) before
// any coin moves; funded, Ferry pays alice and claims through the script; a failed one refunded from the PNG refund
// file alone after the timeout; a lying service refused. Asserted on the chain and on alice's channel balance.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { FileClientStore, RefundTooEarlyError, SwapClient, VerificationError, readRefundFile, swapChain } from '@ferry/sdk/client/node.js';
import { TamperingProxy, startService, temporaryDir, type Service } from './support.ts';

const otherRefundKey = (script: string) => `${script.slice(0, -70)}${script.slice(-70, -68) === '02' ? '03' : '02'}${script.slice(-68)}`;

describe('client SDK: v1 legacy submarine swaps', () => {
  let service: Service;
  let client: SwapClient;

  before(async () => {
    service = await startService();
    client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store: new FileClientStore(temporaryDir('ferry-legacy-client-')) });
  });
  after(async () => {
    await client?.close();
    await service?.close();
  });

  async function waitForStatus(id: string, statuses: string[], mine: () => Promise<unknown>): Promise<string> {
    for (let round = 1; round <= 300; round++) {
      const { status } = await client.status(id);
      if (statuses.includes(status)) return status;
      if (round % 10 === 0) await mine();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`swap ${id} never reached ${statuses.join(' / ')}`);
  }

  for (const currency of ['BTC', 'L-BTC'] as const) {
    const chain = () => service.chains[currency];

    test(`${currency}: the refund file has the spec's fields; funded, Ferry pays alice and claims through the redeem script`, async () => {
      const aliceBefore = await service.channelBalance('alice');
      const { invoice } = await service.invoice('alice', 30_000);
      const swap = await client.createLegacySubmarine({ invoice, currency });
      const fields = ['id', 'currency', 'redeemScript', 'privateKey', 'timeoutBlockHeight', ...(currency === 'L-BTC' ? ['blindingKey'] : [])];
      const written = JSON.parse(readFileSync(swap.refundFiles!.json, 'utf8'));
      assert.deepEqual(Object.keys(written), fields);
      assert.deepEqual(written, { ...swap.refundFile });
      assert.deepEqual(readRefundFile(swap.refundFiles!.png), written, 'the PNG QR code holds the same file');
      assert.equal(written.redeemScript, swap.redeemScript);

      const lockupTxid = await chain().user.sendToAddress(swap.address, satToBtc(swap.expectedAmount));
      await chain().mine();
      await waitForStatus(swap.id, ['transaction.claimed'], () => chain().mine());
      assert.equal((await service.channelBalance('alice')) - aliceBefore, 30_000, 'alice was paid once');
      const lockupScript = hex.encode(swapChain(currency).decodeAddress(swap.address, 'regtest').script);
      const vout = (await chain().node.getRawTransaction(lockupTxid)).vout.find((out) => out.scriptPubKey.hex === lockupScript)!.n;
      const spent = (await chain().node.getTxOut(lockupTxid, vout, true)) === null;
      assert.ok(spent, 'Ferry spent the lockup');
    });
  }

  test('BTC: an underpaid swap fails; its PNG refund file refunds alone through the script once the timeout is reached', async () => {
    const { invoice } = await service.invoice('alice', 40_000);
    const swap = await client.createLegacySubmarine({ invoice, currency: 'BTC' });
    const lockupTxid = await service.user.sendToAddress(swap.address, satToBtc(15_000));
    await service.mine();
    await waitForStatus(swap.id, ['transaction.lockupFailed'], () => service.mine());

    const file = readRefundFile(swap.refundFiles!.png);
    const destination = await service.user.getNewAddress();
    const viaService = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest' });
    await assert.rejects(viaService.refundFromFile(file, { destination, lockupTxid }), (error: unknown) => error instanceof RefundTooEarlyError);
    await service.mine(swap.timeoutBlockHeight - (await service.node.getBlockCount()));
    const refunded = await viaService.refundFromFile(file, { destination, lockupTxid });
    await viaService.close();
    assert.equal(refunded.path, 'script');
    assert.equal(Number(refunded.amount) + Number(refunded.fee), 15_000);
    await service.mine();
    const coin = (await service.user.listUnspent(1)).find((unspent) => unspent.txid === refunded.txid);
    assert.ok(coin, 'the refund is a confirmed coin of the user wallet');
    assert.equal(coin.address, destination);
    assert.equal(Math.round(coin.amount * 1e8), Number(refunded.amount));
  });

  test('a service lying about the redeem script, the address or the amount is refused before anything is written', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const lied = new SwapClient({ serviceUrl: proxy.url, network: 'regtest', store: new FileClientStore(temporaryDir('ferry-legacy-lied-')) });
    const lies: [(body: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
      // Another refund key in the script (its last 33 bytes before OP_ENDIF OP_CHECKSIG): the "refund" would pay someone else.
      [(body) => ({ ...body, redeemScript: otherRefundKey(String(body.redeemScript)) }), /redeem script/],
      [(body) => ({ ...body, address: '2N1LGaGg836mqSQqiuUBLfcyGBhyZbremDX' }), /does not pay the redeem script/],
      [(body) => ({ ...body, expectedAmount: Number(body.expectedAmount) + 5_000 }), /more than/],
    ];
    try {
      for (const [lie, refusal] of lies) {
        proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/createswap' ? lie(body as Record<string, unknown>) : body);
        const { invoice } = await service.invoice('alice', 20_000);
        await assert.rejects(lied.createLegacySubmarine({ invoice, currency: 'BTC' }), (error: unknown) => error instanceof VerificationError && refusal.test(error.message));
      }
    } finally {
      await lied.close();
      await proxy.close();
    }
  });
});
