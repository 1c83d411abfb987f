// The devnet's Elements verifier on witness v0 script-hash (P2WSH) spends: legacy swap lockups (boltz-core's
// swapScript and reverseSwapScript) blinded like Ferry's, claimed and refunded with the builders Ferry and its
// client use (src/chains/liquid/spends.ts) — accepted — and every way of cheating a v1 swap refused with elementsd's
// reject reason: wrong preimage, wrong key, tampered signature, early refund, a redeem script that is not the
// output's, conditionals that do not balance, non-minimal OP_IF arguments (policy).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { Scripts, reverseSwapScript, swapScript } from 'boltz-core';
import { legacyClaim, legacyRefund } from '@ferry/sdk/chains/liquid/spends.js';
import { verifyElementsTransaction, type ElementsCheck } from '@ferry/devnet/elements/verify/index.js';
import { FEE, Transaction, fund, newKey, p2wpkh, prevoutOf, setup, spendP2wpkh, type Funding, type Key } from '../helpers/liquid.ts';

const MANDATORY = 'mandatory-script-verify-flag-failed';
const POLICY = 'non-mandatory-script-verify-flag';
const NULLFAIL = `${MANDATORY} (Signature must be zero for failed CHECK(MULTI)SIG operation)`;
const EQUALVERIFY = `${MANDATORY} (Script failed an OP_EQUALVERIFY operation)`;
const LOCKTIME = `${MANDATORY} (Locktime requirement not satisfied)`;
const MISMATCH = `${MANDATORY} (Witness program hash mismatch)`;
const TIMEOUT = 700;

interface LegacyLockup {
  preimage: Buffer;
  claimKey: Key;
  refundKey: Key;
  redeemScript: Uint8Array;
  script: Buffer;
}

function newLegacyLockup(kind: 'submarine' | 'reverse'): LegacyLockup {
  const preimage = randomBytes(32);
  const [claimKey, refundKey] = [newKey(), newKey()];
  const build = kind === 'submarine' ? swapScript : reverseSwapScript;
  const redeemScript = build(sha256(preimage), claimKey.publicKey, refundKey.publicKey, TIMEOUT);
  return { preimage, claimKey, refundKey, redeemScript, script: Buffer.from(Scripts.p2wshOutput(redeemScript)) };
}

let owner: Key;
let submarine: LegacyLockup;
let reverse: LegacyLockup;
let funding: Funding;
before(async () => {
  await setup();
  owner = newKey();
  [submarine, reverse] = [newLegacyLockup('submarine'), newLegacyLockup('reverse')];
  funding = fund(newKey(), [
    { script: submarine.script, amount: 150_000 },
    { script: reverse.script, amount: 200_000 },
    { script: p2wpkh(owner), amount: 100_000 },
  ]);
});

const lockupOf = (vout: number) => ({ txid: funding.tx.getId(), vout, prevout: funding.tx.outs[vout], blindingPrivateKey: funding.blindingKeys.get(vout)! });
const destination = () => ({ script: p2wpkh(newKey()), blindingPublicKey: newKey().publicKey });
const vouts = { submarine: 0, reverse: 1 } as const;

function claimOf(kind: keyof typeof vouts, change: { preimage?: Uint8Array; privateKey?: Uint8Array; redeemScript?: Uint8Array } = {}) {
  const lockup = kind === 'submarine' ? submarine : reverse;
  return legacyClaim({
    lockup: lockupOf(vouts[kind]),
    redeemScript: change.redeemScript ?? lockup.redeemScript,
    privateKey: change.privateKey ?? lockup.claimKey.privateKey,
    preimage: change.preimage ?? lockup.preimage,
    destination: destination(),
    fee: BigInt(FEE),
    feeRate: 0.1,
    network: 'regtest',
  });
}

