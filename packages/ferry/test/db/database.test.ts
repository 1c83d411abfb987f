import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import {
  DatabaseError,
  ForeignKeyViolation,
  TransactionAborted,
  UniqueViolation,
  openDatabase,
  parseDatabaseUrl,
  type Database,
} from '../../src/db/index.ts';
import { Harness, POSTGRES_URL, gate, onBothDialects } from './harness.ts';

async function scratch(db: Database): Promise<void> {
  await db.execute('CREATE TABLE parent (id TEXT NOT NULL PRIMARY KEY, n BIGINT, flag INTEGER, note TEXT)');
  await db.execute('CREATE TABLE child (id INTEGER NOT NULL PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent (id))');
}

test('database URLs pick the dialect', () => {
  assert.deepEqual(parseDatabaseUrl('sqlite::memory:'), { dialect: 'sqlite', path: ':memory:' });
  assert.deepEqual(parseDatabaseUrl('sqlite:data/ferry.db'), { dialect: 'sqlite', path: 'data/ferry.db' });
  assert.deepEqual(parseDatabaseUrl('sqlite:///var/lib/ferry.db'), { dialect: 'sqlite', path: '/var/lib/ferry.db' });
  assert.deepEqual(parseDatabaseUrl('./ferry.db'), { dialect: 'sqlite', path: './ferry.db' });
  assert.deepEqual(parseDatabaseUrl('postgres://u@h/db'), { dialect: 'postgres', url: 'postgres://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db'), { dialect: 'postgres', url: 'postgresql://u@h/db' });
  assert.throws(() => parseDatabaseUrl('mysql://u@h/db'), /unsupported database URL scheme/);
});

test('an in-memory SQLite database works and is migrated', async () => {
  const db = await openDatabase('sqlite::memory:');
  try {
    assert.equal(db.dialect, 'sqlite');
    assert.deepEqual(await db.query('SELECT COUNT(*) AS n FROM swaps'), [{ n: 0 }]);
  } finally {
    await db.close();
  }
});

test('SQLite creates parent directories and runs in WAL mode with foreign keys on', async (t) => {
  const h = new Harness('sqlite');
  t.after(() => h.cleanup());
  const url = await h.freshUrl();
  const db = await h.open(url);
  assert.ok(existsSync(url.slice('sqlite:'.length)));
  assert.deepEqual(await db.query('PRAGMA journal_mode'), [{ journal_mode: 'wal' }]);
  assert.deepEqual(await db.query('PRAGMA foreign_keys'), [{ foreign_keys: 1 }]);
});

test('a PostgreSQL schema must be a plain lower-case name', async () => {
  await assert.rejects(openDatabase(`${POSTGRES_URL}?schema=Bad-Name`), /invalid PostgreSQL schema name/);
  await assert.rejects(openDatabase(POSTGRES_URL, { schema: 'x; DROP TABLE y' }), /invalid PostgreSQL schema name/);
});

