// log.format: json, text, or auto (json unless stdout is a terminal); anything else stops `ferry` before it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/index.ts';
import { jsonLogs } from '../../src/log/format.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

test('json and text whatever the terminal; auto is json off a terminal and text on one', () => {
  assert.equal(jsonLogs('json', true), true);
  assert.equal(jsonLogs('text', false), false);
  assert.equal(jsonLogs('auto', false), true);
  assert.equal(jsonLogs('auto', true), false);
  assert.throws(() => jsonLogs('yaml'), (error: Error) => error instanceof ConfigError && /log\.format must be one of auto, json, text, got "yaml"/.test(error.message));
});

test('ferry refuses an unknown FERRY_LOG_FORMAT as a configuration error, naming the key', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-log-format-'));
  try {
    const run = await ferryCommand({ ...process.env, ...ephemeralPorts, FERRY_DATA_DIR: dataDir, FERRY_LOG_FORMAT: 'yaml' }, 'start');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^configuration error: config key log\.format must be one of auto, json, text, got "yaml"\n$/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
