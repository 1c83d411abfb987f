// The cap on named PostgreSQL statements: texts past it, and session statements, run unnamed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatementNames } from '../../src/db/statement-names.ts';

test('names the first distinct texts only, the same name each time', () => {
  const names = new StatementNames(2);
  const a = names.nameOf('SELECT 1 WHERE $1');
  assert.match(a ?? '', /^ferry_[0-9a-f]{24}$/);
  assert.equal(names.nameOf('SELECT 1 WHERE $1'), a);
  assert.ok(names.nameOf('SELECT 2') !== undefined);
  assert.equal(names.nameOf('SELECT 3'), undefined, 'past the cap');
  assert.equal(names.nameOf('SELECT 1 WHERE $1'), a, 'a named text keeps its name past the cap');
});

test('never names transaction control, session settings or schema changes', () => {
  const names = new StatementNames();
  for (const sql of ['BEGIN', 'commit', 'ROLLBACK', 'SET search_path = x', 'LISTEN ferry', 'ALTER TABLE t ADD c INT', 'CREATE TABLE t (a INT)']) {
    assert.equal(names.nameOf(sql), undefined, sql);
  }
});

test('a forgotten text is never named again', () => {
  const names = new StatementNames();
  assert.ok(names.nameOf('SELECT * FROM t') !== undefined);
  names.forget('SELECT * FROM t');
  assert.equal(names.nameOf('SELECT * FROM t'), undefined);
});
