// The devnet node's script verifier against real spends built with boltz-core: each kind of spend
// is accepted, and each way of cheating is rejected with Bitcoin Core's reject reason.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { RawTx, Script, Transaction } from '@scure/btc-signer';
import { Networks, OutputType, Scripts, constructClaimTransaction } from 'boltz-core';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import bitcore from 'bitcore-lib';
import { verifyTransactionScripts } from '@ferry/devnet/bitcoin/verify/index.js';
import type { Prevout } from '@ferry/devnet/bitcoin/verify/index.js';
import {
  buildClaim,
  buildKeyPathSpend,
  buildRefund,
  findLockupOutput,
  makeHtlc,
  p2pkhScript,
  p2wpkhScript,
  randomPreimage,
  serviceKey,
  spendP2pkh,
  spendP2wpkh,
  strangerKey,
  tamperedSignature,
  walletKey,
  type FundingOutput,
  type HtlcKind,
  type SignedSpend,
  type SwapDirection,
} from '../helpers/htlc.ts';

const MANDATORY = 'mandatory-script-verify-flag-failed';
const EQUALVERIFY = `${MANDATORY} (Script failed an OP_EQUALVERIFY operation)`;
const NULLFAIL = `${MANDATORY} (Signature must be zero for failed CHECK(MULTI)SIG operation)`;
const SCHNORR = `${MANDATORY} (Invalid Schnorr signature)`;
const LOCKTIME = `${MANDATORY} (Locktime requirement not satisfied)`;

const KINDS: HtlcKind[] = ['p2wsh', 'p2sh-p2wsh', 'p2sh', 'taproot'];
const DIRECTIONS: SwapDirection[] = ['submarine', 'reverse'];

let nextTxid = 1;
function fundingFor(script: Uint8Array, value = 100_000n): FundingOutput {
  const txid = (nextTxid++).toString(16).padStart(64, '0');
  return { txid, vout: 1, value, script };
}

function verify(spend: SignedSpend, prevouts: Prevout[] = spend.prevouts) {
  return verifyTransactionScripts(spend.hex, prevouts);
}

function assertRejected(spend: SignedSpend, reason: string, inputIndex = 0) {
  assert.deepEqual(verify(spend), { ok: false, inputIndex, reason });
}

describe('accepted spends', () => {
  for (const kind of KINDS) {
    for (const direction of DIRECTIONS) {
      test(`${direction} ${kind}: claim with the preimage and refund after the timeout`, () => {
        const htlc = makeHtlc({ kind, direction });
        const funding = fundingFor(htlc.outputScript);
        assert.deepEqual(verify(buildClaim(htlc, funding)), { ok: true });
        const refund = buildRefund(htlc, funding);
        assert.equal(refund.lockTime, htlc.timeoutBlockHeight);
        assert.deepEqual(verify(refund), { ok: true });
      });
    }
  }

  test('Taproot key path: MuSig2 of service and client', () => {
    const htlc = makeHtlc({ kind: 'taproot' });
    assert.deepEqual(verify(buildKeyPathSpend(htlc, fundingFor(htlc.outputScript))), { ok: true });
  });

  test('a refund with nLockTime beyond the timeout', () => {
    const htlc = makeHtlc({ kind: 'taproot', timeoutBlockHeight: 200 });
    const refund = buildRefund(htlc, fundingFor(htlc.outputScript), { lockTime: 250 });
    assert.deepEqual(verify(refund), { ok: true });
  });

  test('plain P2WPKH and P2PKH spends', () => {
    const p2wpkh = spendP2wpkh(fundingFor(p2wpkhScript(walletKey.publicKey)));
    assert.deepEqual(verify(p2wpkh), { ok: true });
    const p2pkh = spendP2pkh(fundingFor(p2pkhScript(walletKey.publicKey)));
    assert.deepEqual(verify(p2pkh), { ok: true });
  });

  for (const kind of ['p2sh-p2wsh', 'taproot'] as const) {
    test(`${kind}: the lockup found in a funding transaction can be claimed`, () => {
      const htlc = makeHtlc({ kind, direction: 'reverse' });
      const funding = new Transaction();
      funding.addInput({ txid: '33'.repeat(32), index: 0 });
      funding.addOutput({ script: p2wpkhScript(walletKey.publicKey), amount: 5_000n });
      funding.addOutputAddress(htlc.address, 70_000n, Networks.regtest);
      const lockup = findLockupOutput(funding.hex, htlc);
      assert.deepEqual(lockup, { txid: funding.id, vout: 1, value: 70_000n, script: htlc.outputScript });
      assert.deepEqual(verify(buildClaim(htlc, lockup!)), { ok: true });
      assert.equal(findLockupOutput(funding.hex, makeHtlc({ kind })), undefined);
    });
  }

  test('the chosen fee and output amount end up in the transaction', () => {
    const htlc = makeHtlc({ kind: 'p2wsh' });
    const funding = fundingFor(htlc.outputScript, 50_000n);
    const byFee = buildClaim(htlc, funding, { fee: 2_500n });
    assert.equal(byFee.outputAmount, 47_500n);
    const byAmount = buildClaim(htlc, funding, { outputAmount: 49_000n });
    assert.equal(byAmount.fee, 1_000n);
    assert.deepEqual(verify(byAmount), { ok: true });
  });
});

