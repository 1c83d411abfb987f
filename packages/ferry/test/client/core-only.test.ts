// The SDK's core alone, as a browser bundle has it: imported from src/client/index.ts only (no Node entry, so no
// `ws`: Node 20 has no WebSocket), its swaps kept in a MemoryStorage. A reverse swap on BTC runs to its claim,
// followed by polling; the stream says once that it has no socket.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientStore, MemoryStorage, SwapClient, followSwap, parseRefundFileBytes, type FollowEvent } from '@ferry/sdk/client/index.js';
import { startService, type Service } from './support.ts';

let service: Service;

before(async () => {
  service = await startService();
});
after(async () => {
  await service?.close();
});

test('a reverse swap with the core alone: kept in memory, followed by polling, claimed through the key path', async () => {
  assert.equal((globalThis as { WebSocket?: unknown }).WebSocket, undefined, 'this Node has no WebSocket of its own');
  const storage = new MemoryStorage();
  const store = new ClientStore(storage);
  const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store });
  const chain = service.chains.BTC;
  const destination = await chain.user.getNewAddress();
  const record = await client.createReverse({ invoiceAmount: 30_000 });
  assert.deepEqual(storage.list('swaps'), [`${record.id}.json`], 'stored before the invoice is shown');

  const stream = client.statusStream({ pollIntervalMs: 200 });
  const errors: string[] = [];
  stream.on('error', (error) => errors.push(error.message));
  const events: FollowEvent[] = [];
  try {
    const following = followSwap(client, record, { stream, destination: async () => destination, onEvent: (event) => events.push(event) });
    const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 30 });
    const result = await following;
    assert.equal(result.success, true, result.message);
    assert.equal((await payment).status, 'SUCCEEDED');
  } finally {
    stream.close();
  }
  const claimed = events.find((e) => e.type === 'claimed');
  assert.ok(claimed && claimed.type === 'claimed' && claimed.claim.path === 'key');
  assert.equal(stream.connection, 'closed');
  assert.deepEqual(errors.filter((message) => /no WebSocket/.test(message)).length, 1, `said once: ${errors.join('; ')}`);
  assert.equal(store.load(record.id).status, 'invoice.settled');

  await chain.mine();
  const tx = await chain.node.getRawTransaction(claimed.claim.txid);
  assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed');
});

test('a submarine swap with the core alone writes its refund files into the storage: the JSON and a PNG holding it', async () => {
  const storage = new MemoryStorage();
  const client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store: new ClientStore(storage) });
  const { invoice } = await service.invoice('alice', 15_000);
  const record = await client.createSubmarine({ invoice });
  assert.deepEqual(record.refundFiles, { json: `refunds/${record.id}.json`, png: `refunds/${record.id}.png` });
  const json = JSON.parse(storage.read(record.refundFiles!.json)!);
  assert.equal(json.id, record.id);
  assert.deepEqual(parseRefundFileBytes(storage.entries.get(record.refundFiles!.png) as Uint8Array), json);
});
