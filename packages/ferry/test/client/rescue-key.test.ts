// The store's rescue key: made once, kept 0600, and its key indices handed out once each — even to commands taking
// them at the same time from separate processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FileClientStore } from '@ferry/sdk/client/node/file-store.js';
import { RescueKey } from '@ferry/sdk/client/rescue-key.js';
import { temporaryDir } from './support.ts';

const exec = promisify(execFile);

test('the rescue key is made once and kept private; a mnemonic is checked', () => {
  const dir = temporaryDir('ferry-rescue-key-');
  const store = new FileClientStore(dir);
  const key = store.rescueKey();
  assert.equal(new FileClientStore(dir).rescueKey().mnemonic, key.mnemonic);
  assert.equal(statSync(join(dir, 'rescue-key.json')).mode & 0o777, 0o600);
  assert.equal(RescueKey.fromMnemonic(`  ${key.mnemonic.replace(/ /g, '\n')} `).xpub, key.xpub);
  assert.throws(() => RescueKey.fromMnemonic('abandon abandon abandon'), /not a valid BIP39 mnemonic/);
  assert.equal(store.adoptRescueKey(RescueKey.generate()), false, 'a store keeps its own key');
});

test('indices are handed out once each across processes', async () => {
  const dir = temporaryDir('ferry-rescue-index-');
  new FileClientStore(dir).rescueKey();
  const module = import.meta.resolve('@ferry/sdk/client/node/file-store.js');
  const script = `import { FileClientStore } from ${JSON.stringify(module)}; const s = new FileClientStore(${JSON.stringify(dir)}); const out = []; for (let i = 0; i < 25; i++) out.push(s.takeKeyIndex()); console.log(JSON.stringify(out));`;
  const runs = await Promise.all([0, 1, 2].map(() => exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])));
  const taken = runs.flatMap((run) => JSON.parse(run.stdout) as number[]).sort((a, b) => a - b);
  assert.deepEqual(taken, Array.from({ length: 75 }, (_, i) => i));
});
