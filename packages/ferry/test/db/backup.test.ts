// `ferry admin backup` and `ferry admin restored` on storage, without a devnet: the SQLite backup is one committed
// state while writes go on, private, never overwrites, refuses bad paths; PostgreSQL is refused naming pg_dump; the
// preparation of a restored database drops signing sessions, skips key indexes on both engines, and refuses while a
// Ferry answers on the admin socket. The restore drills (test/swaps/restore-drill-*) run the whole day.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupDatabase } from '../../src/admin/backup.ts';
import { prepareRestored, RESTORE_KEY_INDEX_SKIP } from '../../src/admin/restored.ts';
import { AdminError } from '../../src/admin/service.ts';
import { openStorage, SWAP_KEY_INDEX } from '../../src/db/index.ts';
import { Harness, onBothDialects } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'ferry-backup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an SQLite backup taken while swaps are written is one committed state, 0600, and never overwrites', async () => {
  const storage = await openStorage(`sqlite:${join(dir, 'live.sqlite')}`);
  const file = join(dir, 'backup.sqlite');
  try {
    const insert = (i: number) =>
      storage.swaps.insert({ id: `s${i}`, type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', preimageHash: `h${i}`, clientPublicKeys: [`02${String(i).padStart(64, '0')}`] });
    for (let i = 0; i < 200; i++) await insert(i);
    // Writes keep coming while the copy runs, between its steps (SQLite answers at once: the writer yields to them).
    let written = 200;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await insert(written++);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const taken = await backupDatabase(storage.database, file);
    writing = false;
    await writer;
    assert.equal(taken.file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(taken.bytes, statSync(file).size);

    const copy = await openStorage(`sqlite:${file}`);
    try {
      const rows = await copy.database.query<{ id: string }>('SELECT id FROM swaps');
      const ids = new Set(rows.map((row) => row.id));
      // A prefix of the writes, without a gap: the state after some commit.
      for (let i = 0; i < ids.size; i++) assert.ok(ids.has(`s${i}`), `s${i} is in a copy of ${ids.size} swaps`);
      assert.ok(ids.size >= 200 && ids.size <= written);
    } finally {
      await copy.close();
    }

    await assert.rejects(backupDatabase(storage.database, file), (error: AdminError) => error.status === 409 && /exists/.test(error.message));
    await assert.rejects(backupDatabase(storage.database, 'relative.sqlite'), (error: AdminError) => error.status === 400);
    await assert.rejects(backupDatabase(storage.database, join(dir, 'missing', 'b.sqlite')), (error: AdminError) => error.status === 400 && /no such directory/.test(error.message));
  } finally {
    await storage.close();
  }
});

test('a PostgreSQL database is not backed up by Ferry: the answer names pg_dump', async () => {
  const harness = new Harness('postgres');
  try {
    const storage = await harness.storage();
    await assert.rejects(backupDatabase(storage.database, join(dir, 'pg.sqlite')), (error: AdminError) => error.status === 409 && /pg_dump/.test(error.message));
  } finally {
    await harness.cleanup();
  }
});

onBothDialects('preparing a restored database', (harness) => {
  test('drops every signing session and skips the key indexes handed out since the backup', async () => {
    const storage = await harness.storage();
    await storage.counters.nextSwapKeyIndexes(16);
    await storage.swaps.insert({ id: 'r1', type: 'reverse', pair: 'BTC/BTC', status: 'transaction.mempool', preimageHash: 'h', clientPublicKeys: [] });
    await storage.signingSessions.open({ swapId: 'r1', purpose: 'claim', publicNonce: '02', sealedSecretNonce: '03', message: '04', transactionHex: '05' });
    const prepared = await prepareRestored(storage, join(dir, `absent-${harness.dialect}.sock`));
    assert.deepEqual(prepared, { signingSessionsDropped: 1, nextSwapKeyIndex: 16 + RESTORE_KEY_INDEX_SKIP });
    assert.equal(await storage.signingSessions.get('r1', 'claim'), undefined);
    assert.equal(await storage.counters.nextSwapKeyIndexes(1), 16 + RESTORE_KEY_INDEX_SKIP);
    assert.equal(await storage.counters.peek(SWAP_KEY_INDEX), 17 + RESTORE_KEY_INDEX_SKIP);
  });
});

test('the preparation refuses while a Ferry answers on the admin socket', async () => {
  const socket = join(dir, 'live.sock');
  const server = createServer().listen(socket);
  await new Promise((resolve) => server.once('listening', resolve));
  const storage = await openStorage(`sqlite:${join(dir, 'refuse.sqlite')}`);
  try {
    await assert.rejects(prepareRestored(storage, socket), /another Ferry answers/);
    assert.equal(await storage.counters.peek(SWAP_KEY_INDEX), 0, 'nothing changed');
  } finally {
    await storage.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
