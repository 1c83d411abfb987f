// The devnet's Elements verifier runs the introspection opcodes of boltz-core's claim covenant leaf for real: a
// claim that pays output 0 the committed script, amount and asset (explicit L-BTC) is accepted without any
// signature, and every forgery — another address, less money, another asset, a blinded output 0 — is rejected
// with the script error elementsd gives.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from 'node:crypto';
import { REGTEST_POLICY_ASSET, verifyElementsTransaction, type ElementsCheck } from '@ferry/devnet/elements/verify/index.js';
import { introspect } from '@ferry/devnet/elements/verify/introspection.js';
import { FEE, explicitValue, fund, keyPathScript, newKey, p2wpkh, prevoutOf, setup, type Funding, type Key } from '../helpers/liquid.ts';
import { OP_RETURN, covenantClaim, newCovenantLockup, type ClaimOutput, type CovenantLockup, type ExtraCoin } from '../helpers/liquid-covenant.ts';

const MANDATORY = 'mandatory-script-verify-flag-failed';
const EQUALVERIFY = `${MANDATORY} (Script failed an OP_EQUALVERIFY operation)`;
const EVAL_FALSE = `${MANDATORY} (Script evaluated without error but finished with a false/empty top stack element)`;

const EXPECTED = 50_000; // what the covenant commits output 0 to
const LOCKED = EXPECTED + 1 + FEE; // the lockup: the committed amount, one blinded satoshi, the fee

let user: Key;
let segwit: CovenantLockup; // to the user's P2WPKH
let taproot: CovenantLockup; // to a P2TR address (witness v1)
let legacy: CovenantLockup; // to a P2SH script: committed as its SHA256 and version -1
let generous: CovenantLockup; // to the user's P2WPKH, locked with one satoshi more than the claim needs
let funding: Funding;
const p2sh = Buffer.concat([Buffer.of(0xa9, 0x14), randomBytes(20), Buffer.of(0x87)]);
const taprootScript = () => keyPathScript(user);

before(async () => {
  await setup();
  user = newKey();
  segwit = newCovenantLockup(p2wpkh(user), EXPECTED);
  taproot = newCovenantLockup(taprootScript(), EXPECTED);
  legacy = newCovenantLockup(p2sh, EXPECTED);
  generous = newCovenantLockup(p2wpkh(user), EXPECTED);
  funding = fund(newKey(), [
    { script: segwit.script, amount: LOCKED },
    { script: taproot.script, amount: LOCKED },
    { script: legacy.script, amount: LOCKED },
    { script: generous.script, amount: LOCKED + 1 },
  ]);
});

/** Output 0 as given, then the blinded satoshi and the explicit fee (the covenant claim's shape). */
function claimOutputs(first: ClaimOutput, blindedRest = LOCKED - FEE - first.amount): ClaimOutput[] {
  return [first, { script: OP_RETURN, amount: blindedRest, blindingPublicKey: newKey().publicKey }, { script: Buffer.alloc(0), amount: FEE }];
}

function verify(vout: number, lockup: CovenantLockup, outputs: ClaimOutput[], extra?: ExtraCoin): Promise<ElementsCheck> {
  const tx = covenantClaim(funding, vout, lockup, outputs, extra);
  const prevouts = [prevoutOf(funding.tx.outs[vout]), ...(extra !== undefined ? [prevoutOf(extra.coin)] : [])];
  return verifyElementsTransaction(tx.toHex(), prevouts);
}

function assertRejected(result: ElementsCheck, reason: string): void {
  assert.equal(result.ok, false, 'expected a rejection');
  if (!result.ok) {
    assert.equal(result.reason, reason);
    assert.equal(result.inputIndex, 0);
  }
}