describe('rejected spends', () => {
  test('wrong preimage on the Taproot claim leaf', () => {
    const htlc = makeHtlc({ kind: 'taproot' });
    const claim = buildClaim(htlc, fundingFor(htlc.outputScript), { preimage: randomPreimage().preimage });
    assertRejected(claim, EQUALVERIFY);
  });

  test('wrong preimage on a legacy reverse swap script', () => {
    const htlc = makeHtlc({ kind: 'p2wsh', direction: 'reverse' });
    const claim = buildClaim(htlc, fundingFor(htlc.outputScript), { preimage: randomPreimage().preimage });
    assertRejected(claim, EQUALVERIFY);
  });

  test('wrong preimage on a legacy submarine swap script falls through to the timeout branch', () => {
    // HASH160 <h> EQUAL IF … ELSE <timeout> CLTV …: a wrong preimage selects the refund branch.
    const htlc = makeHtlc({ kind: 'p2sh-p2wsh', direction: 'submarine' });
    const claim = buildClaim(htlc, fundingFor(htlc.outputScript), { preimage: randomPreimage().preimage });
    assertRejected(claim, LOCKTIME);
  });

  for (const kind of ['p2wsh', 'p2sh-p2wsh', 'p2sh'] as const) {
    test(`tampered ECDSA signature on a ${kind} claim`, () => {
      const htlc = makeHtlc({ kind });
      assertRejected(buildClaim(htlc, fundingFor(htlc.outputScript), { tamperSignature: true }), NULLFAIL);
    });
  }

  test('tampered Schnorr signature on the Taproot script path', () => {
    const htlc = makeHtlc({ kind: 'taproot', direction: 'reverse' });
    assertRejected(buildClaim(htlc, fundingFor(htlc.outputScript), { tamperSignature: true }), SCHNORR);
  });

  test('tampered MuSig2 signature on the Taproot key path', () => {
    const htlc = makeHtlc({ kind: 'taproot' });
    assertRejected(buildKeyPathSpend(htlc, fundingFor(htlc.outputScript), { tamperSignature: true }), SCHNORR);
  });

  test('claim signed by the refund key', () => {
    const htlc = makeHtlc({ kind: 'taproot' });
    const claim = buildClaim(htlc, fundingFor(htlc.outputScript), { signingKey: htlc.refundKey.privateKey });
    assertRejected(claim, SCHNORR);
  });

  for (const kind of KINDS) {
    test(`${kind} refund whose CLTV requirement exceeds its nLockTime`, () => {
      const htlc = makeHtlc({ kind, timeoutBlockHeight: 300 });
      assertRejected(buildRefund(htlc, fundingFor(htlc.outputScript), { lockTime: 299 }), LOCKTIME);
    });
  }

  test('refund with a final sequence disables nLockTime, so CLTV fails', () => {
    const htlc = makeHtlc({ kind: 'taproot' });
    assertRejected(buildRefund(htlc, fundingFor(htlc.outputScript), { rbf: false }), LOCKTIME);
  });

  test('P2WPKH spend signed and presented with a wrong key', () => {
    const spend = spendP2wpkh(fundingFor(p2wpkhScript(walletKey.publicKey)), { signingKey: strangerKey.privateKey });
    assertRejected(spend, EQUALVERIFY);
  });

  test('P2WPKH spend with a tampered signature', () => {
    const spend = spendP2wpkh(fundingFor(p2wpkhScript(walletKey.publicKey)), { tamperSignature: true });
    assertRejected(spend, NULLFAIL);
  });

  test('P2PKH spend with a tampered signature', () => {
    const spend = spendP2pkh(fundingFor(p2pkhScript(walletKey.publicKey)), { tamperSignature: true });
    assertRejected(spend, NULLFAIL);
  });

  test('segwit v0 signatures commit to the spent amount', () => {
    const spend = spendP2wpkh(fundingFor(p2wpkhScript(walletKey.publicKey), 70_000n));
    assert.deepEqual(verify(spend, [{ ...spend.prevouts[0], value: 70_001n }]), {
      ok: false,
      inputIndex: 0,
      reason: NULLFAIL,
    });
  });
});

