// The restore's key derivation (CKDpub on a decompressed point) gives the children @scure/bip32 gives, on xpubs and
// tpubs; private and malformed extended keys and hardened paths are refused; a scan's cost is bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { hex } from '@scure/base';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../src/db/index.ts';
import { restoreIndex } from '../../src/engine/restore/index.ts';
import { ChildKeys, MAX_SCANNED_INDICES, parseDerivationPath, parseXpub } from '../../src/engine/restore/key-search.ts';
import { SwapError } from '@ferry/sdk/protocol/index.js';

test('children match BIP32 derivation for xpubs and tpubs', () => {
  for (const versions of [undefined, { private: 0x04358394, public: 0x043587cf }]) {
    const root = HDKey.fromMasterSeed(randomBytes(32), versions);
    const account = new ChildKeys(parseXpub(root.publicExtendedKey).derive('m/44/0/0/0'));
    for (const index of [0, 1, 2, 49, 50, 1000, 2 ** 31 - 1]) {
      assert.equal(account.at(index), hex.encode(root.derive(`m/44/0/0/0/${index}`).publicKey!));
    }
  }
});

test('private keys, garbage and hardened paths are refused as invalid', () => {
  const root = HDKey.fromMasterSeed(randomBytes(32));
  for (const text of [root.privateExtendedKey, 'xpub', root.publicExtendedKey.slice(0, -1) + 'x', '']) {
    assert.throws(() => parseXpub(text), (error: unknown) => error instanceof SwapError && error.kind === 'invalid' && !error.message.includes(root.privateExtendedKey));
  }
  for (const path of ["m/44'/0", 'm/2147483648', '44/0', 'm//1', 'm/-1']) assert.throws(() => parseDerivationPath(path), SwapError);
  assert.equal(parseDerivationPath('m'), 'm');
});

test('an xpub scan stops after MAX_SCANNED_INDICES however its swaps are spread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-restore-scan-'));
  const storage = await openStorage(`sqlite:${join(dir, 'ferry.sqlite')}`);
  try {
    const root = HDKey.fromMasterSeed(randomBytes(32));
    // One swap every gapLimit indices keeps the scan going: the wallet an attacker would make with unpaid reverse swaps.
    for (let index = 0; index <= MAX_SCANNED_INDICES + 300; index += 150) {
      const key = hex.encode(root.derive(`m/44/0/0/0/${index}`).publicKey!);
      await storage.swaps.insert({ id: `s${index}`, type: 'reverse', pair: 'BTC/BTC', status: 'swap.created', preimageHash: `h${index}`, clientPublicKeys: [key] });
    }
    const ctx = { storage } as Parameters<typeof restoreIndex>[0];
    const { index } = await restoreIndex(ctx, { xpub: root.publicExtendedKey, gapLimit: 150 });
    assert.ok(index < MAX_SCANNED_INDICES + 150 && index >= MAX_SCANNED_INDICES - 150, `scanned up to ${index}`);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