describe('Elements verifier: claim covenants', () => {
  test('the tree has the covenant leaf, committing to the witness program and the asset', () => {
    const leaf = segwit.covenantLeaf.output;
    assert.ok(leaf.includes(p2wpkh(user).subarray(2)), 'the leaf commits to the P2WPKH program');
    assert.ok(leaf.includes(Buffer.from(ripemd160(sha256(segwit.preimage)))), 'the leaf commits to the preimage hash');
    assert.ok(legacy.covenantLeaf.output.includes(Buffer.from(sha256(p2sh))), 'a non-witness script is committed as its SHA256');
  });

  test('a claim paying the committed P2WPKH the committed amount is accepted without a signature', async () => {
    assert.deepEqual(await verify(0, segwit, claimOutputs({ script: p2wpkh(user), amount: EXPECTED })), { ok: true });
  });

  test('a claim paying a committed P2TR (witness v1) is accepted', async () => {
    assert.deepEqual(await verify(1, taproot, claimOutputs({ script: taprootScript(), amount: EXPECTED })), { ok: true });
  });

  test('a claim paying a committed P2SH (SHA256 of the script, version -1) is accepted', async () => {
    assert.deepEqual(await verify(2, legacy, claimOutputs({ script: p2sh, amount: EXPECTED })), { ok: true });
  });

  test('a claim paying another address is rejected', async () => {
    assertRejected(await verify(0, segwit, claimOutputs({ script: p2wpkh(newKey()), amount: EXPECTED })), EQUALVERIFY);
  });

  test('a claim paying the same program under another witness version is rejected', async () => {
    // OP_1 <the P2TR program> vs the committed v1: and the committed v1 program under v0 (P2WSH-sized).
    const asV0 = Buffer.concat([Buffer.of(0x00, 0x20), taprootScript().subarray(2)]);
    assertRejected(await verify(1, taproot, claimOutputs({ script: asV0, amount: EXPECTED })), EQUALVERIFY);
  });

  test('a claim paying another P2SH script is rejected', async () => {
    const other = Buffer.concat([Buffer.of(0xa9, 0x14), randomBytes(20), Buffer.of(0x87)]);
    assertRejected(await verify(2, legacy, claimOutputs({ script: other, amount: EXPECTED })), EQUALVERIFY);
  });

  test('a claim paying one satoshi less (the rest to the blinded output) is rejected', async () => {
    assertRejected(await verify(0, segwit, claimOutputs({ script: p2wpkh(user), amount: EXPECTED - 1 })), EVAL_FALSE);
  });

  test('a claim paying one satoshi more is rejected', async () => {
    // From the lockup holding one satoshi more, so the blinded output still gets one.
    const outputs = claimOutputs({ script: p2wpkh(user), amount: EXPECTED + 1 }, 1);
    assert.deepEqual(await verify(3, generous, claimOutputs({ script: p2wpkh(user), amount: EXPECTED }, 2)), { ok: true });
    assertRejected(await verify(3, generous, outputs), EVAL_FALSE);
  });

  test('a claim paying the committed address in a blinded output is rejected', async () => {
    const outputs = claimOutputs({ script: p2wpkh(user), amount: EXPECTED, blindingPublicKey: newKey().publicKey });
    assertRejected(await verify(0, segwit, outputs), EQUALVERIFY);
  });

  test('a claim paying the committed amount of another asset is rejected', async () => {
    // A second input brings an explicit coin of another asset; output 0 pays it, the L-BTC goes to the blinded output.
    const key = newKey();
    const asset = randomBytes(32).toString('hex');
    const extra: ExtraCoin = {
      key,
      coin: { script: p2wpkh(key), value: explicitValue(EXPECTED), asset: Buffer.concat([Buffer.of(0x01), Buffer.from(asset, 'hex').reverse()]), nonce: Buffer.of(0x00) },
      outpoint: { txid: randomBytes(32).toString('hex'), vout: 0 },
    };
    const outputs = claimOutputs({ script: p2wpkh(user), amount: EXPECTED, asset }, LOCKED - FEE);
    assertRejected(await verify(0, segwit, outputs, extra), EQUALVERIFY);
  });

  test('a claim with a wrong preimage is rejected before any introspection', async () => {
    const forged = { ...segwit, preimage: randomBytes(32) };
    assertRejected(await verify(0, forged, claimOutputs({ script: p2wpkh(user), amount: EXPECTED })), EQUALVERIFY);
  });
});

