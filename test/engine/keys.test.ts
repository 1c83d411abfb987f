// The operator's mnemonic file, swap key derivation and MuSig2 signing against boltz-core as the client.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Address, OutScript, NETWORK } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { Musig, Networks, TaprootUtils, reverseSwapTree, swapTree } from 'boltz-core';
import {
  InvalidPartialSignature,
  KeyPathSession,
  SwapKeys,
  loadOrCreateMnemonic,
  signForClient,
  taprootSwapKey,
} from '../../src/keys/index.ts';
import { clientKey, serviceKey } from '../helpers/htlc.ts';

// A verbatim copy of shared/vectors/taproot-swap-trees.json (see test/fixtures/README.md).
const vectors = JSON.parse(readFileSync(new URL('../fixtures/taproot-swap-trees.json', import.meta.url), 'utf8'));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-keys-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('mnemonic file', () => {
  test('is created once with mode 0600 and read back unchanged', () => {
    const path = join(tempDir(), 'nested', 'mnemonic');
    const created = loadOrCreateMnemonic(path);
    assert.equal(created.split(' ').length, 24);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(loadOrCreateMnemonic(path), created);
  });

  test('an invalid file is refused, never overwritten', () => {
    const path = join(tempDir(), 'mnemonic');
    writeFileSync(path, 'not a mnemonic at all');
    assert.throws(() => loadOrCreateMnemonic(path), /valid BIP39/);
    assert.equal(readFileSync(path, 'utf8'), 'not a mnemonic at all');
  });

  test('lax permissions of an existing file are tightened', () => {
    const path = join(tempDir(), 'mnemonic');
    const mnemonic = loadOrCreateMnemonic(path);
    chmodSync(path, 0o644);
    assert.equal(loadOrCreateMnemonic(path), mnemonic);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });
});

describe('swap keys', () => {
  const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

  test('follow BIP44: the well-known first address of the "abandon … about" mnemonic', () => {
    const key = SwapKeys.fromMnemonic(ABANDON, 'mainnet').keyAt(0);
    const address = Address(NETWORK).encode({ type: 'pkh', hash: hash160(key.publicKey) });
    assert.equal(address, '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
  });

  test('differ per index and per network, and are stable', () => {
    const keys = SwapKeys.fromMnemonic(ABANDON, 'regtest');
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add(hex.encode(keys.keyAt(i).publicKey));
    assert.equal(seen.size, 20);
    assert.deepEqual(SwapKeys.fromMnemonic(ABANDON, 'regtest').keyAt(7), keys.keyAt(7));
    assert.notDeepEqual(SwapKeys.fromMnemonic(ABANDON, 'mainnet').keyAt(7), keys.keyAt(7));
    assert.throws(() => keys.keyAt(-1), RangeError);
    assert.throws(() => SwapKeys.fromMnemonic('abandon abandon', 'regtest'), /mnemonic/);
  });
});

describe('MuSig2', () => {
  const servicePub = hex.decode(vectors.servicePublicKey);
  const clientPub = hex.decode(vectors.clientPublicKey);
  const preimageHash = hex.decode(vectors.preimageHash);

  for (const [kind, build, claim, refund] of [
    ['submarine', swapTree, servicePub, clientPub],
    ['reverse', reverseSwapTree, clientPub, servicePub],
  ] as const) {
    test(`the ${kind} output key and address reproduce the vectors`, () => {
      const tree = build(false, preimageHash, claim, refund, vectors.timeoutBlockHeight);
      const key = taprootSwapKey(hex.decode(vectors.servicePrivateKey), servicePub, clientPub, tree);
      const expected = vectors[kind];
      assert.equal(hex.encode(key.internalKey), expected.internalKey);
      assert.equal(hex.encode(key.outputKey), expected.outputKey);
      assert.equal(hex.encode(key.outputScript), expected.scriptPubKey);
      assert.equal(Address(Networks.regtest).encode(OutScript.decode(key.outputScript)), expected.regtestAddress);
    });
  }

  const tree = swapTree(false, sha256(new Uint8Array(32)), serviceKey.publicKey, clientKey.publicKey, 321);
  const keys = [serviceKey.publicKey, clientKey.publicKey] as const;
  const outputKey = taprootSwapKey(serviceKey.privateKey, serviceKey.publicKey, clientKey.publicKey, tree).outputKey;
  const message = sha256(new TextEncoder().encode('a sighash'));
  const clientSide = () => TaprootUtils.tweakMusig(Musig.create(clientKey.privateKey, keys), tree.tree).message(message).generateNonce();

  test('signForClient gives a partial signature the client aggregates into a valid signature', () => {
    const client = clientSide();
    const ours = signForClient(serviceKey.privateKey, keys, tree, message, client.publicNonce);
    const signature = client
      .aggregateNonces([[serviceKey.publicKey, ours.pubNonce]])
      .initializeSession()
      .signPartial()
      .addPartial(serviceKey.publicKey, ours.partialSignature)
      .aggregatePartials();
    assert.ok(schnorr.verify(signature, message, outputKey));
  });

  test('a key-path session verifies the client partial, signs once and aggregates', () => {
    const session = new KeyPathSession(serviceKey.privateKey, keys, tree, message);
    const client = clientSide()
      .aggregateNonces([[serviceKey.publicKey, session.pubNonce]])
      .initializeSession()
      .signPartial();
    const tampered = client.ourPartialSignature.slice();
    tampered[31] ^= 1;
    assert.throws(() => session.complete(client.publicNonce, tampered), InvalidPartialSignature);
    assert.equal(session.consumed, false, 'a refused partial does not use up the nonce');
    const signature = session.complete(client.publicNonce, client.ourPartialSignature);
    assert.ok(schnorr.verify(signature, message, outputKey));
    assert.throws(() => session.complete(client.publicNonce, client.ourPartialSignature), /used already/);
  });
});
