// The client store over each storage the core ships (memory, a browser's localStorage) keeps what the file store
// keeps, in the same entries: records in creation order, one rescue key whose indices are handed out once, refund
// files as the spec's JSON and a PNG whose QR code holds it. The file store's own format and modes are
// refund-file.test.ts's and rescue-key.test.ts's; a real browser's localStorage is the browser test's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserStorage, ClientStore, MemoryStorage, parseRefundFileBytes, readQrPng, refundFileJson, RescueKey, type ClientStorage, type RefundFile, type SwapRecord, type WebStorageLike } from '@ferry/sdk/client/index.js';
import { FileClientStore } from '@ferry/sdk/client/node.js';
import { temporaryDir } from './support.ts';

/** The Web Storage interface as the HTML standard defines it (string keys and values, key(i) in some stable order). */
class SpecStorage implements WebStorageLike {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
}

const record = (id: string, createdAt: string) => ({ id, createdAt, type: 'reverse', status: 'swap.created' }) as unknown as SwapRecord;
const file: RefundFile = { id: 'Refund123', currency: 'BTC', privateKey: 'ab'.repeat(32), timeoutBlockHeight: 1234, redeemScript: '51' };

function exercise(store: ClientStore, storage: ClientStorage): void {
  assert.equal(store.has('Later1'), false);
  assert.throws(() => store.load('Later1'), new RegExp(`no swap Later1 in the client store ${storage.location}`));
  store.save(record('Later1', '2026-01-02T00:00:00Z'));
  store.save(record('Early1', '2026-01-01T00:00:00Z'));
  assert.equal(store.has('Later1'), true);
  assert.deepEqual(store.load('Early1'), record('Early1', '2026-01-01T00:00:00Z'));
  assert.deepEqual(
    store.list().map((r) => r.id),
    ['Early1', 'Later1'],
  );
  assert.throws(() => store.save(record('../escape', '2026-01-01T00:00:00Z')), /not a swap id/);

  const key = store.rescueKey();
  assert.equal(store.rescueKey().mnemonic, key.mnemonic, 'made once');
  assert.deepEqual([store.takeKeyIndex(), store.takeKeyIndex(), store.takeKeyIndex()], [0, 1, 2]);
  store.reserveKeyIndex(9);
  assert.equal(store.takeKeyIndex(), 10);
  assert.equal(store.adoptRescueKey(RescueKey.generate()), false, 'another rescue key is not adopted over this one');

  const where = store.writeRefundFiles(file);
  assert.equal(storage.read('refunds/Refund123.json'), refundFileJson(file));
  assert.ok(where.json.includes('Refund123.json') && where.png.includes('Refund123.png'));
  assert.deepEqual(storage.list('refunds').sort(), ['Refund123.json', 'Refund123.png']);
}

describe('client stores', () => {
  test('in memory', () => {
    const storage = new MemoryStorage();
    exercise(new ClientStore(storage), storage);
    const png = storage.entries.get('refunds/Refund123.png') as Uint8Array;
    assert.deepEqual(parseRefundFileBytes(png), file, 'the PNG holds the refund file');
    assert.deepEqual(JSON.parse(storage.read('rescue-key.json')!).nextIndex, 11);
  });

  test("in a browser's localStorage, under a prefix, the PNG as a data: URL", () => {
    const web = new SpecStorage();
    web.setItem('another-app/swaps/Later1.json', 'not ours');
    const storage = new BrowserStorage('ferry-client/', web);
    exercise(new ClientStore(storage), storage);
    const url = web.getItem('ferry-client/refunds/Refund123.png')!;
    assert.match(url, /^data:image\/png;base64,/);
    const png = Uint8Array.from(atob(url.slice(url.indexOf(',') + 1)), (c) => c.charCodeAt(0));
    assert.equal(new TextDecoder().decode(readQrPng(png)), JSON.stringify(file));
    assert.equal(web.getItem('another-app/swaps/Later1.json'), 'not ours');
    assert.throws(() => new BrowserStorage(), /no localStorage here/, 'Node has none: said, not a crash later');
  });

  test('in files, the same entries as files under the directory', () => {
    const dir = temporaryDir('ferry-file-store-');
    const store = new FileClientStore(dir);
    exercise(store, store.storage);
    assert.equal(readFileSync(join(dir, 'swaps', 'Early1.json'), 'utf8'), JSON.stringify(record('Early1', '2026-01-01T00:00:00Z'), null, 2) + '\n');
    assert.deepEqual(parseRefundFileBytes(readFileSync(join(dir, 'refunds', 'Refund123.png'))), file);
  });
});