describe('transactions with several inputs', () => {
  // One claim spending a Taproot and a P2WSH lockup, exactly as boltz-core builds batch claims.
  function batchClaim() {
    const tap = makeHtlc({ kind: 'taproot' });
    const wsh = makeHtlc({ kind: 'p2wsh' });
    const tapFunding = fundingFor(tap.outputScript, 80_000n);
    const wshFunding = fundingFor(wsh.outputScript, 30_000n);
    const common = (funding: FundingOutput) => ({
      transactionId: funding.txid,
      vout: funding.vout,
      script: funding.script,
      amount: funding.value,
      privateKey: serviceKey.privateKey,
    });
    const tx = constructClaimTransaction(
      [
        { ...common(tapFunding), type: OutputType.Taproot, swapTree: tap.swapTree, internalKey: tap.internalKey, preimage: tap.preimage },
        { ...common(wshFunding), type: OutputType.Bech32, redeemScript: wsh.redeemScript, preimage: wsh.preimage },
      ],
      p2wpkhScript(walletKey.publicKey),
      2_000n,
    );
    const prevouts: Prevout[] = [
      { script: tapFunding.script, value: tapFunding.value },
      { script: wshFunding.script, value: wshFunding.value },
    ];
    return { hex: tx.hex, prevouts };
  }

  test('a batch claim of a Taproot and a P2WSH lockup verifies', () => {
    const { hex: txHex, prevouts } = batchClaim();
    assert.deepEqual(verifyTransactionScripts(txHex, prevouts), { ok: true });
  });

  test('Taproot signatures commit to every input, so a wrong amount on another input fails it', () => {
    const { hex: txHex, prevouts } = batchClaim();
    const lied = [prevouts[0], { ...prevouts[1], value: prevouts[1].value + 1n }];
    // Input 0 (Taproot) fails first: its sighash covers input 1's amount.
    assert.deepEqual(verifyTransactionScripts(txHex, lied), { ok: false, inputIndex: 0, reason: SCHNORR });
  });

  test('the failing input is the one reported', () => {
    const { hex: txHex, prevouts } = batchClaim();
    const raw = RawTx.decode(hex.decode(txHex));
    raw.witnesses![1][0] = tamperedSignature(raw.witnesses![1][0]);
    const result = verifyTransactionScripts(hex.encode(RawTx.encode(raw)), prevouts);
    assert.deepEqual(result, { ok: false, inputIndex: 1, reason: NULLFAIL });
  });

  test('prevouts must match the inputs one to one', () => {
    const spend = spendP2wpkh(fundingFor(p2wpkhScript(walletKey.publicKey)));
    assert.throws(() => verifyTransactionScripts(spend.hex, []), RangeError);
  });
});

describe('policy versus consensus', () => {
  // Anyone-can-spend P2WSH scripts: the witness alone decides, no signature needed.
  function spendWitnessScript(witnessScript: Uint8Array, stack: Uint8Array[]) {
    const funding = fundingFor(Scripts.p2wshOutput(witnessScript));
    const tx = new Transaction();
    tx.addInput({ txid: funding.txid, index: funding.vout });
    tx.addOutput({ script: p2wpkhScript(walletKey.publicKey), amount: funding.value - 500n });
    tx.updateInput(0, { finalScriptWitness: [...stack, witnessScript] });
    return verifyTransactionScripts(tx.hex, [{ script: funding.script, value: funding.value }]);
  }

  test('a non-minimal OP_IF argument breaks only relay policy', () => {
    const result = spendWitnessScript(Script.encode(['IF', 'OP_1', 'ELSE', 'OP_1', 'ENDIF']), [Uint8Array.of(2)]);
    assert.deepEqual(result, {
      ok: false,
      inputIndex: 0,
      reason: 'non-mandatory-script-verify-flag (OP_IF/NOTIF argument must be minimal)',
    });
  });

  test('a witness script must leave exactly one stack item (consensus)', () => {
    const result = spendWitnessScript(Script.encode(['OP_1', 'OP_1']), []);
    assert.deepEqual(result, {
      ok: false,
      inputIndex: 0,
      reason: `${MANDATORY} (Stack size must be exactly one after execution)`,
    });
  });

  test('a witness script ending in false', () => {
    const result = spendWitnessScript(Script.encode(['OP_0']), []);
    assert.deepEqual(result, {
      ok: false,
      inputIndex: 0,
      reason: `${MANDATORY} (Script evaluated without error but finished with a false/empty top stack element)`,
    });
  });
});

