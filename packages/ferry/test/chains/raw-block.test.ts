// The watcher's wire-format reader against transactions built and signed by @scure/btc-signer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as btc from '@scure/btc-signer';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { inputWitness, parseBlock, parseTransaction, transactionHex } from '../../src/chains/bitcoin/raw-block.ts';
import { internalTxid } from '../../src/chains/watcher/codec.ts';

const sha256d = (bytes: Uint8Array) =>
  createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();

function signedTx() {
  const segwitKey = secp256k1.utils.randomSecretKey();
  const legacyKey = secp256k1.utils.randomSecretKey();
  const taprootKey = secp256k1.utils.randomSecretKey();
  const wpkh = btc.p2wpkh(secp256k1.getPublicKey(segwitKey, true), btc.TEST_NETWORK);
  const pkh = btc.p2pkh(secp256k1.getPublicKey(legacyKey, true), btc.TEST_NETWORK);
  const tr = btc.p2tr(schnorr.getPublicKey(taprootKey), undefined, btc.TEST_NETWORK);
  const previous = new btc.Transaction();
  previous.addInput({ txid: randomBytes(32), index: 0 });
  previous.addOutput({ script: pkh.script, amount: 50_000n });
  const tx = new btc.Transaction();
  tx.addInput({ txid: randomBytes(32), index: 3, witnessUtxo: { script: wpkh.script, amount: 100_000n } });
  tx.addInput({ txid: previous.id, index: 0, nonWitnessUtxo: previous.toBytes(true, false) });
  tx.addInput({ txid: randomBytes(32), index: 1, witnessUtxo: { script: tr.script, amount: 70_000n }, tapInternalKey: tr.tapInternalKey });
  tx.addOutput({ script: wpkh.script, amount: 150_000n });
  tx.addOutput({ script: tr.script, amount: 60_000n });
  tx.signIdx(segwitKey, 0);
  tx.signIdx(legacyKey, 1);
  tx.signIdx(taprootKey, 2);
  tx.finalize();
  return { tx, previous };
}

test('reads txid, outpoints, outputs and witnesses of a mixed segwit/legacy/taproot transaction', () => {
  const { tx } = signedTx();
  const parsed = parseTransaction(tx.hex);
  assert.equal(parsed.txid, tx.id);
  assert.equal(transactionHex(parsed), tx.hex);
  assert.equal(parsed.isCoinbase, false);
  assert.equal(parsed.inputs.length, 3);
  for (let i = 0; i < 3; i++) {
    const input = tx.getInput(i);
    assert.equal(parsed.inputs[i].prevTxidInternal, internalTxid(hex.encode(input.txid!)));
    assert.equal(parsed.inputs[i].prevVout, input.index);
    assert.deepEqual(inputWitness(parsed, i), (input.finalScriptWitness ?? []).map((item) => hex.encode(item)));
  }
  assert.equal(inputWitness(parsed, 1).length, 0, 'the legacy input has no witness');
  assert.equal(inputWitness(parsed, 0).length, 2);
  assert.equal(inputWitness(parsed, 2).length, 1);
  assert.deepEqual(
    parsed.outputs.map((o) => [o.scriptHex, o.value]),
    [0, 1].map((i) => [hex.encode(tx.getOutput(i).script!), tx.getOutput(i).amount]),
  );
});

test('reads a legacy transaction and a block of several transactions', () => {
  const { tx, previous } = signedTx();
  const legacy = parseTransaction(previous.hex);
  assert.equal(legacy.txid, previous.id);
  assert.equal(legacy.inputs[0].witnessOffset, -1);

  const header = new Uint8Array(80);
  const parentHash = randomBytes(32);
  header.set(parentHash, 4);
  const body = [previous.toBytes(true, true), tx.toBytes(true, true)];
  const blockHex = hex.encode(header) + '02' + body.map((b) => hex.encode(b)).join('');
  const block = parseBlock(blockHex);
  assert.equal(block.hash, Buffer.from(sha256d(header)).reverse().toString('hex'));
  assert.equal(block.previousHash, Buffer.from(parentHash).reverse().toString('hex'));
  assert.deepEqual(block.transactions.map((t) => t.txid), [previous.id, tx.id]);
  assert.equal(transactionHex(block.transactions[1]), tx.hex);
  assert.deepEqual(inputWitness(block.transactions[1], 0), tx.getInput(0).finalScriptWitness!.map((w) => hex.encode(w)));
});

test('rejects truncated data instead of reading past it', () => {
  const { tx } = signedTx();
  assert.throws(() => parseTransaction(tx.hex.slice(0, -10)), /truncated/);
  assert.throws(() => parseTransaction(tx.hex + '00'), /trailing/);
});
