// The operator's mnemonic file, swap key derivation and MuSig2 signing against boltz-core as the client.
import { before, describe, test } from 'node:test';
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
  signForClient,
  taprootSwapKey,
} from '@ferry/sdk/keys/index.js';
import { loadOrCreateMnemonic } from '../../src/keys/mnemonic-file.ts';
import { clientKey, serviceKey } from '../helpers/htlc.ts';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { useLibsecp256k1 } from '@ferry/sdk/keys/libsecp256k1.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';

// A verbatim copy of shared/vectors/taproot-swap-trees.json (see test/fixtures/README.md).
const vectors = JSON.parse(readFileSync(new URL('../fixtures/taproot-swap-trees.json', import.meta.url), 'utf8'));

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** m/44'/0'/0'/0/0 of ABANDON, as the noble path derives it (the key of address 1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA). */
const ABANDON_FIRST_KEY = hex.encode(SwapKeys.fromMnemonic(ABANDON, 'mainnet').keyAt(0).publicKey);

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

describe('swap keys in libsecp256k1 (secp256k1-zkp loaded)', () => {
  before(async () => useLibsecp256k1(await loadZkp()));

  test('equal BIP32 as scure derives it, private and public key, at every index tried', () => {
    const mnemonic = generateMnemonic(wordlist, 256);
    for (const network of ['mainnet', 'regtest'] as const) {
      const keys = SwapKeys.fromMnemonic(mnemonic, network);
      const account = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(`m/44'/${network === 'mainnet' ? 0 : 1}'/0'/0`);
      const indexes = [...Array.from({ length: 300 }, (_, i) => i), 65_535, 65_536, 16_777_216, 0x7fffffff];
      for (const index of indexes) {
        const child = account.deriveChild(index);
        assert.deepEqual(keys.keyAt(index), { privateKey: child.privateKey, publicKey: child.publicKey }, `${network} index ${index}`);
      }
    }
    assert.equal(hex.encode(SwapKeys.fromMnemonic(ABANDON, 'mainnet').keyAt(0).publicKey), ABANDON_FIRST_KEY);
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
