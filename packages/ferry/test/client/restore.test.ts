// The SDK's restore on both chains: swaps of every type created from one store's rescue key (a Liquid submarine swap,
// a Liquid reverse swap, a BTC → L-BTC chain swap) come back into an empty store from the mnemonic alone with the
// keys, preimages, trees, addresses, blinding keys and timeouts they were created with; a record the service lies
// about is skipped, not stored.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FileClientStore } from '@ferry/sdk/client/node/file-store.js';
import { SwapClient } from '@ferry/sdk/client/client.js';
import { RescueKey } from '@ferry/sdk/client/rescue-key.js';
import type { SwapRecord } from '@ferry/sdk/client/records.js';
import { TamperingProxy, startService, temporaryDir, type Service } from './support.ts';

let service: Service;

before(async () => {
  service = await startService();
});
after(async () => {
  await service?.close();
});

/** What a restore must give back: everything but what the client only learns by following the swap. */
function essentials(record: SwapRecord) {
  const { createdAt: _created, history: _history, status: _status, refundFiles: _files, ...rest } = record as SwapRecord & { refundFiles?: unknown };
  if (rest.type === 'chain') return { ...rest, pair: undefined, bip21: undefined };
  if (rest.type === 'submarine') return { ...rest, bip21: undefined, acceptZeroConf: undefined };
  return rest;
}

test('every type on both chains comes back from the mnemonic alone', async () => {
  const store = new FileClientStore(temporaryDir('ferry-restore-before-'));
  const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store, currency: 'L-BTC' });
  const { invoice } = await service.invoice('bob', 25_000);
  const made = [
    await client.createSubmarine({ invoice }),
    await client.createReverse({ invoiceAmount: 30_000 }),
    await client.createChain({ from: 'BTC', to: 'L-BTC', userLockAmount: 100_000 }),
  ];
  assert.deepEqual(made.map((r) => r.keyIndex), [0, 1, 2]);
  const mnemonic = store.rescueKey().mnemonic;

  const fresh = new FileClientStore(temporaryDir('ferry-restore-after-'));
  const restoring = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store: fresh });
  const result = await restoring.restore(RescueKey.fromMnemonic(mnemonic));
  assert.deepEqual(result.skipped, []);
  assert.equal(result.highestIndex, 2);
  assert.deepEqual(result.restored.map((r) => r.id), made.map((r) => r.id));
  for (const original of made) {
    const restored = fresh.load(original.id);
    assert.deepEqual(essentials(restored), { ...essentials(original), ...(original.type === 'submarine' && { expectedAmount: original.expectedAmount }) }, original.type);
  }
  assert.ok(fresh.load(made[1].id).blindingKey, 'the Liquid lockup is unblinded with the restored key');
  assert.equal(restoring.newSwapKey().keyIndex, 3, 'new swaps take the next unused index');
  assert.deepEqual((await restoring.restore()).known.sort(), made.map((r) => r.id).sort());
});

test('a restore answer whose address does not commit to our key is skipped', async () => {
  const store = new FileClientStore(temporaryDir('ferry-restore-liar-'));
  const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store });
  const record = await client.createReverse({ invoiceAmount: 20_000 });
  const proxy = await TamperingProxy.start(service.apiUrl);
  try {
    const stranger = await service.user.getNewAddress('', 'bech32m');
    proxy.rewrite = (method, path, body) =>
      method === 'POST' && path === '/v2/swap/restore'
        ? (body as Record<string, any>[]).map((swap) => ({ ...swap, claimDetails: { ...swap.claimDetails, lockupAddress: stranger } }))
        : body;
    const fresh = new FileClientStore(temporaryDir('ferry-restore-liar-after-'));
    const restoring = new SwapClient({ serviceUrl: proxy.url, network: 'regtest', store: fresh });
    const result = await restoring.restore(store.rescueKey());
    assert.deepEqual(result.restored, []);
    assert.equal(result.skipped[0].id, record.id);
    assert.match(result.skipped[0].reason, /does not commit to the swap tree/);
    assert.equal(fresh.has(record.id), false);
  } finally {
    await proxy.close();
  }
});
