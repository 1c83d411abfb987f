// Rebuilds the submarine and reverse Taproot swap trees from the shared vectors with boltz-core and checks
// every derived byte: leaves, MuSig2 internal key (service key first), tweaked key, script, address.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import { Musig, Networks, Scripts, SwapTreeSerializer, TaprootUtils, reverseSwapTree, swapTree } from 'boltz-core';
import { makeHtlc, preimageOf } from '../helpers/htlc.ts';

interface Leaf {
  version: number;
  output: string;
}
interface Expected {
  claimKey: 'service' | 'client';
  refundKey: 'service' | 'client';
  swapTree: { claimLeaf: Leaf; refundLeaf: Leaf };
  internalKey: string;
  outputKey: string;
  scriptPubKey: string;
  regtestAddress: string;
}
interface Vectors {
  servicePrivateKeyFrom: string;
  clientPrivateKeyFrom: string;
  preimageFrom: string;
  servicePrivateKey: string;
  servicePublicKey: string;
  clientPrivateKey: string;
  clientPublicKey: string;
  preimage: string;
  preimageHash: string;
  timeoutBlockHeight: number;
  submarine: Expected;
  reverse: Expected;
}

// A verbatim copy of shared/vectors/taproot-swap-trees.json (see test/fixtures/README.md): the test needs
// nothing outside the repository.
const vectors = JSON.parse(readFileSync(new URL('../fixtures/taproot-swap-trees.json', import.meta.url), 'utf8')) as Vectors;

const servicePrivateKey = hex.decode(vectors.servicePrivateKey);
const clientPrivateKey = hex.decode(vectors.clientPrivateKey);
const servicePublicKey = hex.decode(vectors.servicePublicKey);
const clientPublicKey = hex.decode(vectors.clientPublicKey);
const preimageHash = hex.decode(vectors.preimageHash);

// The vectors name their inputs as sha256("…") of a UTF-8 string.
function fromLabel(description: string): string {
  const label = /^sha256\("(.*)"\)$/.exec(description)?.[1];
  assert.ok(label !== undefined, `unexpected derivation ${description}`);
  return hex.encode(sha256(new TextEncoder().encode(label)));
}

test('keys and preimage follow from their labels', () => {
  assert.equal(fromLabel(vectors.servicePrivateKeyFrom), vectors.servicePrivateKey);
  assert.equal(fromLabel(vectors.clientPrivateKeyFrom), vectors.clientPrivateKey);
  assert.equal(fromLabel(vectors.preimageFrom), vectors.preimage);
  assert.equal(hex.encode(secp256k1.getPublicKey(servicePrivateKey, true)), vectors.servicePublicKey);
  assert.equal(hex.encode(secp256k1.getPublicKey(clientPrivateKey, true)), vectors.clientPublicKey);
  assert.equal(hex.encode(sha256(hex.decode(vectors.preimage))), vectors.preimageHash);
});

const cases = [
  ['submarine', swapTree, vectors.submarine],
  ['reverse', reverseSwapTree, vectors.reverse],
] as const;

for (const [direction, build, expected] of cases) {
  describe(`${direction} swap tree`, () => {
    const keyOf = { service: servicePublicKey, client: clientPublicKey };
    const tree = build(false, preimageHash, keyOf[expected.claimKey], keyOf[expected.refundKey], vectors.timeoutBlockHeight);
    const musig = Musig.create(servicePrivateKey, [servicePublicKey, clientPublicKey]);
    const tweaked = TaprootUtils.tweakMusig(musig, tree.tree);
    const outputScript = Scripts.p2trOutput(tweaked.aggPubkey);

    test('serialized leaves', () => {
      assert.deepEqual(SwapTreeSerializer.serializeSwapTree(tree), expected.swapTree);
    });

    test('internal key is the MuSig2 aggregate with the service key first', () => {
      assert.equal(hex.encode(TaprootUtils.toXOnly(musig.internalKey)), expected.internalKey);
      assert.equal(hex.encode(TaprootUtils.toXOnly(Musig.aggregateKeys([servicePublicKey, clientPublicKey]))), expected.internalKey);
      // Order matters: the other order is a different key.
      const swapped = Musig.aggregateKeys([clientPublicKey, servicePublicKey]);
      assert.notEqual(hex.encode(TaprootUtils.toXOnly(swapped)), expected.internalKey);
    });

    test('tweaked output key, scriptPubKey and regtest address', () => {
      assert.equal(hex.encode(TaprootUtils.toXOnly(tweaked.aggPubkey)), expected.outputKey);
      assert.equal(hex.encode(outputScript), expected.scriptPubKey);
      assert.equal(Address(Networks.regtest).encode(OutScript.decode(outputScript)), expected.regtestAddress);
    });

    test('the test helper builds the same lockup', () => {
      const htlc = makeHtlc({
        kind: 'taproot',
        direction,
        preimage: preimageOf(hex.decode(vectors.preimage)),
        timeoutBlockHeight: vectors.timeoutBlockHeight,
      });
      assert.equal(hex.encode(htlc.internalKey), expected.internalKey);
      assert.equal(hex.encode(htlc.tweakedKey), expected.outputKey);
      assert.equal(hex.encode(htlc.outputScript), expected.scriptPubKey);
      assert.equal(htlc.address, expected.regtestAddress);
    });
  });
}
