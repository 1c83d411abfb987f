import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/log/index.ts';

test('JSON lines carry time, level, component, message and fields; lower levels are dropped', () => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', json: true, write: (l) => lines.push(l) }).child('api');
  logger.debug('hidden');
  logger.info('listening', { port: 9001, big: 10n, error: new Error('boom') });
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]);
  assert.equal(entry.level, 'info');
  assert.equal(entry.component, 'api');
  assert.equal(entry.message, 'listening');
  assert.equal(entry.port, 9001);
  assert.equal(entry.big, '10');
  assert.equal(entry.error, 'boom');
  assert.ok(!Number.isNaN(Date.parse(entry.time)));
});

test('text lines for terminals', () => {
  const lines: string[] = [];
  createLogger({ level: 'debug', json: false, write: (l) => lines.push(l) }).child('db').warn('slow', { ms: 12 });
  assert.match(lines[0], /WARN +\[db\] slow ms=12$/);
});
