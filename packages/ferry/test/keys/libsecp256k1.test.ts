// The service's libsecp256k1 (tiny-secp256k1) against noble, which the SDK uses elsewhere: recovery gives the same key
// for every valid signature, a refusal for every signature noble refuses, and the same payee through the BOLT11
// reader; the point check takes and refuses the keys noble takes and refuses. Speed changes, answers do not.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { ecdsaRecoveryRegistered, recoverPublicKey, recoverPublicKeyNoble } from '@ferry/sdk/keys/ecdsa-recovery.js';
import { decodeBolt11, encodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { isCompressedPoint, useLibsecp256k1Recovery } from '../../src/keys/libsecp256k1.ts';

const ORDER = secp256k1.Point.Fn.ORDER;
const FIELD = secp256k1.Point.Fp.ORDER;
const bytes32 = (n: bigint) => hex.decode(n.toString(16).padStart(64, '0'));

/** Both recoveries' answers, a thrown refusal as 'refused'. */
function both(digest: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1 | 2 | 3): [string, string] {
  const answer = (recover: typeof recoverPublicKey) => {
    try {
      return hex.encode(recover(digest, signature, recoveryId));
    } catch {
      return 'refused';
    }
  };
  return [answer(recoverPublicKey), answer(recoverPublicKeyNoble)];
}

describe('ECDSA recovery in libsecp256k1 and in noble', () => {
  before(() => {
    assert.equal(ecdsaRecoveryRegistered(), false);
    useLibsecp256k1Recovery();
    assert.equal(ecdsaRecoveryRegistered(), true);
  });

  test('the same key for 300 signatures of random keys and digests, each recovery id', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const secret = secp256k1.utils.randomSecretKey();
      const digest = randomBytes(32);
      const signed = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
      const recoveryId = signed[0] as 0 | 1;
      seen.add(recoveryId);
      const [libsecp, noble] = both(digest, signed.subarray(1), recoveryId);
      assert.equal(libsecp, hex.encode(secp256k1.getPublicKey(secret, true)));
      assert.equal(noble, libsecp);
      // the other parity recovers another key, in both
      const [otherLibsecp, otherNoble] = both(digest, signed.subarray(1), (recoveryId ^ 1) as 0 | 1);
      assert.equal(otherLibsecp, otherNoble);
      assert.notEqual(otherLibsecp, libsecp);
    }
    assert.deepEqual([...seen].sort(), [0, 1]);
  });

  test('signatures that recover no key are refused by both', () => {
    const digest = randomBytes(32);
    const valid = secp256k1.sign(digest, secp256k1.utils.randomSecretKey(), { prehash: false, format: 'recovered' }).subarray(1);
    const r = valid.subarray(0, 32);
    const s = valid.subarray(32);
    const cases: [string, Uint8Array, 0 | 1 | 2 | 3][] = [
      ['r = 0', new Uint8Array([...bytes32(0n), ...s]), 0],
      ['s = 0', new Uint8Array([...r, ...bytes32(0n)]), 0],
      ['r = n', new Uint8Array([...bytes32(ORDER), ...s]), 0],
      ['s = n', new Uint8Array([...r, ...bytes32(ORDER)]), 1],
      ['r + n beyond the field (recovery id 2)', new Uint8Array([...bytes32(FIELD - ORDER), ...s]), 2],
    ];
    for (const [name, signature, recoveryId] of cases) assert.deepEqual(both(digest, signature, recoveryId), ['refused', 'refused'], name);
    // an r that is no point's x: found by trying, the same answer from both
    const onCurve = (x: bigint) => {
      try {
        secp256k1.Point.fromHex('02' + x.toString(16).padStart(64, '0'));
        return true;
      } catch {
        return false;
      }
    };
    let x = 7n;
    while (onCurve(x)) x++;
    assert.deepEqual(both(digest, new Uint8Array([...bytes32(x), ...s]), 0), ['refused', 'refused'], 'r not on the curve');
  });

  test('a high-s signature recovers the same key in both (BOLT11 does not require low s)', () => {
    const secret = secp256k1.utils.randomSecretKey();
    const digest = randomBytes(32);
    const signed = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
    const s = BigInt('0x' + hex.encode(signed.subarray(33)));
    const high = new Uint8Array([...signed.subarray(1, 33), ...bytes32(ORDER - s)]);
    const [libsecp, noble] = both(digest, high, (signed[0] ^ 1) as 0 | 1);
    assert.equal(libsecp, hex.encode(secp256k1.getPublicKey(secret, true)));
    assert.equal(noble, libsecp);
  });

  test("the BOLT11 reader finds the invoice signer's key through the registered recovery", () => {
    const secret = secp256k1.utils.randomSecretKey();
    for (let i = 0; i < 20; i++) {
      const invoice = encodeBolt11({ network: 'bcrt', timestamp: Math.floor(Date.now() / 1000), amountMsat: 1_000n * BigInt(i + 1), paymentHash: hex.encode(randomBytes(32)), description: `n ${i}` }, secret);
      assert.equal(decodeBolt11(invoice).payeeNodeKey, hex.encode(secp256k1.getPublicKey(secret, true)));
    }
  });
});

describe('compressed key check in libsecp256k1 and in noble', () => {
  const noble = (bytes: Uint8Array) => {
    try {
      secp256k1.Point.fromBytes(bytes);
      return bytes.length === 33;
    } catch {
      return false;
    }
  };

  test('random keys are taken, and so are both prefixes of their x', () => {
    for (let i = 0; i < 200; i++) {
      const key = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
      assert.equal(isCompressedPoint(key), true);
      const twin = new Uint8Array(key);
      twin[0] ^= 1;
      assert.equal(isCompressedPoint(twin), true);
    }
  });

  test('random 33-byte strings: the same answer as noble', () => {
    let taken = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = randomBytes(33);
      bytes[0] = 2 + (i % 2);
      const answer = isCompressedPoint(bytes);
      assert.equal(answer, noble(bytes), hex.encode(bytes));
      if (answer) taken++;
    }
    assert.ok(taken > 100 && taken < 300, `about half of random x are on the curve, got ${taken}/400`);
  });

  test('wrong prefixes, an x beyond the field and other lengths are refused', () => {
    const key = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    for (const prefix of [0x00, 0x04, 0x05, 0x06, 0x07]) assert.equal(isCompressedPoint(new Uint8Array([prefix, ...key.subarray(1)])), false, `prefix ${prefix}`);
    assert.equal(isCompressedPoint(new Uint8Array([0x02, ...bytes32(FIELD)])), false, 'x = p');
    assert.equal(isCompressedPoint(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false)), false, 'uncompressed');
    assert.equal(isCompressedPoint(key.subarray(1)), false, '32 bytes');
    assert.equal(isCompressedPoint(new Uint8Array(0)), false, 'empty');
  });
});
