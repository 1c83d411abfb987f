// What is Liquid's own in the client SDK's L-BTC swaps (whole swaps on both chains are in swaps.test.ts): the blinding
// key kept with the swap and in its refund file, lying answers (blindingKey, confidential address) refused before
// any coin moves, and claims and refunds paying only to confidential Liquid addresses.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { confidentialAddress, decodeAddress } from '@ferry/sdk/chains/liquid/network.js';
import { FileClientStore, SwapClient, VerificationError, destinationOf, readRefundFile, swapChain } from '@ferry/sdk/client/node.js';
import { TamperingProxy, startService, temporaryDir, type Service } from './support.ts';

describe('client SDK: L-BTC swaps against Ferry', () => {
  let service: Service;
  let client: SwapClient;
  let store: FileClientStore;

  before(async () => {
    service = await startService();
    store = new FileClientStore(temporaryDir('ferry-client-liquid-'));
    client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store, currency: 'L-BTC' });
  });
  after(async () => {
    await service?.close();
  });

  test('an L-BTC swap keeps its blinding key: in the record, in the refund file, and its payment URI names L-BTC', async () => {
    const { invoice } = await service.invoice('alice', 30_000);
    const record = await client.createSubmarine({ invoice });
    assert.equal(record.currency, 'L-BTC');
    assert.match(record.lockupAddress, /^el1/);
    assert.match(record.blindingKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(store.load(record.id).blindingKey, record.blindingKey);
    const file = readRefundFile(record.refundFiles!.png);
    assert.deepEqual([file.currency, file.blindingKey], ['L-BTC', record.blindingKey]);
    assert.match(record.bip21 ?? '', /^liquidtestnet:el1\w+\?amount=0\.00030049&.*assetid=5ac9f65c/);
  });

  test('a tampered blindingKey or lockup address is refused before anything is funded or paid, and nothing is kept', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const liarStore = new FileClientStore(temporaryDir('ferry-client-liquid-liar-'));
    const viaProxy = new SwapClient({ serviceUrl: proxy.url, network: 'regtest', store: liarStore, currency: 'L-BTC' });
    const aliceBefore = await service.channelBalance('alice');
    const userBefore = await service.liquid.userBalance();
    const otherKey = () => hex.encode(secp256k1.utils.randomSecretKey());
    const refusedWith = (message: RegExp) => (error: unknown) => {
      assert.ok(error instanceof VerificationError, String(error));
      assert.match(error.message, message);
      return true;
    };
    try {
      // A blindingKey that is not the one the address is blinded to: the client could not read its own lockup.
      const { invoice } = await service.invoice('alice', 30_000);
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/submarine' ? { ...(body as object), blindingKey: otherKey() } : body);
      await assert.rejects(viaProxy.createSubmarine({ invoice }), refusedWith(/lockup address el1\w+ is blinded to [0-9a-f]{66}, not to [0-9a-f]{66}, the public key of the blindingKey/));

      // The right script, blinded to a key of the service's choosing (with a matching blindingKey kept from us).
      proxy.rewrite = (method, path, body) => {
        if (method !== 'POST' || path !== '/v2/swap/reverse') return body;
        const answer = body as { lockupAddress: string };
        const { script } = decodeAddress(answer.lockupAddress, 'regtest');
        return { ...answer, lockupAddress: confidentialAddress(script, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'regtest') };
      };
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), refusedWith(/is blinded to .* not to .* the public key of the blindingKey the service returned/));

      // An address of the user wallet's: a different script (not the MuSig2 key tweaked with the tree).
      const stranger = await service.liquid.user.getNewAddress();
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/reverse' ? { ...(body as object), lockupAddress: stranger } : body);
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), refusedWith(/lockup address .* does not commit to the swap tree and both keys .* its script [0-9a-f]+ is not/));

      // No blinding key at all.
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/reverse' ? { ...(body as object), blindingKey: undefined } : body);
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), refusedWith(/no blindingKey in the answer/));

      assert.deepEqual(liarStore.list(), [], 'refused swaps are not stored');
      assert.equal(await service.channelBalance('alice'), aliceBefore);
      assert.equal(await service.liquid.userBalance(), userBefore);
    } finally {
      await proxy.close();
    }
  });

  test('claims and refunds of L-BTC swaps pay only to confidential Liquid addresses', async () => {
    const record = await client.createReverse({ invoiceAmount: 20_000 });
    const bitcoin = await service.user.getNewAddress();
    await assert.rejects(client.claim(record, { destination: bitcoin }), /is a Bitcoin address, but a swap on L-BTC pays to a confidential Liquid address/);
    const { unconfidential } = decodeAddress(await service.liquid.user.getNewAddress(), 'regtest');
    await assert.rejects(client.claim(record, { destination: unconfidential }), /is not confidential, but a swap on L-BTC pays to a confidential Liquid address/);
    assert.throws(() => destinationOf(swapChain('BTC'), unconfidential, 'regtest'), /is a Liquid address, but a swap on BTC pays to a Bitcoin address/);
  });
});
