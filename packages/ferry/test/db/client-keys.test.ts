// Migration 3 and the client key index behind restore: swaps stored before it are indexed by the keys their data
// holds, new swaps with their key rows in the same transaction, and lookups find every swap of a key set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIGRATIONS, UniqueViolation, createRepositories } from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

const key = (n: number) => `02${String(n).padStart(64, '0')}`;
const tree = { claimLeaf: { version: 192, output: 'aa' }, refundLeaf: { version: 192, output: 'bb' } };

onBothDialects('client key index', (h) => {
  test('migration 3 indexes the swaps stored before it by their client keys', async () => {
    const url = await h.freshUrl();
    const old = await h.open(url, { migrations: MIGRATIONS.filter((m) => m.version <= 2) });
    const insert = (id: string, type: string, hash: string, data: unknown) =>
      old.execute(
        `INSERT INTO swaps (id, type, pair, status, preimage_hash, data, version, created_at, updated_at)
         VALUES ($1, $2, 'BTC/BTC', 'swap.created', $3, $4, 1, 0, 0)`,
        [id, type, hash, JSON.stringify(data)],
      );
    await insert('sub', 'submarine', 'h1', { refundPublicKey: key(1), claimPublicKey: key(90), swapTree: tree });
    await insert('rev', 'reverse', 'h2', { claimPublicKey: key(2), refundPublicKey: key(91), swapTree: tree });
    await insert('chn', 'chain', 'h3', { user: { refundPublicKey: key(3), claimPublicKey: key(92) }, server: { claimPublicKey: key(4), refundPublicKey: key(93) } });
    // A client may claim and refund a chain swap with one key: one index row.
    await insert('ch2', 'chain', 'h4', { user: { refundPublicKey: key(8) }, server: { claimPublicKey: key(8) } });
    await old.close();

    const storage = createRepositories(await h.open(url));
    const found = await storage.swaps.findByClientKeys([key(1), key(2), key(3), key(4), key(8), key(90), key(91), key(92), key(93)]);
    assert.deepEqual(
      found.map((f) => [f.swap.id, f.publicKey]).sort(),
      [['ch2', key(8)], ['chn', key(3)], ['chn', key(4)], ['rev', key(2)], ['sub', key(1)]],
    );
  });

  test('a new swap is indexed with it, atomically: a refused insert leaves no key behind', async () => {
    const storage = await h.storage();
    await storage.swaps.insert({ id: 'a', type: 'submarine', pair: 'BTC/BTC', status: 'swap.created', preimageHash: 'h', clientPublicKeys: [key(5), key(5)] });
    await assert.rejects(
      storage.swaps.insert({ id: 'b', type: 'submarine', pair: 'BTC/BTC', status: 'swap.created', preimageHash: 'h', clientPublicKeys: [key(6)] }),
      UniqueViolation,
    );
    assert.deepEqual((await storage.swaps.findByClientKeys([key(5), key(6)])).map((f) => [f.swap.id, f.publicKey]), [['a', key(5)]]);
    assert.deepEqual(await storage.swaps.findByClientKeys([]), []);
    // Inside a caller's transaction the rows join that transaction.
    await storage.transaction((repos) =>
      repos.swaps.insert({ id: 'c', type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', preimageHash: 'h2', clientPublicKeys: [key(7)] }),
    );
    assert.deepEqual((await storage.swaps.findByClientKeys([key(7)])).map((f) => f.swap.id), ['c']);
  });
});