onBothDialects('Database', (h) => {
  test('reports its dialect', async () => {
    const db = await h.open();
    assert.equal(db.dialect, h.dialect);
  });

  test('binds $n placeholders by number, repeated and out of order, and leaves quoted text alone', async () => {
    const db = await h.open();
    const rows = await db.query<{ a: string; b: string; c: string; lit: string }>(
      `SELECT $2 AS a, $1 AS b, $2 AS c, '$1 and ''$2''' AS lit -- $3 in a comment`,
      ['one', 'two'],
    );
    assert.deepEqual(rows, [{ a: 'two', b: 'one', c: 'two', lit: "$1 and '$2'" }]);
  });

  test('rejects a parameter list that does not match the placeholders', async () => {
    const db = await h.open();
    await scratch(db);
    await assert.rejects(db.execute('INSERT INTO parent (id) VALUES ($1)', ['a', 'b']));
    await assert.rejects(db.execute('INSERT INTO parent (id, note) VALUES ($1, $2)', ['a']));
    assert.deepEqual(await db.query('SELECT id FROM parent'), []);
  });

  test('returns integers as numbers, booleans as 1/0 and undefined as NULL', async () => {
    const db = await h.open();
    await scratch(db);
    const big = 2_100_000_000_000_000; // 21M BTC in satoshis, beyond 32 bits
    const { changes } = await db.execute('INSERT INTO parent (id, n, flag, note) VALUES ($1, $2, $3, $4)', [
      'a',
      big,
      true,
      undefined,
    ]);
    assert.equal(changes, 1);
    await db.execute('INSERT INTO parent (id, n, flag) VALUES ($1, $2, $3)', ['b', 5n, false]);
    const rows = await db.query('SELECT id, n, flag, note FROM parent ORDER BY id');
    assert.deepEqual(rows, [
      { id: 'a', n: big, flag: 1, note: null },
      { id: 'b', n: 5, flag: 0, note: null },
    ]);
    const [agg] = await db.query('SELECT COUNT(*) AS c, SUM(n) AS s, MAX(n) AS m FROM parent');
    assert.deepEqual(agg, { c: 2, s: big + 5, m: big });
  });

  test('execute reports the rows it changed; query returns nothing for a plain write', async () => {
    const db = await h.open();
    await scratch(db);
    for (const id of ['a', 'b', 'c']) await db.execute('INSERT INTO parent (id, n) VALUES ($1, 1)', [id]);
    assert.deepEqual(await db.execute('UPDATE parent SET n = 2 WHERE id <> $1', ['a']), { changes: 2 });
    assert.deepEqual(await db.execute('DELETE FROM parent WHERE id = $1', ['zz']), { changes: 0 });
    assert.deepEqual(await db.query('UPDATE parent SET n = 3 WHERE id = $1', ['a']), []);
    assert.deepEqual(await db.query('UPDATE parent SET n = 4 WHERE id = $1 RETURNING n', ['a']), [{ n: 4 }]);
  });

  test('unique and foreign key violations surface as typed errors', async () => {
    const db = await h.open();
    await scratch(db);
    await db.execute('INSERT INTO parent (id) VALUES ($1)', ['a']);
    const unique = await db.execute('INSERT INTO parent (id) VALUES ($1)', ['a']).catch((e: unknown) => e);
    assert.ok(unique instanceof UniqueViolation, String(unique));
    assert.equal(unique.table, 'parent');
    assert.equal(unique.column, 'id');
    const fk = await db.execute('INSERT INTO child (id, parent_id) VALUES (1, $1)', ['nobody']).catch((e: unknown) => e);
    assert.ok(fk instanceof ForeignKeyViolation, String(fk));
    assert.ok(fk instanceof DatabaseError);
  });

  test('a transaction commits when its function resolves', async () => {
    const db = await h.open();
    await scratch(db);
    const result = await db.transaction(async (tx) => {
      assert.equal(tx.dialect, h.dialect);
      await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['a']);
      await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['b']);
      return (await tx.query<{ n: number }>('SELECT COUNT(*) AS n FROM parent'))[0].n;
    });
    assert.equal(result, 2);
    assert.deepEqual(await db.query('SELECT id FROM parent ORDER BY id'), [{ id: 'a' }, { id: 'b' }]);
  });

  test('a transaction rolls back when its function rejects, and the rejection reaches the caller', async () => {
    const db = await h.open();
    await scratch(db);
    const boom = new Error('boom');
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['a']);
        throw boom;
      }),
      (e) => e === boom,
    );
    assert.deepEqual(await db.query('SELECT id FROM parent'), []);
  });

  test('a failed statement dooms the transaction even if the function swallows the error', async () => {
    const db = await h.open();
    await scratch(db);
    await db.execute('INSERT INTO parent (id) VALUES ($1)', ['a']);
    let second: unknown;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['b']);
        await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['a']).catch(() => {});
        second = await tx.execute('INSERT INTO parent (id) VALUES ($1)', ['c']).catch((e: unknown) => e);
      }),
      (e) => e instanceof TransactionAborted && e.cause instanceof UniqueViolation,
    );
    assert.ok(second instanceof TransactionAborted);
    assert.deepEqual(await db.query('SELECT id FROM parent'), [{ id: 'a' }]);
  });

  test('a transaction handle is dead once its transaction has finished', async () => {
    const db = await h.open();
    await scratch(db);
    let leaked: { execute: Database['execute'] } | undefined;
    await db.transaction(async (tx) => {
      leaked = tx;
    });
    await assert.rejects(leaked!.execute('INSERT INTO parent (id) VALUES ($1)', ['a']), /transaction already finished/);
  });

  test('using the database itself inside its own transaction throws instead of hanging', async () => {
    const db = await h.open();
    await scratch(db);
    await assert.rejects(
      db.transaction(async () => {
        await db.query('SELECT 1 AS one');
      }),
      /inside its own transaction/,
    );
    await assert.rejects(
      db.transaction(() => db.transaction(async () => 1)),
      /inside its own transaction/,
    );
    assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
  });

  test('a statement issued outside an open transaction is not swept into it', async () => {
    const db = await h.open();
    await scratch(db);
    const inside = gate();
    const release = gate();
    const tx = db.transaction(async (t) => {
      await t.execute('INSERT INTO parent (id) VALUES ($1)', ['in-tx']);
      inside.open();
      await release.opened;
      throw new Error('roll back');
    });
    await inside.opened;
    const outside = db.execute('INSERT INTO parent (id) VALUES ($1)', ['outside']);
    release.open();
    await assert.rejects(tx, /roll back/);
    await outside;
    assert.deepEqual(await db.query('SELECT id FROM parent'), [{ id: 'outside' }]);
  });

  test('concurrent transactions each commit their own writes', async () => {
    const db = await h.open();
    await scratch(db);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO parent (id, n) VALUES ($1, $2)', [`p${i}`, i]);
          await new Promise((r) => setTimeout(r, 2));
          await tx.execute('INSERT INTO child (id, parent_id) VALUES ($1, $2)', [i, `p${i}`]);
        }),
      ),
    );
    assert.deepEqual(await db.query('SELECT COUNT(*) AS n FROM child'), [{ n: 12 }]);
  });

  test('close() releases the database and is safe to repeat', async () => {
    const db = await openDatabase(await h.freshUrl());
    await db.close();
    await db.close();
    await assert.rejects(db.query('SELECT 1 AS one'));
  });

  if (h.dialect === 'sqlite') {
    test('SQLite transactions on one connection never interleave', async () => {
      const db = await h.open();
      await scratch(db);
      await db.execute('INSERT INTO parent (id, n) VALUES ($1, 0)', ['counter']);
      const log: string[] = [];
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          db.transaction(async (tx) => {
            log.push(`begin ${i}`);
            const [{ n }] = await tx.query<{ n: number }>('SELECT n FROM parent WHERE id = $1', ['counter']);
            await new Promise((r) => setTimeout(r, 1));
            await tx.execute('UPDATE parent SET n = $1 WHERE id = $2', [n + 1, 'counter']);
            log.push(`end ${i}`);
          }),
        ),
      );
      assert.deepEqual(log, Array.from({ length: 10 }, (_, i) => [`begin ${i}`, `end ${i}`]).flat());
      assert.deepEqual(await db.query('SELECT n FROM parent WHERE id = $1', ['counter']), [{ n: 10 }]);
    });
  }

  if (h.dialect === 'postgres') {
    test('every pooled PostgreSQL connection uses the chosen schema', async () => {
      const url = await h.freshUrl();
      const schema = new URL(url).searchParams.get('schema');
      const db = await h.open(url, { poolSize: 4 });
      const rows = await Promise.all(
        Array.from({ length: 8 }, () =>
          db.query<{ s: string; pid: number }>('SELECT current_schema() AS s, pg_backend_pid() AS pid FROM pg_sleep(0.05)'),
        ),
      );
      assert.ok(new Set(rows.map((r) => r[0].pid)).size > 1, 'expected several connections');
      for (const r of rows) assert.equal(r[0].s, schema);
    });

    test('a repeated statement is prepared once per connection, and one whose table changed shape runs again', async () => {
      const db = await h.open(await h.freshUrl(), { poolSize: 1 });
      await db.execute('CREATE TABLE shapes (id TEXT PRIMARY KEY)');
      await db.execute('INSERT INTO shapes (id) VALUES ($1)', ['a']);
      const read = 'SELECT * FROM shapes WHERE id = $1';
      assert.deepEqual(await db.query(read, ['a']), [{ id: 'a' }]);
      assert.deepEqual(await db.query(read, ['a']), [{ id: 'a' }]);
      const prepared = await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
      assert.equal(prepared.filter((p) => p.statement === read).length, 1, 'the read is prepared once on the connection');
      // Another instance's migration adds a column: PostgreSQL refuses the prepared SELECT * ("cached plan must not
      // change result type"); outside a transaction the statement runs again at once, unprepared, and the caller never
      // sees the refusal (a rolling upgrade's older instance answered 500 here before).
      await db.execute('ALTER TABLE shapes ADD COLUMN n INTEGER');
      assert.deepEqual(await db.query(read, ['a']), [{ id: 'a', n: null }]);
      assert.deepEqual(await db.query(read, ['a']), [{ id: 'a', n: null }]);
      // Inside a transaction the refusal aborts it, so it reaches the caller, who retries the whole transaction.
      const write = 'SELECT * FROM shapes WHERE id = $1 FOR UPDATE';
      await db.transaction(async (tx) => assert.deepEqual(await tx.query(write, ['a']), [{ id: 'a', n: null }]));
      await db.execute('ALTER TABLE shapes ADD COLUMN m INTEGER');
      await assert.rejects(db.transaction((tx) => tx.query(write, ['a'])), /cached plan must not change result type/);
      await db.transaction(async (tx) => assert.deepEqual(await tx.query(write, ['a']), [{ id: 'a', n: null, m: null }]));
    });

    test('the schema can be given as an option instead of in the URL', async () => {
      const url = await h.freshUrl();
      const schema = new URL(url).searchParams.get('schema')!;
      const db = await h.open(POSTGRES_URL, { schema });
      assert.deepEqual(await db.query('SELECT current_schema() AS s'), [{ s: schema }]);
      assert.deepEqual(await db.query('SELECT COUNT(*) AS n FROM swaps'), [{ n: 0 }]);
    });
  }
});
