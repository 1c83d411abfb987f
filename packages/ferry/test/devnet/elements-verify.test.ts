// The devnet's Elements transaction verifier against real confidential transactions built with
// liquidjs-lib and boltz-core's Liquid module: each kind of spend Ferry makes is accepted, and each
// way of cheating (forged proofs, unbalanced amounts, wrong sighash, wrong preimage, bad signature,
// early refund) is rejected with elementsd's reject reason.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { verifyElementsTransaction, type ElementsCheck } from '@ferry/devnet/elements/verify/index.js';
import {
  FEE,
  TIMEOUT,
  Transaction,
  claim,
  fund,
  keyPathScript,
  networks,
  newKey,
  newLockup,
  p2wpkh,
  prevoutOf,
  refund,
  setup,
  signP2wpkh,
  spendKeyPath,
  spendP2wpkh,
  type Funding,
  type Key,
  type Lockup,
} from '../helpers/liquid.ts';

const MANDATORY = 'mandatory-script-verify-flag-failed';
const NULLFAIL = `${MANDATORY} (Signature must be zero for failed CHECK(MULTI)SIG operation)`;
const SCHNORR = `${MANDATORY} (Invalid Schnorr signature)`;
const EQUALVERIFY = `${MANDATORY} (Script failed an OP_EQUALVERIFY operation)`;
const LOCKTIME = `${MANDATORY} (Locktime requirement not satisfied)`;
const IN_NE_OUT = 'bad-txns-in-ne-out';

const OWNER_AMOUNT = 100_000;
let owner: Key;
let keyPathOwner: Key;
let reverse: Lockup;
let submarine: Lockup;
let funding: Funding;

before(async () => {
  await setup();
  [owner, keyPathOwner] = [newKey(), newKey()];
  [reverse, submarine] = [newLockup('reverse'), newLockup('submarine')];
  funding = fund(newKey(), [
    { script: p2wpkh(owner), amount: OWNER_AMOUNT },
    { script: reverse.script, amount: 200_000 },
    { script: submarine.script, amount: 150_000 },
    { script: keyPathScript(keyPathOwner), amount: 120_000 },
  ]);
});

/** Verifies a spend of funding output `vout`. */
function verifySpend(tx: Transaction, vout: number): Promise<ElementsCheck> {
  return verifyElementsTransaction(tx.toHex(), [prevoutOf(funding.tx.outs[vout])]);
}

function assertRejected(result: ElementsCheck, reason: string, detail?: RegExp): void {
  assert.equal(result.ok, false, 'expected a rejection');
  if (result.ok) return;
  assert.equal(result.reason, reason);
  if (detail !== undefined) assert.match(result.detail ?? '', detail);
}

/** Re-parses `tx` and lets `change` edit the copy. */
function mutate(tx: Transaction, change: (copy: Transaction) => void): Transaction {
  const copy = Transaction.fromHex(tx.toHex());
  change(copy);
  return copy;
}

function flipByte(bytes: Buffer, at = Math.floor(bytes.length / 2)): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] ^= 0x01;
  return copy;
}

describe('Elements verifier: valid spends', () => {
  test('explicit coin to blinded outputs (the funding transaction)', async () => {
    assert.deepEqual(await verifyElementsTransaction(funding.tx.toHex(), funding.prevouts), { ok: true });
  });

  test('blinded P2WPKH spend', async () => {
    assert.deepEqual(await verifySpend(spendP2wpkh(funding, 0, owner), 0), { ok: true });
  });

  test('reverse swap claim by script path with the preimage', async () => {
    assert.deepEqual(await verifySpend(claim(funding, 1, reverse), 1), { ok: true });
  });

  test('submarine swap claim by script path with the preimage', async () => {
    assert.deepEqual(await verifySpend(claim(funding, 2, submarine), 2), { ok: true });
  });

  test('swap refund at the timeout', async () => {
    assert.deepEqual(await verifySpend(refund(funding, 1, reverse, TIMEOUT), 1), { ok: true });
  });

  test('Taproot key-path spend', async () => {
    assert.deepEqual(await verifySpend(spendKeyPath(funding, 3, keyPathOwner), 3), { ok: true });
  });
});