describe('public keys off the curve', () => {
  // The verifier replaces bitcore's point validation by the plain curve equation (see bitcore.ts).
  test('bitcore still tells points on the curve from points off it', () => {
    const onCurve = secp256k1.getPublicKey(walletKey.privateKey, false);
    assert.equal(bitcore.PublicKey.isValid(Buffer.from(onCurve)), true);
    assert.equal(bitcore.PublicKey.isValid(Buffer.from(secp256k1.getPublicKey(walletKey.privateKey, true))), true);
    const offCurve = Buffer.from(onCurve);
    offCurve[64] ^= 1; // same x, wrong y
    assert.equal(bitcore.PublicKey.isValid(offCurve), false);
  });

  test('a Taproot output key that is no point can never be spent', () => {
    // x = 5: 5³ + 7 has no square root mod p, so no key pair exists for it.
    const script = hex.decode('5120' + '5'.padStart(64, '0'));
    const tx = new Transaction();
    tx.addInput({ txid: '22'.repeat(32), index: 0 });
    tx.addOutput({ script: p2wpkhScript(walletKey.publicKey), amount: 1_000n });
    tx.updateInput(0, { finalScriptWitness: [new Uint8Array(64).fill(1)] });
    assert.deepEqual(verifyTransactionScripts(tx.hex, [{ script, value: 2_000n }]), {
      ok: false,
      inputIndex: 0,
      reason: SCHNORR,
    });
  });
});

describe('Taproot keys whose x coordinate starts with a zero byte', () => {
  // bitcore's own BIP340 check dropped leading zero bytes of x: 1 in 256 keys failed valid signatures.
  test('a key-path spend to such an output key verifies, and a tampered one does not', async () => {
    const { p2tr, Transaction: BtcTx } = await import('@scure/btc-signer');
    let privateKey: Uint8Array | undefined;
    let payment: { script: Uint8Array; tapInternalKey: Uint8Array } | undefined;
    for (let i = 0; i < 10_000 && !payment; i++) {
      const candidate = secp256k1.utils.randomSecretKey();
      const spend = p2tr(secp256k1.getPublicKey(candidate, true).subarray(1));
      if (spend.tweakedPubkey[0] === 0) {
        privateKey = candidate;
        payment = { script: spend.script, tapInternalKey: spend.tapInternalKey };
      }
    }
    assert.ok(payment && privateKey, 'found an output key with a leading zero byte');
    const funding = { txid: 'aa'.repeat(32), vout: 0, value: 50_000n, script: payment.script };
    const tx = new BtcTx();
    tx.addInput({ txid: funding.txid, index: 0, witnessUtxo: { script: funding.script, amount: funding.value }, tapInternalKey: payment.tapInternalKey });
    tx.addOutput({ script: p2wpkhScript(walletKey.publicKey), amount: 49_000n });
    tx.sign(privateKey);
    tx.finalize();
    const prevouts = [{ script: funding.script, value: funding.value }];
    assert.deepEqual(verifyTransactionScripts(tx.hex, prevouts), { ok: true });

    const witness = tx.getInput(0).finalScriptWitness!;
    tx.updateInput(0, { finalScriptWitness: [tamperedSignature(witness[0])] }, true);
    assert.deepEqual(verifyTransactionScripts(tx.hex, prevouts), { ok: false, inputIndex: 0, reason: SCHNORR });
  });
});

describe('Taproot internal keys whose x coordinate starts with a zero byte', () => {
  // bitcore's TapTweak hash dropped leading zero bytes of the internal key: 1 in 256 script-path spends of
  // such keys failed with "Witness program hash mismatch".
  test('a script-path spend commits correctly, and a spend claiming another internal key does not', async () => {
    const { p2tr, p2tr_pk, Transaction: BtcTx } = await import('@scure/btc-signer');
    let internal: Uint8Array | undefined;
    for (let i = 0; i < 10_000 && !internal; i++) {
      const candidate = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true).subarray(1);
      if (candidate[0] === 0) internal = candidate;
    }
    assert.ok(internal, 'found an internal key with a leading zero byte');
    const leafKey = secp256k1.utils.randomSecretKey();
    const leaf = p2tr_pk(secp256k1.getPublicKey(leafKey, true).subarray(1));
    const payment = p2tr(internal, { script: leaf.script }, undefined, true);
    const funding = { txid: 'bb'.repeat(32), value: 60_000n, script: payment.script };
    const tx = new BtcTx({ allowUnknownInputs: true });
    tx.addInput({
      txid: funding.txid,
      index: 0,
      witnessUtxo: { script: funding.script, amount: funding.value },
      tapLeafScript: payment.tapLeafScript,
    });
    tx.addOutput({ script: p2wpkhScript(walletKey.publicKey), amount: 59_000n });
    tx.signIdx(leafKey, 0);
    tx.finalizeIdx(0);
    const prevouts = [{ script: funding.script, value: funding.value }];
    assert.deepEqual(verifyTransactionScripts(tx.hex, prevouts), { ok: true });

    // the same witness against an output committing to another internal key is a commitment mismatch
    const other = p2tr(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true).subarray(1), { script: leaf.script }, undefined, true);
    const result = verifyTransactionScripts(tx.hex, [{ script: other.script, value: funding.value }]);
    assert.equal(result.ok, false);
  });
});
