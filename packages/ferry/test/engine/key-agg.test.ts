// The public-key-only BIP327 KeyAgg + BIP341 tweak against boltz-core's Musig (which the signing sessions use),
// byte for byte, and against the BIPs' own vectors; in noble and in libsecp256k1 (secp256k1-zkp), once loaded.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { keyAggExport, keyAggregate } from '@scure/btc-signer/musig2.js';
import { Musig, Scripts, TaprootUtils, reverseSwapTree, swapTree, type Types } from 'boltz-core';
import { aggregateKeys, serviceSwapOutputKey, swapOutputKey, tapTreeRoot, taprootTweak } from '@ferry/sdk/keys/key-agg.js';
import { libsecp256k1, useLibsecp256k1 } from '@ferry/sdk/keys/libsecp256k1.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { ELEMENTS_TAPROOT } from '@ferry/sdk/chains/liquid/htlc.js';

// A verbatim copy of shared/vectors/taproot-swap-trees.json (see test/fixtures/README.md).
const vectors = JSON.parse(readFileSync(new URL('../fixtures/taproot-swap-trees.json', import.meta.url), 'utf8'));

interface Key {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** A random key whose compressed form starts with `prefix` (0x02: even y, 0x03: odd y). */
function keyWithPrefix(prefix: 2 | 3): Key {
  for (;;) {
    const privateKey = secp256k1.utils.randomSecretKey();
    const publicKey = secp256k1.getPublicKey(privateKey, true);
    if (publicKey[0] === prefix) return { privateKey, publicKey };
  }
}

/** What the engine derived before: boltz-core's Musig with [service, client], tweaked by the tree. */
function boltzCore(service: Key, client: Key, tree: Types.SwapTree) {
  const musig = Musig.create(service.privateKey, [service.publicKey, client.publicKey]);
  const tweaked = TaprootUtils.tweakMusig(musig, tree.tree);
  return {
    internalKey: hex.encode(TaprootUtils.toXOnly(musig.internalKey)),
    outputKey: hex.encode(TaprootUtils.toXOnly(tweaked.aggPubkey)),
    outputScript: hex.encode(Scripts.p2trOutput(tweaked.aggPubkey)),
  };
}

function ours(service: Key, client: Key, tree: Types.SwapTree) {
  const key = swapOutputKey(service.publicKey, client.publicKey, tree);
  return { internalKey: hex.encode(key.internalKey), outputKey: hex.encode(key.outputKey), outputScript: hex.encode(key.outputScript) };
}

function randomTree(kind: 'submarine' | 'reverse', service: Key, client: Key): Types.SwapTree {
  const preimageHash = randomBytes(32);
  // Timeouts of every script-number width the trees encode: 1 to 4 bytes.
  const timeout = 1 + Math.floor(Math.random() * [0x7f, 0x7fff, 0x7fffff, 0x7fffffff][Math.floor(Math.random() * 4)]);
  return kind === 'submarine'
    ? swapTree(false, preimageHash, service.publicKey, client.publicKey, timeout)
    : reverseSwapTree(false, preimageHash, client.publicKey, service.publicKey, timeout);
}

/** The same checks on either implementation of swapOutputKey's arithmetic. */
function swapOutputKeyTests(): void {
  const service = { privateKey: hex.decode(vectors.servicePrivateKey), publicKey: hex.decode(vectors.servicePublicKey) };
  const client = { privateKey: hex.decode(vectors.clientPrivateKey), publicKey: hex.decode(vectors.clientPublicKey) };

  for (const kind of ['submarine', 'reverse'] as const) {
    test(`reproduces the ${kind} vectors`, () => {
      const preimageHash = hex.decode(vectors.preimageHash);
      const tree =
        kind === 'submarine'
          ? swapTree(false, preimageHash, service.publicKey, client.publicKey, vectors.timeoutBlockHeight)
          : reverseSwapTree(false, preimageHash, client.publicKey, service.publicKey, vectors.timeoutBlockHeight);
      const key = ours(service, client, tree);
      assert.equal(key.internalKey, vectors[kind].internalKey);
      assert.equal(key.outputKey, vectors[kind].outputKey);
      assert.equal(key.outputScript, vectors[kind].scriptPubKey);
      assert.deepEqual(key, boltzCore(service, client, tree));
    });
  }

  test('equals boltz-core for random keys of every y parity and random trees', () => {
    const parities = new Set<string>();
    for (let i = 0; i < 240; i++) {
      // Every (service, client) prefix combination, in turn.
      const s = keyWithPrefix(i % 2 === 0 ? 2 : 3);
      const c = keyWithPrefix(i % 4 < 2 ? 2 : 3);
      const kind = i % 8 < 4 ? 'submarine' : 'reverse';
      const tree = randomTree(kind, s, c);
      assert.deepEqual(ours(s, c, tree), boltzCore(s, c, tree), `${kind} swap with keys ${hex.encode(s.publicKey)}, ${hex.encode(c.publicKey)}`);
      const internal = aggregateKeys([s.publicKey, c.publicKey]);
      const output = taprootTweak(internal, tapTreeRoot(tree.tree));
      parities.add(`${kind} ${internal.y & 1n} ${output.y & 1n}`);
    }
    // Both parities of the aggregate and of the tweaked key were met (each misses with odds of about 2^-60).
    assert.equal(parities.size, 8, [...parities].join(', '));
  });

  test('the key order is [service, client], never sorted', () => {
    const s = keyWithPrefix(3);
    const c = keyWithPrefix(2);
    const tree = randomTree('submarine', s, c);
    const swapped = swapOutputKey(c.publicKey, s.publicKey, tree);
    assert.notEqual(hex.encode(swapped.internalKey), ours(s, c, tree).internalKey);
    assert.equal(hex.encode(swapped.internalKey), boltzCore(c, s, tree).internalKey);
  });

  test('equal keys are refused, as boltz-core refuses them', () => {
    const s = keyWithPrefix(2);
    const tree = randomTree('reverse', s, s);
    assert.throws(() => boltzCore(s, s, tree), /duplicate public key/);
    assert.throws(() => swapOutputKey(s.publicKey, s.publicKey, tree), /keys are equal/);
  });

  test('malformed keys are refused', () => {
    const s = keyWithPrefix(2);
    const tree = randomTree('submarine', s, s);
    assert.throws(() => swapOutputKey(s.publicKey, secp256k1.getPublicKey(s.privateKey, false), tree), /33 bytes/);
    assert.throws(() => swapOutputKey(s.publicKey, hex.decode(`02${'00'.repeat(31)}05`), tree));
  });
}

describe('swap output key, in noble (libsecp256k1 not loaded)', () => {
  test('libsecp256k1 is not loaded yet', () => assert.equal(libsecp256k1(), undefined));
  swapOutputKeyTests();
});

describe('swap output key, in libsecp256k1 (secp256k1-zkp loaded)', () => {
  before(async () => useLibsecp256k1(await loadZkp()));
  test('libsecp256k1 is loaded', () => assert.notEqual(libsecp256k1(), undefined));
  swapOutputKeyTests();
  test("equals noble's KeyAgg and tweak under Elements' tag too", () => {
    for (let i = 0; i < 40; i++) {
      const s = keyWithPrefix(i % 2 === 0 ? 2 : 3);
      const c = keyWithPrefix(i % 4 < 2 ? 2 : 3);
      const tree = randomTree(i % 8 < 4 ? 'submarine' : 'reverse', s, c);
      const internal = aggregateKeys([s.publicKey, c.publicKey]);
      const output = taprootTweak(internal, ELEMENTS_TAPROOT.merkleRoot(tree.tree), ELEMENTS_TAPROOT.tweakTag);
      const key = swapOutputKey(s.publicKey, c.publicKey, tree, ELEMENTS_TAPROOT);
      assert.equal(hex.encode(key.internalKey), hex.encode(schnorr.utils.pointToBytes(internal)));
      assert.equal(hex.encode(key.outputKey), hex.encode(schnorr.utils.pointToBytes(output)));
    }
  });

  test("the service's path (its private key: C + (a·k)·G) gives boltz-core's bytes, Bitcoin's and Elements' tags", () => {
    for (let i = 0; i < 60; i++) {
      const s = keyWithPrefix(i % 2 === 0 ? 2 : 3);
      const c = keyWithPrefix(i % 4 < 2 ? 2 : 3);
      const tree = randomTree(i % 8 < 4 ? 'submarine' : 'reverse', s, c);
      const fast = serviceSwapOutputKey(s.privateKey, s.publicKey, c.publicKey, tree);
      assert.deepEqual(
        { internalKey: hex.encode(fast.internalKey), outputKey: hex.encode(fast.outputKey), outputScript: hex.encode(fast.outputScript) },
        boltzCore(s, c, tree),
      );
      const elements = serviceSwapOutputKey(s.privateKey, s.publicKey, c.publicKey, tree, ELEMENTS_TAPROOT);
      assert.deepEqual(elements, swapOutputKey(s.publicKey, c.publicKey, tree, ELEMENTS_TAPROOT));
    }
  });

  test("the service's path refuses another private key, equal keys and a client key off the curve", () => {
    const s = keyWithPrefix(2);
    const c = keyWithPrefix(3);
    const tree = randomTree('submarine', s, c);
    assert.throws(() => serviceSwapOutputKey(c.privateKey, s.publicKey, c.publicKey, tree), /not the service public key/);
    assert.throws(() => serviceSwapOutputKey(s.privateKey, s.publicKey, s.publicKey, tree), /equal/);
    assert.throws(() => serviceSwapOutputKey(s.privateKey, s.publicKey, hex.decode(`02${'00'.repeat(31)}05`), tree), /not a point of the curve/);
    assert.throws(() => serviceSwapOutputKey(s.privateKey, s.publicKey, secp256k1.getPublicKey(c.privateKey, false), tree), /33 bytes/);
  });
});


describe('BIP327 KeyAgg', () => {
  // key_agg_vectors.json of BIP327.
  const keys = [
    '02F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9',
    '03DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659',
    '023590A94E768F8E1815C2F24B4D80A8E3149316C3518CE7B7AD338368D038CA66',
    '020000000000000000000000000000000000000000000000000000000000000005',
    '02FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30',
    '04F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9',
  ].map((key) => hex.decode(key.toLowerCase()));
  const aggregateOf = (indices: number[]) => hex.encode(schnorr.utils.pointToBytes(aggregateKeys(indices.map((i) => keys[i]))));

  test('reproduces the valid vectors, equal keys included', () => {
    assert.equal(aggregateOf([0, 1, 2]), '90539eede565f5d054f32cc0c220126889ed1e5d193baf15aef344fe59d4610c');
    assert.equal(aggregateOf([2, 1, 0]), '6204de8b083426dc6eaf9502d27024d53fc826bf7d2012148a0575435df54b2b');
    assert.equal(aggregateOf([0, 0, 0]), 'b436e3bad62b8cd409969a224731c193d051162d8c5ae8b109306127da3aa935');
    assert.equal(aggregateOf([0, 0, 1, 1]), '69bc22bfa5d106306e48a20679de1d7389386124d07571d0d872686028c26a3e');
  });

  test('refuses the invalid public keys of the vectors', () => {
    assert.throws(() => aggregateOf([0, 3]));
    assert.throws(() => aggregateOf([0, 4]));
    assert.throws(() => aggregateOf([5, 0]));
  });

  test('two equal keys aggregate as @scure/btc-signer does (boltz-core refuses the pair)', () => {
    for (const prefix of [2, 3] as const) {
      const { publicKey } = keyWithPrefix(prefix);
      const expected = hex.encode(keyAggExport(keyAggregate([publicKey, publicKey])));
      assert.equal(hex.encode(schnorr.utils.pointToBytes(aggregateKeys([publicKey, publicKey]))), expected);
    }
  });
});

describe('BIP341 tweak', () => {
  // wallet-test-vectors.json of BIP341, scriptPubKey[0] (no script tree) and [1] (one leaf).
  const lift = (x: string) => schnorr.utils.lift_x(BigInt(`0x${x}`));

  test('reproduces the key-path-only vector', () => {
    const output = taprootTweak(lift('d6889cb081036e0faefa3a35157ad71086b123b2b144b649798b494c300a961d'), new Uint8Array(0));
    assert.equal(hex.encode(schnorr.utils.pointToBytes(output)), '53a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343');
  });

  test('reproduces the one-leaf vector, with an odd tweaked key', () => {
    const leaf = { version: 0xc0, output: hex.decode('20d85a959b0290bf19bb89ed43c916be835475d013da4b362117393e25a48229b8ac') };
    const root = tapTreeRoot(leaf);
    assert.equal(hex.encode(root), '5b75adecf53548f3ec6ad7d78383bf84cc57b55a3127c72b9a2481752dd88b21');
    const output = taprootTweak(lift('187791b6f712a8ea41c8ecdd0ee77fab3e85263b37e1ec18a3651926b3a6cf27'), root);
    assert.equal(hex.encode(schnorr.utils.pointToBytes(output)), '147c9c57132f6e7ecddba9800bb0c4449251c92a1e60371ee77557b6620f3ea3');
    assert.equal(output.y & 1n, 1n);
  });

  test('an odd-y internal point is tweaked as its even-y twin', () => {
    const odd = secp256k1.Point.fromBytes(keyWithPrefix(3).publicKey);
    const root = randomBytes(32);
    assert.ok(taprootTweak(odd, root).equals(taprootTweak(odd.negate(), root)));
  });
});