describe('Elements verifier: confidential amounts', () => {
  test('a range proof with a flipped byte', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[0].rangeProof = flipByte(tx.outs[0].rangeProof!);
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /range proof of output 0/);
  });

  test("another output's range proof", async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[0].rangeProof = funding.tx.outs[0].rangeProof;
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /range proof of output 0/);
  });

  test("another transaction's surjection proof", async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[0].surjectionProof = funding.tx.outs[0].surjectionProof;
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /surjection proof of output 0/);
  });

  test('a surjection proof with a flipped byte', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[0].surjectionProof = flipByte(tx.outs[0].surjectionProof!);
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /surjection proof of output 0/);
  });

  test('an output value commitment swapped for another', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[0].value = funding.tx.outs[1].value;
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /do not balance/);
  });

  test('a fee one satoshi lower', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.outs[1].value = explicitValue(FEE - 1);
    });
    assertRejected(await verifySpend(spend, 0), IN_NE_OUT, /do not balance/);
  });

  test('a spent output claimed to hold more than it does', async () => {
    const spend = spendP2wpkh(funding, 0, owner);
    const funded = mutate(funding.tx, (tx) => {
      tx.outs[0].value = funding.tx.outs[1].value;
    });
    const result = await verifyElementsTransaction(spend.toHex(), [prevoutOf(funded.outs[0])]);
    assertRejected(result, IN_NE_OUT, /do not balance/);
  });
});