function refundOf(kind: keyof typeof vouts, timeoutBlockHeight = TIMEOUT, privateKey?: Uint8Array) {
  const lockup = kind === 'submarine' ? submarine : reverse;
  return legacyRefund({
    lockup: lockupOf(vouts[kind]),
    redeemScript: lockup.redeemScript,
    privateKey: privateKey ?? lockup.refundKey.privateKey,
    timeoutBlockHeight,
    destination: destination(),
    fee: BigInt(FEE),
    feeRate: 0.1,
    network: 'regtest',
  });
}

const verify = (txHex: string, kind: keyof typeof vouts) => verifyElementsTransaction(txHex, [prevoutOf(funding.tx.outs[vouts[kind]])]);

function assertRejected(result: ElementsCheck, reason: string, detail?: RegExp): void {
  assert.equal(result.ok, false, 'expected a rejection');
  if (result.ok) return;
  assert.equal(result.reason, reason);
  if (detail !== undefined) assert.match(result.detail ?? '', detail);
}

/** Re-parses the transaction and lets `change` edit input 0's witness. */
function withWitness(txHex: string, change: (witness: Buffer[]) => Buffer[]): string {
  const tx = Transaction.fromHex(txHex);
  tx.ins[0].witness = change(tx.ins[0].witness.map((item) => Buffer.from(item)));
  return tx.toHex();
}

describe('P2WSH: valid legacy swap spends', () => {
  test('submarine claim: <signature> <preimage> <redeem script>', async () => {
    const claim = claimOf('submarine');
    assert.equal(Transaction.fromHex(claim.hex).ins[0].witness.length, 3);
    assert.deepEqual(await verify(claim.hex, 'submarine'), { ok: true });
  });

  test('reverse claim: <signature> <preimage> <redeem script>', async () => {
    assert.deepEqual(await verify(claimOf('reverse').hex, 'reverse'), { ok: true });
  });

  test('refunds at the timeout, with an empty item for the preimage', async () => {
    const refund = refundOf('submarine');
    assert.equal(refund.lockTime, TIMEOUT);
    assert.equal(Transaction.fromHex(refund.hex).ins[0].witness[1].length, 0);
    assert.deepEqual(await verify(refund.hex, 'submarine'), { ok: true });
    assert.deepEqual(await verify(refundOf('reverse', TIMEOUT + 5).hex, 'reverse'), { ok: true });
  });
});

describe('P2WSH: refused legacy swap spends', () => {
  test('a submarine claim with a wrong preimage falls to the refund branch, whose lock time is not met', async () => {
    assertRejected(await verify(claimOf('submarine', { preimage: randomBytes(32) }).hex, 'submarine'), LOCKTIME);
  });

  test('a reverse claim with a wrong preimage fails its hash check; one of the wrong size falls to the refund branch', async () => {
    assertRejected(await verify(claimOf('reverse', { preimage: randomBytes(32) }).hex, 'reverse'), EQUALVERIFY);
    assertRejected(await verify(claimOf('reverse', { preimage: randomBytes(31) }).hex, 'reverse'), LOCKTIME);
  });

  test('a claim signed by another key (the refund key, a stranger)', async () => {
    assertRejected(await verify(claimOf('submarine', { privateKey: submarine.refundKey.privateKey }).hex, 'submarine'), NULLFAIL);
    assertRejected(await verify(claimOf('reverse', { privateKey: newKey().privateKey }).hex, 'reverse'), NULLFAIL);
  });

  test('a claim with a tampered signature, and one with an empty signature', async () => {
    const claim = claimOf('reverse').hex;
    const tampered = withWitness(claim, ([signature, ...rest]) => {
      const copy = Buffer.from(signature);
      copy[copy.length - 10] ^= 0x01;
      return [copy, ...rest];
    });
    assertRejected(await verify(tampered, 'reverse'), NULLFAIL);
    const empty = withWitness(claim, ([, ...rest]) => [Buffer.alloc(0), ...rest]);
    assertRejected(await verify(empty, 'reverse'), `${MANDATORY} (Script evaluated without error but finished with a false/empty top stack element)`);
  });

  test('a refund before the timeout', async () => {
    assertRejected(await verify(refundOf('submarine', TIMEOUT - 1).hex, 'submarine'), LOCKTIME);
    assertRejected(await verify(refundOf('reverse', TIMEOUT - 1).hex, 'reverse'), LOCKTIME);
  });

  test('a refund signed by the claim key', async () => {
    assertRejected(await verify(refundOf('submarine', TIMEOUT, submarine.claimKey.privateKey).hex, 'submarine'), NULLFAIL);
  });

  test('a redeem script that is not the output\'s', async () => {
    // Signed and witnessed for the reverse script, spending the submarine lockup.
    const claim = claimOf('submarine', { redeemScript: reverse.redeemScript });
    assertRejected(await verify(claim.hex, 'submarine'), MISMATCH);
  });

  test('an empty witness', async () => {
    const empty = withWitness(claimOf('submarine').hex, () => []);
    assertRejected(await verify(empty, 'submarine'), `${MANDATORY} (Witness program was passed an empty witness)`);
  });
});

