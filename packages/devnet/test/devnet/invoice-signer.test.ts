// The devnet nodes' invoice signatures (src/lightning/invoice-signer.ts: ECDSA by hand on libsecp256k1's point
// multiplication), checked with noble, an implementation of its own: every signature verifies under the node's key
// with s low, its recovery id recovers that key (both parities seen, so the flip for a high s is exercised), and an
// invoice signed with it reads back with the node as its payee.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadZkp, type Zkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { decodeBolt11, encodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { invoiceSigner } from '../../src/lightning/invoice-signer.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
let zkp: Zkp;

before(async () => {
  zkp = await loadZkp();
});

test('signatures verify with noble, low s, and recover the node key', () => {
  const secretKey = secp256k1.utils.randomSecretKey();
  const signer = invoiceSigner(secretKey, zkp);
  assert.equal(hex(signer.publicKey), hex(secp256k1.getPublicKey(secretKey, true)));
  const recoveryIds = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const digest = randomBytes(32);
    const signature = signer.sign(digest);
    assert.equal(signature.length, 65);
    const compact = signature.subarray(0, 64);
    assert.ok(secp256k1.verify(compact, digest, signer.publicKey, { prehash: false, lowS: true }), `signature ${i} verifies with s low`);
    const recovered = secp256k1.recoverPublicKey(Uint8Array.from([signature[64], ...compact]), digest, { prehash: false });
    assert.equal(hex(recovered), hex(signer.publicKey), `signature ${i} recovers the node's key`);
    recoveryIds.add(signature[64]);
  }
  assert.deepEqual([...recoveryIds].sort(), [0, 1]);
  assert.throws(() => invoiceSigner(new Uint8Array(32), zkp), /invalid node secret key/);
});

test('an invoice signed with it names the node as payee', () => {
  const secretKey = secp256k1.utils.randomSecretKey();
  const paymentHash = hex(randomBytes(32));
  const invoice = encodeBolt11(
    { network: 'bcrt', amountMsat: 50_000_000n, timestamp: Math.floor(Date.now() / 1000), paymentHash, paymentSecret: hex(randomBytes(32)), description: 'swap', expiry: 3600, minFinalCltvExpiry: 80 },
    invoiceSigner(secretKey, zkp),
  );
  const decoded = decodeBolt11(invoice);
  assert.equal(decoded.payeeNodeKey, hex(secp256k1.getPublicKey(secretKey, true)));
  assert.equal(decoded.paymentHash, paymentHash);
});