describe('Elements verifier: signatures and scripts', () => {
  const scriptCode = (key: Key) => Buffer.concat([Buffer.of(0x76, 0xa9, 0x14), ripemd160(sha256(key.publicKey)), Buffer.of(0x88, 0xac)]);

  test('P2WPKH signed over the legacy (pre-segwit) sighash', async () => {
    const spend = spendP2wpkh(funding, 0, owner, (pset, index, key) =>
      signP2wpkh(pset, index, key, pset.unsignedTx().hashForSignature(index, scriptCode(key), Transaction.SIGHASH_ALL)),
    );
    assertRejected(await verifySpend(spend, 0), NULLFAIL);
  });

  test('P2WPKH signed over the unblinded amount instead of the value commitment', async () => {
    const spend = spendP2wpkh(funding, 0, owner, (pset, index, key) =>
      signP2wpkh(
        pset,
        index,
        key,
        pset.unsignedTx().hashForWitnessV0(index, scriptCode(key), explicitValue(OWNER_AMOUNT), Transaction.SIGHASH_ALL),
      ),
    );
    assertRejected(await verifySpend(spend, 0), NULLFAIL);
  });

  test('P2WPKH signed by another key', async () => {
    const stranger = newKey();
    const spend = spendP2wpkh(funding, 0, owner, (pset, index) =>
      signP2wpkh(pset, index, { privateKey: stranger.privateKey, publicKey: owner.publicKey }),
    );
    assertRejected(await verifySpend(spend, 0), NULLFAIL);
  });

  test('P2WPKH with a high-S signature is only refused by policy', async () => {
    const spend = spendP2wpkh(funding, 0, owner, (pset, index, key) => signP2wpkh(pset, index, key, undefined, false));
    const result = await verifySpend(spend, 0);
    assertRejected(result, 'non-mandatory-script-verify-flag (Non-canonical signature: S value is unnecessarily high)');
    assert.equal(!result.ok && result.inputIndex, 0);
  });

  test('key-path signature over another chain (Liquid mainnet genesis)', async () => {
    const spend = spendKeyPath(funding, 3, keyPathOwner, networks.liquid.genesisBlockHash);
    assertRejected(await verifySpend(spend, 3), SCHNORR);
  });

  test('key-path signature by the untweaked key', async () => {
    const spend = spendKeyPath(funding, 3, newKey());
    assertRejected(await verifySpend(spend, 3), SCHNORR);
  });

  test('claim with a wrong preimage', async () => {
    assertRejected(await verifySpend(claim(funding, 1, reverse, Buffer.alloc(32, 7)), 1), EQUALVERIFY);
    assertRejected(await verifySpend(claim(funding, 2, submarine, Buffer.alloc(32, 7)), 2), EQUALVERIFY);
  });

  test('claim with a preimage of the wrong size', async () => {
    assertRejected(await verifySpend(claim(funding, 1, reverse, Buffer.alloc(31, 7)), 1), EQUALVERIFY);
  });

  test('claim with a tampered signature', async () => {
    const spend = mutate(claim(funding, 1, reverse), (tx) => {
      tx.ins[0].witness[0] = flipByte(tx.ins[0].witness[0], 10);
    });
    assertRejected(await verifySpend(spend, 1), SCHNORR);
  });

  test('claim leaf under a control block for another tree', async () => {
    const spend = mutate(claim(funding, 1, reverse), (tx) => {
      tx.ins[0].witness[3] = flipByte(tx.ins[0].witness[3], 40);
    });
    assertRejected(await verifySpend(spend, 1), `${MANDATORY} (Witness program hash mismatch)`);
  });

  test('refund before the timeout', async () => {
    assertRejected(await verifySpend(refund(funding, 1, reverse, TIMEOUT - 1), 1), LOCKTIME);
  });

  test('refund with a final input sequence', async () => {
    assertRejected(await verifySpend(refund(funding, 1, reverse, TIMEOUT, false), 1), LOCKTIME);
  });

  test('a script the devnet cannot run is refused for relay only', async () => {
    // A P2WSH script of an opcode the devnet does not implement (OP_CAT).
    const script = Buffer.of(0x7e);
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.ins[0].witness = [script];
    });
    const prevout = { ...prevoutOf(funding.tx.outs[0]), script: Buffer.concat([Buffer.of(0x00, 0x20), sha256(script)]) };
    const result = await verifyElementsTransaction(spend.toHex(), [prevout]);
    assertRejected(result, 'non-mandatory-script-verify-flag (Opcode missing or not understood)', /not implemented/);
  });

  test('a SIGHASH_RANGEPROOF signature is refused for relay only', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      const signature = Buffer.from(tx.ins[0].witness[0]);
      signature[signature.length - 1] |= 0x40;
      tx.ins[0].witness[0] = signature;
    });
    const result = await verifySpend(spend, 0);
    assertRejected(result, 'non-mandatory-script-verify-flag (Opcode missing or not understood)', /SIGHASH_RANGEPROOF/);
  });
});

describe('Elements verifier: refused features', () => {
  // New issuances are verified (elements-issuance.test.ts); these inputs the devnet cannot judge.
  const withIssuance = (nonce: Buffer, assetAmount: Buffer): Transaction =>
    mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.ins[0].issuance = { assetBlindingNonce: nonce, assetEntropy: Buffer.alloc(32, 7), assetAmount, tokenAmount: Buffer.of(0x00) };
    });

  test('an asset reissuance', async () => {
    assertRejected(await verifySpend(withIssuance(Buffer.alloc(32, 1), explicitValue(1_000)), 0), 'devnet-unsupported', /reissuances/);
  });

  test('an issuance of nothing (elementsd would read the input as issuing nothing)', async () => {
    assertRejected(await verifySpend(withIssuance(Buffer.alloc(32), Buffer.of(0x00)), 0), 'devnet-unsupported', /neither an asset nor tokens/);
  });

  test('a peg-in', async () => {
    const spend = mutate(spendP2wpkh(funding, 0, owner), (tx) => {
      tx.ins[0].isPegin = true;
    });
    assertRejected(await verifySpend(spend, 0), 'devnet-unsupported', /peg-ins/);
  });
});

function explicitValue(amount: number): Buffer {
  const bytes = Buffer.alloc(9);
  bytes[0] = 0x01;
  bytes.writeBigUInt64BE(BigInt(amount), 1);
  return bytes;
}