describe('P2WSH: scripts beyond the swap scripts', () => {
  // Anyone-can-spend scripts on the amounts of a valid spend: the witness alone decides.
  async function run(script: number[], items: Buffer[]): Promise<ElementsCheck> {
    const witnessScript = Buffer.from(script);
    const spend = withWitness(spendP2wpkh(funding, 2, owner).toHex(), () => [...items, witnessScript]);
    const prevout = { ...prevoutOf(funding.tx.outs[2]), script: Buffer.concat([Buffer.of(0x00, 0x20), sha256(witnessScript)]) };
    return verifyElementsTransaction(spend, [prevout]);
  }

  test('OP_IF / OP_NOTIF / OP_ELSE branches', async () => {
    // OP_IF OP_1 OP_ELSE OP_0 OP_ENDIF
    assert.deepEqual(await run([0x63, 0x51, 0x67, 0x00, 0x68], [Buffer.of(1)]), { ok: true });
    assertRejected(await run([0x63, 0x51, 0x67, 0x00, 0x68], [Buffer.alloc(0)]), `${MANDATORY} (Script evaluated without error but finished with a false/empty top stack element)`);
    // OP_NOTIF OP_1 OP_ENDIF
    assert.deepEqual(await run([0x64, 0x51, 0x68], [Buffer.alloc(0)]), { ok: true });
    // Nested: OP_1 OP_IF OP_0 OP_IF OP_0 OP_ELSE OP_1 OP_ENDIF OP_ENDIF
    assert.deepEqual(await run([0x51, 0x63, 0x00, 0x63, 0x00, 0x67, 0x51, 0x68, 0x68], []), { ok: true });
  });

  test('unbalanced conditionals', async () => {
    assertRejected(await run([0x51, 0x63, 0x51], []), `${MANDATORY} (Invalid OP_IF construction)`);
    assertRejected(await run([0x51, 0x68], []), `${MANDATORY} (Invalid OP_IF construction)`);
    assertRejected(await run([0x63, 0x51, 0x68], []), `${MANDATORY} (Invalid OP_IF construction)`);
  });

  test('a non-minimal OP_IF argument is refused by policy only', async () => {
    assertRejected(await run([0x63, 0x51, 0x68], [Buffer.of(2)]), `${POLICY} (OP_IF/NOTIF argument must be minimal)`);
  });

  test('the stack must end with exactly one true element', async () => {
    assertRejected(await run([0x51, 0x51], []), `${MANDATORY} (Stack size must be exactly one after execution)`);
    assert.deepEqual(await run([0xa8, 0x20, ...sha256(Buffer.from('x')), 0x87], [Buffer.from('x')]), { ok: true }); // OP_SHA256 <h> OP_EQUAL
  });

  test('an opcode the devnet does not implement is refused for relay only, even in a branch not taken', async () => {
    // OP_0 OP_IF OP_CAT OP_ENDIF OP_1
    const result = await run([0x00, 0x63, 0x7e, 0x68, 0x51], []);
    assertRejected(result, `${POLICY} (Opcode missing or not understood)`, /not implemented/);
  });
});
