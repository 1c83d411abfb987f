// The restore's key derivation (CKDpub on a decompressed point) gives the children @scure/bip32 gives, on xpubs and
// tpubs; private and malformed extended keys and hardened paths are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { hex } from '@scure/base';
import { ChildKeys, parseDerivationPath, parseXpub } from '../../src/engine/restore/key-search.ts';
import { SwapError } from '../../src/protocol/index.ts';

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