describe('Elements introspection opcodes: stack effects', () => {
  /** Runs `opcode` on a stack holding `operand` (if any) against the honest claim of the P2WPKH covenant. */
  function run(opcode: number, operand?: Uint8Array, minimal = true): { stack: string[]; error?: string } {
    const tx = covenantClaim(funding, 0, segwit, claimOutputs({ script: p2wpkh(user), amount: EXPECTED }));
    const stack = operand === undefined ? [] : [operand];
    const failure = introspect(opcode, stack, { tx, prevouts: [prevoutOf(funding.tx.outs[0])], index: 0 }, minimal);
    return { stack: stack.map((item) => Buffer.from(item).toString('hex')), error: failure?.error };
  }
  test('OP_INSPECTOUTPUTVALUE: an explicit amount as 8 bytes little-endian, then the prefix 0x01', () => {
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64LE(BigInt(EXPECTED));
    assert.deepEqual(run(0xcf, new Uint8Array()).stack, [amount.toString('hex'), '01']);
  });

  test('OP_INSPECTOUTPUTVALUE of a blinded output: the commitment without its prefix, then the prefix', () => {
    const { stack } = run(0xcf, Uint8Array.of(1));
    assert.equal(stack[0].length, 64);
    assert.match(stack[1], /^0[89]$/);
  });

  test('OP_INSPECTOUTPUTASSET: the 32-byte asset id (internal byte order), then 0x01', () => {
    assert.deepEqual(run(0xce, new Uint8Array()).stack, [Buffer.from(REGTEST_POLICY_ASSET, 'hex').reverse().toString('hex'), '01']);
  });

  test('OP_INSPECTOUTPUTSCRIPTPUBKEY: the witness program, then its version (0 as the empty number)', () => {
    assert.deepEqual(run(0xd1, new Uint8Array()).stack, [p2wpkh(user).subarray(2).toString('hex'), '']);
  });

  test('OP_INSPECTOUTPUTSCRIPTPUBKEY of a non-witness script: its SHA256, then -1 (0x81)', () => {
    // Output 1 is the OP_RETURN.
    assert.deepEqual(run(0xd1, Uint8Array.of(1)).stack, [Buffer.from(sha256(OP_RETURN)).toString('hex'), '81']);
  });

  test('OP_INSPECTINPUTVALUE and OP_INSPECTINPUTASSET of the blinded lockup: commitments and their prefixes', () => {
    const out = funding.tx.outs[0];
    assert.deepEqual(run(0xc9, new Uint8Array()).stack, [out.value.subarray(1).toString('hex'), out.value.subarray(0, 1).toString('hex')]);
    assert.deepEqual(run(0xc8, new Uint8Array()).stack, [out.asset.subarray(1).toString('hex'), out.asset.subarray(0, 1).toString('hex')]);
  });

  test('OP_INSPECTINPUTSCRIPTPUBKEY and OP_INSPECTINPUTSEQUENCE of the current input', () => {
    assert.deepEqual(run(0xca, new Uint8Array()).stack, [segwit.script.subarray(2).toString('hex'), '01']);
    assert.deepEqual(run(0xcb, new Uint8Array()).stack, ['fdffffff']);
  });

  test('OP_PUSHCURRENTINPUTINDEX, OP_INSPECTNUMINPUTS and OP_INSPECTNUMOUTPUTS push script numbers', () => {
    assert.deepEqual(run(0xcd).stack, ['']);
    assert.deepEqual(run(0xd4).stack, ['01']);
    assert.deepEqual(run(0xd5).stack, ['03']);
  });

  test('an index past the last output or input fails, as does a negative one', () => {
    assert.equal(run(0xcf, Uint8Array.of(3)).error, 'INTROSPECT_INDEX_OUT_OF_BOUNDS');
    assert.equal(run(0xc9, Uint8Array.of(1)).error, 'INTROSPECT_INDEX_OUT_OF_BOUNDS');
    assert.equal(run(0xcf, Uint8Array.of(0x81)).error, 'INTROSPECT_INDEX_OUT_OF_BOUNDS');
  });

  test('a non-minimal index fails under policy only; one longer than 4 bytes always fails', () => {
    assert.equal(run(0xcf, Uint8Array.of(0, 0), true).error, 'UNKNOWN');
    assert.equal(run(0xcf, Uint8Array.of(0, 0), false).error, undefined);
    assert.equal(run(0xcf, Uint8Array.of(0, 0, 0, 0, 0), false).error, 'UNKNOWN');
  });
});
