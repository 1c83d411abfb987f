// The Elements verifier on new asset issuances, built by liquidjs-lib's own PSET issuance support (not the devnet
// wallet): explicit and blinded issued amounts are accepted, an input paying out more of the new asset than it
// issues or a malformed issuance is refused with elementsd's 'bad-txns-in-ne-out'; and the devnet wallet's builder
// issuing from the first of several inputs proves its outputs' assets over elementsd's interleaved domain.
// Every assert.ok carries a message: without one, node rebuilds it by parsing tsx's one-line output, which hangs.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { confidential, Transaction, type Secp256k1Interface } from 'liquidjs-lib';
import { explicitOutput, toPrevout } from '@ferry/devnet/elements/tx.js';
import { verifyElementsTransaction, type ElementsCheck } from '@ferry/devnet/elements/verify/index.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { ElementsKeys, createTransaction, loadZkp as loadWalletZkp, explicitOutput as openExplicit, type SpendableCoin } from '@ferry/devnet/elements/wallet/index.js';
import { issuedIds } from '@ferry/devnet/elements/wallet/issuance.js';
import { issueFrom, type IssuanceCoin } from '../helpers/issuance.ts';
import { fund, newKey, p2wpkh, prevoutOf, setup, type Funding } from '../helpers/liquid.ts';

const IN_NE_OUT = 'bad-txns-in-ne-out';
const COIN_VALUE = 100_000;
let funding: Funding;
let coin: IssuanceCoin;

before(async () => {
  await setup();
  const owner = newKey();
  funding = fund(newKey(), [{ script: p2wpkh(owner), amount: COIN_VALUE }]);
  coin = { txid: funding.tx.getId(), vout: 0, output: funding.tx.outs[0], value: COIN_VALUE, owner, blindingKey: funding.blindingKeys.get(0) };
});

const verify = (tx: Transaction): Promise<ElementsCheck> => verifyElementsTransaction(tx.toHex(), [prevoutOf(funding.tx.outs[0])]);

function assertRejected(result: ElementsCheck, detail: RegExp): void {
  assert.equal(result.ok, false, 'expected a rejection');
  if (result.ok) return;
  assert.equal(result.reason, IN_NE_OUT);
  assert.match(result.detail ?? '', /^value in != value out \(devnet: /);
  assert.match(result.detail ?? '', detail);
}

function mutate(tx: Transaction, change: (copy: Transaction) => void): Transaction {
  const copy = Transaction.fromHex(tx.toHex());
  change(copy);
  return copy;
}

describe('Elements verifier: new asset issuances', () => {
  test('an explicit issuance of an asset and tokens, paid to blinded outputs, is accepted', async () => {
    const built = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 1, blinded: false });
    assert.deepEqual(await verify(built.tx), { ok: true });
    // The asset output opens to the id the issuance's entropy gives.
    const zkp = (await loadZkp()) as unknown as Secp256k1Interface;
    const out = built.tx.outs.find((o) => o.script.equals(built.assetOwner.script))!;
    const opened = new confidential.Confidential(zkp).unblindOutputWithKey(out, built.assetOwner.blindingKey);
    assert.equal(Buffer.from(opened.asset).reverse().toString('hex'), built.asset);
    assert.equal(opened.value, '1000');
  });

  test('a blinded issuance (amount commitments with range proofs; the token id of a blinded issuance) is accepted', async () => {
    const built = await issueFrom(coin, { assetAmount: 5_000, tokenAmount: 2, blinded: true });
    assert.match(built.tx.ins[0].issuance!.assetAmount.toString('hex'), /^0[89]/, 'the issued amount is a commitment');
    assert.deepEqual(await verify(built.tx), { ok: true });
  });

  test('outputs paying more of the new asset than the input issues are refused (explicit and blinded)', async () => {
    for (const blinded of [false, true]) {
      const forged = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 0, blinded, forgeIssued: 600 });
      assertRejected(await verify(forged.tx), /value commitments do not balance/);
    }
  });

  test('malformed issuances are refused', async () => {
    const { tx } = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 1, blinded: false });
    const zero = Buffer.concat([Buffer.of(0x01), Buffer.alloc(8)]);
    const withZero = mutate(tx, (t) => {
      t.ins[0].issuance!.assetAmount = zero;
    });
    assertRejected(await verify(withZero), /issuance asset amount is not a positive amount/);
    const negative = Buffer.concat([Buffer.of(0x01), Buffer.alloc(8, 0xff)]); // -1 as elementsd's int64
    const withNegative = mutate(tx, (t) => {
      t.ins[0].issuance!.tokenAmount = negative;
    });
    assertRejected(await verify(withNegative), /token amount is not a positive amount/);
    const proved = mutate(tx, (t) => {
      t.ins[0].issuanceRangeProof = randomBytes(64);
    });
    assertRejected(await verify(proved), /explicit but carries a range proof/);
    const blinded = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 0, blinded: true });
    const badProof = mutate(blinded.tx, (t) => {
      const proof = Buffer.from(t.ins[0].issuanceRangeProof!);
      proof[proof.length - 10] ^= 1;
      t.ins[0].issuanceRangeProof = proof;
    });
    assertRejected(await verify(badProof), /range proof that does not verify/);
  });
});

describe('the devnet wallet builder: issuing from the first of several inputs', () => {
  test('its blinded outputs prove their assets over elementsd\'s order (input 0, its asset and token, input 1, ...)', async () => {
    const zkp = await loadWalletZkp();
    const keys = new ElementsKeys(randomBytes(32), zkp.ecc);
    const coins: SpendableCoin[] = [0, 1, 2].map((i) => {
      const key = keys.derive('bech32', 0, i);
      const output = explicitOutput(keys.outputScript('bech32', key.publicKey), 40_000n);
      return { txid: randomBytes(32).toString('hex'), vout: i, output, unblinded: openExplicit(output), key };
    });
    const to = (i: number) => {
      const script = keys.outputScript('bech32', keys.derive('bech32', 1, i).publicKey);
      return { script, blindingKey: keys.blindingKey(script).publicKey };
    };
    for (const [blind, assetAmount, tokenAmount] of [[false, 700n, 3n], [true, 700n, 3n], [false, 0n, 3n]] as const) {
      const issuance = { assetAmount, tokenAmount, blind, blindingPrivateKey: randomBytes(32), assetTo: to(0), tokenTo: to(1) };
      const signed = createTransaction(zkp, { coins, recipients: [], fee: 500n, change: to(2), issuance });
      const ids = issuedIds(coins[0], issuance);
      const result = await verifyElementsTransaction(signed.hex, coins.map((c) => toPrevout(c.output)));
      assert.deepEqual(result, { ok: true }, `blind=${blind} asset=${assetAmount} tokens=${tokenAmount}`);
      const paid = signed.outputs.filter((o) => o.asset === ids.asset || o.asset === ids.token).map((o) => [o.asset, o.value, o.blinded]);
      assert.deepEqual(paid, [
        ...(assetAmount > 0n ? [[ids.asset, assetAmount, true]] : []),
        [ids.token, tokenAmount, true],
      ]);
      const prefix = signed.tx.ins[0].issuance!.assetAmount[0];
      const expected = assetAmount === 0n ? [0x00] : blind ? [0x08, 0x09] : [0x01];
      assert.ok(expected.includes(prefix), `the issued amount is null, a commitment or explicit (${prefix})`);
    }
  });
});
