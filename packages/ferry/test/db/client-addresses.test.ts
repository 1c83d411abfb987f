// Migration 4 and the client EVM address index behind restore by address: contract swaps stored before it are
// indexed by the client's addresses their data holds (never Ferry's), new swaps with their rows in the same
// transaction, a transition adds the refund address a user's lock named, and a lookup finds every swap of an address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIGRATIONS, createRepositories } from '../../src/db/index.ts';
import { onBothDialects } from './harness.ts';

const address = (n: number) => `0x${String(n).padStart(40, '0')}`;
const mixed = (n: number) => `0xAbC${String(n).padStart(37, '0')}`;
const ferry = address(99);

onBothDialects('client EVM address index', (h) => {
  test('migration 4 indexes the contract swaps stored before it by their client addresses', async () => {
    const url = await h.freshUrl();
    const old = await h.open(url, { migrations: MIGRATIONS.filter((m) => m.version <= 3) });
    const insert = (id: string, type: string, hash: string, data: unknown) =>
      old.execute(
        `INSERT INTO swaps (id, type, pair, status, preimage_hash, data, version, created_at, updated_at)
         VALUES ($1, $2, 'RBTC/BTC', 'swap.created', $3, $4, 1, 0, 0)`,
        [id, type, hash, JSON.stringify(data)],
      );
    const lockup = (refundAddress: string) => ({ txid: 't', vout: 0, contract: { refundAddress, claimAddress: ferry } });
    await insert('sub', 'submarine', 'h1', { contract: { address: address(50), claimAddress: ferry }, lockup: lockup(mixed(1)) });
    await insert('sub-unlocked', 'submarine', 'h2', { contract: { address: address(50), claimAddress: ferry } });
    await insert('rev', 'reverse', 'h3', { contract: { address: address(50), claimAddress: mixed(2), refundAddress: ferry } });
    await insert('chn-to', 'chain', 'h4', { user: { chain: 'BTC' }, server: { contract: { address: address(50), claimAddress: address(3), refundAddress: ferry } } });
    await insert('chn-from', 'chain', 'h5', { user: { contract: { address: address(50), claimAddress: ferry } }, server: { chain: 'BTC' }, lockup: lockup(address(4)) });
    // A UTXO swap's lockup has no contract values: nothing to index.
    await insert('btc', 'submarine', 'h6', { refundPublicKey: '02aa', lockup: { txid: 'u', vout: 1 } });
    await old.close();

    const storage = createRepositories(await h.open(url));
    const ids = async (a: string) => (await storage.swaps.findByClientAddress(a)).map((s) => s.id);
    assert.deepEqual(await ids(mixed(1).toLowerCase()), ['sub']);
    assert.deepEqual(await ids(mixed(2).toLowerCase()), ['rev']);
    assert.deepEqual(await ids(address(3)), ['chn-to']);
    assert.deepEqual(await ids(address(4)), ['chn-from']);
    assert.deepEqual(await ids(ferry), [], "Ferry's own account is nobody's restore");
  });

  test('a new swap is indexed with it, and a transition adds an address once', async () => {
    const storage = await h.storage();
    await storage.swaps.insert({ id: 'a', type: 'reverse', pair: 'BTC/RBTC', status: 'swap.created', preimageHash: 'h', clientAddresses: [address(5), address(5)] });
    await storage.swaps.insert({ id: 'b', type: 'submarine', pair: 'RBTC/BTC', status: 'swap.created', preimageHash: 'h2' });
    assert.deepEqual((await storage.swaps.findByClientAddress(address(5))).map((s) => s.id), ['a']);
    for (const version of [1, 2]) {
      const result = await storage.saveTransition({ id: 'b', expectedStatus: 'swap.created', expectedVersion: version, clientAddresses: [address(5), address(6)] }, []);
      assert.equal(result.applied, true);
    }
    assert.deepEqual((await storage.swaps.findByClientAddress(address(5))).map((s) => s.id), ['a', 'b']);
    assert.deepEqual((await storage.swaps.findByClientAddress(address(6))).map((s) => s.id), ['b']);
    // A refused transition (stale version) adds nothing.
    await storage.saveTransition({ id: 'b', expectedStatus: 'swap.created', expectedVersion: 1, clientAddresses: [address(7)] }, []);
    assert.deepEqual(await storage.swaps.findByClientAddress(address(7)), []);
  });
});
