// The client SDK's L-BTC swaps against a live Ferry and the devnet's Elements node: a reverse swap to L-BTC claimed
// through the key path (Elements sighash) into the user wallet, a submarine swap from L-BTC that Ferry completes by
// paying the invoice, a failed one refunded through the key path, and lying answers (blindingKey, address) refused
// before any coin moves. The effects are read off the Elements chain and the Lightning nodes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import { satToBtc } from '../../src/chains/core-rpc.ts';
import { confidentialAddress, decodeAddress } from '../../src/chains/liquid/network.ts';
import { ClientStore, SwapClient, VerificationError, destinationOf, readRefundFile, swapChain } from '../../src/client/index.ts';
import { TamperingProxy, followToEnd, startService, temporaryDir, type Service } from './support.ts';

describe('client SDK: L-BTC swaps against Ferry', () => {
  let service: Service;
  let client: SwapClient;
  let store: ClientStore;

  before(async () => {
    service = await startService();
    store = new ClientStore(temporaryDir('ferry-client-liquid-'));
    client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store, currency: 'L-BTC' });
  });
  after(async () => {
    if (process.env.SHOW_LOG) console.log(service?.log.join('\n'));
    await service?.close();
  });

  /** The vout of a Liquid transaction paying an address's script. */
  async function voutPaying(txid: string, address: string): Promise<number> {
    const { script } = decodeAddress(address, 'regtest');
    return Transaction.fromHex(await service.elements.getRawTransactionHex(txid)).outs.findIndex((out) => hex.encode(out.script) === hex.encode(script));
  }

  test('reverse swap to L-BTC: alice pays, the client claims through the key path into a confidential address of the user wallet', async () => {
    const aliceBefore = await service.channelBalance('alice');
    const balanceBefore = await service.liquidUserBalance();
    const destination = await service.liquidUser.getNewAddress();
    assert.match(destination, /^el1/);
    const record = await client.createReverse({ invoiceAmount: 50_000 });
    assert.equal(record.currency, 'L-BTC');
    assert.match(record.lockupAddress, /^el1/);
    assert.match(record.blindingKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(store.load(record.id).blindingKey, record.blindingKey, 'the blinding key is stored with the swap');

    const following = followToEnd(client, record, { destination });
    const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
    const { result, events } = await following;
    assert.equal(result.success, true, result.message);
    assert.equal((await payment).status, 'SUCCEEDED');
    const claimed = events.find((e) => e.type === 'claimed');
    assert.ok(claimed && claimed.type === 'claimed');
    assert.equal(claimed.claim.path, 'key');
    assert.equal(Number(claimed.claim.amount) + Number(claimed.claim.fee), record.onchainAmount);
    assert.ok(claimed.claim.fee < 100n, `a Liquid fee at 0.1 sat/vB: ${claimed.claim.fee}`);

    await service.mineLiquid();
    const tx = await service.elements.getRawTransaction(claimed.claim.txid);
    assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed on the Elements chain');
    assert.equal(tx.vin[0].txinwitness?.length, 1, 'a key-path spend: one Schnorr signature');
    assert.equal((await service.liquidUserBalance()) - balanceBefore, claimed.claim.amount, 'the user wallet unblinds the claim');
    assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);
    assert.equal(store.load(record.id).status, 'invoice.settled');
  });

  test('reverse swap to L-BTC without the service cooperating: script-path claim with the preimage, and the invoice still settles', async () => {
    const destination = await service.liquidUser.getNewAddress();
    const record = await client.createReverse({ invoiceAmount: 20_000 });
    const following = followToEnd(client, record, { destination, cooperative: false });
    const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
    const { result, events } = await following;
    assert.equal(result.success, true, result.message);
    assert.equal((await payment).status, 'SUCCEEDED');
    const claimed = events.find((e) => e.type === 'claimed');
    assert.ok(claimed && claimed.type === 'claimed' && claimed.claim.path === 'script');
    await service.mineLiquid();
    const tx = await service.elements.getRawTransaction(claimed.claim.txid);
    assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed');
    const witness = tx.vin[0].txinwitness!;
    assert.equal(witness.length, 4, 'signature, preimage, claim script, control block');
    assert.equal(witness[1], record.preimage);
  });

  test('submarine swap from L-BTC: the user wallet funds the confidential address, Ferry pays alice and claims the lockup', async () => {
    const aliceBefore = await service.channelBalance('alice');
    const { invoice } = await service.invoice('alice', 30_000);
    const record = await client.createSubmarine({ invoice });
    assert.equal(record.expectedAmount, 30_000 + 30 + 19);
    assert.match(record.bip21 ?? '', /^liquidtestnet:el1/);
    assert.equal(readRefundFile(record.refundFiles!.json).blindingKey, record.blindingKey, 'the refund file carries the blinding key');

    const balanceBefore = await service.liquidUserBalance();
    const following = followToEnd(client, record, { destination: await service.liquidUser.getNewAddress() });
    const lockupTxid = await service.liquidUser.sendToAddress(record.lockupAddress, satToBtc(record.expectedAmount));
    await service.mineLiquid();
    const { result, events } = await following;
    assert.equal(result.success, true, result.message);
    assert.ok(events.some((e) => e.type === 'cosigned'));
    assert.equal((await service.channelBalance('alice')) - aliceBefore, 30_000);
    assert.ok(balanceBefore - (await service.liquidUserBalance()) >= BigInt(record.expectedAmount));
    const vout = await voutPaying(lockupTxid, record.lockupAddress);
    assert.ok(vout >= 0);
    assert.equal(await service.elements.getTxOut(lockupTxid, vout, true), null, 'Ferry spent the lockup');
    assert.equal(store.load(record.id).status, 'transaction.claimed');
  });

  test('an underpaid L-BTC submarine swap fails and is refunded through the key path at once, to a confidential address', async () => {
    const { invoice } = await service.invoice('alice', 40_000);
    const record = await client.createSubmarine({ invoice });
    const destination = await service.liquidUser.getNewAddress();
    const following = followToEnd(client, record, { destination });
    const lockupTxid = await service.liquidUser.sendToAddress(record.lockupAddress, satToBtc(15_000));
    await service.mineLiquid();
    const { result, events } = await following;
    assert.equal(result.success, false);
    assert.equal(result.status, 'transaction.lockupFailed');
    const refunded = events.find((e) => e.type === 'refunded');
    assert.ok(refunded && refunded.type === 'refunded', events.map((e) => e.type).join(', '));
    assert.equal(refunded.refund.path, 'key');
    assert.equal(refunded.refund.lockTime, 0);
    assert.equal(Number(refunded.refund.amount) + Number(refunded.refund.fee), 15_000);

    await service.mineLiquid();
    const tx = await service.elements.getRawTransaction(refunded.refund.txid);
    assert.ok((tx.confirmations ?? 0) >= 1, 'the refund confirmed');
    assert.equal(tx.vin[0].txid, lockupTxid);
    const coin = (await service.liquidUser.listUnspent(1)).find((u) => u.txid === refunded.refund.txid);
    assert.ok(coin, 'the refund is a confirmed coin of the user wallet');
    assert.equal(Math.round(coin.amount * 1e8), Number(refunded.refund.amount));
    const stored = store.load(record.id);
    assert.equal(stored.type === 'submarine' && stored.refund?.txid, refunded.refund.txid);
  });

  test('a tampered blindingKey or lockup address is refused before anything is funded or paid, and nothing is kept', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const liarStore = new ClientStore(temporaryDir('ferry-client-liquid-liar-'));
    const viaProxy = new SwapClient({ serviceUrl: proxy.url, network: 'regtest', store: liarStore, currency: 'L-BTC' });
    const aliceBefore = await service.channelBalance('alice');
    const userBefore = await service.liquidUserBalance();
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
      const stranger = await service.liquidUser.getNewAddress();
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/reverse' ? { ...(body as object), lockupAddress: stranger } : body);
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), refusedWith(/lockup address .* does not commit to the swap tree and both keys .* its script [0-9a-f]+ is not/));

      // No blinding key at all.
      proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/reverse' ? { ...(body as object), blindingKey: undefined } : body);
      await assert.rejects(viaProxy.createReverse({ invoiceAmount: 25_000 }), refusedWith(/no blindingKey in the answer/));

      assert.deepEqual(liarStore.list(), [], 'refused swaps are not stored');
      assert.equal(await service.channelBalance('alice'), aliceBefore);
      assert.equal(await service.liquidUserBalance(), userBefore);
    } finally {
      await proxy.close();
    }
  });

  test('claims and refunds of L-BTC swaps pay only to confidential Liquid addresses', async () => {
    const record = await client.createReverse({ invoiceAmount: 20_000 });
    const bitcoin = await service.user.getNewAddress();
    await assert.rejects(client.claim(record, { destination: bitcoin }), /is a Bitcoin address, but a swap on L-BTC pays to a confidential Liquid address/);
    const { unconfidential } = decodeAddress(await service.liquidUser.getNewAddress(), 'regtest');
    await assert.rejects(client.claim(record, { destination: unconfidential }), /is not confidential, but a swap on L-BTC pays to a confidential Liquid address/);
    assert.throws(() => destinationOf(swapChain('BTC'), unconfidential, 'regtest'), /is a Liquid address, but a swap on BTC pays to a Bitcoin address/);
  });
});
