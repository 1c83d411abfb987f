// The Elements wallet primitives the devnet's elementsregtest node will use: SLIP-77 blinding keys, confidential
// and unconfidential addresses, a blinded transaction whose receivers each unblind only their own output, the
// balance of values and blinders, and P2WPKH signatures over Elements' segwit v0 sighash.
// Every assert.ok carries a message: without one, node rebuilds it by parsing tsx's one-line output, which hangs.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mnemonicToSeedSync } from '@scure/bip39';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { AssetHash, ElementsValue, Transaction, ZKPValidator, address, confidential, type TxOutput } from 'liquidjs-lib';
import { fromHex, toHex } from '../../src/bitcoin/bytes.ts';
import { confidentialAddress, decodeAddress, unconfidentialAddress } from '../../src/elements/wallet/address.ts';
import { blindingKeyForScript, hash160, masterBlindingKeyFromSeed } from '../../src/elements/wallet/keys.ts';
import { ELEMENTS_REGTEST, POLICY_ASSET, loadZkp, type Zkp } from '../../src/elements/wallet/network.ts';
import { DEFAULT_GENESIS_HASH, createTransaction, type SpendableCoin } from '../../src/elements/wallet/send.ts';
import { verifyEcdsa } from '../../src/elements/wallet/sign.ts';
import { UnblindError, explicitOutput, unblindOutput, type Unblinded } from '@ferry/sdk/chains/liquid/unblind.js';
import { unblindTransaction, unspentBlindingFields } from '../../src/elements/wallet/views.ts';
import { ElementsWallet, type WalletAddress } from '../../src/elements/wallet/wallet.ts';

let zkp: Zkp;
let alice: ElementsWallet;
let bob: ElementsWallet;
let carol: ElementsWallet;

before(async () => {
  zkp = await loadZkp();
  alice = new ElementsWallet(new Uint8Array(32).fill(1), zkp);
  bob = new ElementsWallet(new Uint8Array(32).fill(2), zkp);
  carol = new ElementsWallet(new Uint8Array(32).fill(3), zkp);
});

/** An explicit policy-asset coin at a wallet address, as a block subsidy or an unblinded payment leaves it. */
function explicitCoin(to: WalletAddress, amount: number, txid: string): SpendableCoin {
  const output: TxOutput = {
    script: Buffer.from(to.script),
    value: ElementsValue.fromNumber(amount).bytes,
    asset: AssetHash.fromHex(POLICY_ASSET).bytes,
    nonce: Buffer.of(0),
  };
  return { txid, vout: 0, output, unblinded: explicitOutput(output), key: to.key };
}

const N = secp256k1.Point.CURVE().n;
const scalar = (bytes: Uint8Array): bigint => BigInt(`0x${toHex(bytes) || '0'}`) % N;
/** Commitment v·H + vbf·G with H = A + abf·G: one asset balances when Σv and Σ(v·abf + vbf) both balance. */
const blindingTerm = (u: Unblinded): bigint => (u.value * scalar(u.assetBlinder) + scalar(u.valueBlinder)) % N;

describe('keys and addresses', () => {
  test('SLIP-77: the master blinding key and a script key match the SLIP-0077 test vector', () => {
    const master = masterBlindingKeyFromSeed(mnemonicToSeedSync(Array(12).fill('all').join(' ')));
    assert.equal(toHex(master), '6c2de18eabeff3f7822bc724ad482bef0557f3e1c1e1c75b7a393a5ced4de616');
    const key = blindingKeyForScript(master, fromHex('76a914a579388225827d9f2fe9014add644487808c695d88ac'));
    assert.equal(toHex(key.privateKey), '4e6e94df28448c7bb159271fe546da464ea863b3887d2eec6afd841184b70592');
  });

  test('elementsregtest prefixes: blech32 el, bech32 ert, base58 235/75, confidential prefix 4', () => {
    assert.equal(ELEMENTS_REGTEST.blech32, 'el');
    assert.equal(ELEMENTS_REGTEST.bech32, 'ert');
    assert.equal(ELEMENTS_REGTEST.pubKeyHash, 235);
    assert.equal(ELEMENTS_REGTEST.scriptHash, 75);
    assert.equal(ELEMENTS_REGTEST.confidentialPrefix, 4);
    assert.equal(ELEMENTS_REGTEST.assetHash, POLICY_ASSET);
  });

  test('an address elementsd (elementsregtest) gave decodes to its validateaddress fields and encodes back', () => {
    const shown = {
      address: 'el1qq2akgh05kecfktl64u9w66rgxkh7vxr0k76ejkx9y2j8mjtg29z96kk2qyqlm6c98yzpe95snzra6qeluvg8c8a2keyvvsrnc',
      scriptPubKey: '00145aca0101fdeb0539041c96909887dd033fe3107c',
      confidential_key: '02bb645df4b6709b2ffaaf0aed686835afe6186fb7b59958c522a47dc96851445d',
      unconfidential: 'ert1qtt9qzq0aavznjpquj6gf3p7aqvl7xyruythjue',
    };
    const decoded = decodeAddress(shown.address);
    assert.equal(toHex(decoded.script), shown.scriptPubKey);
    assert.equal(toHex(decoded.blindingKey!), shown.confidential_key);
    assert.equal(decoded.unconfidential, shown.unconfidential);
    assert.equal(confidentialAddress(fromHex(shown.scriptPubKey), fromHex(shown.confidential_key)), shown.address);
    assert.equal(unconfidentialAddress(fromHex(shown.scriptPubKey)), shown.unconfidential);
  });

  for (const [kind, witness] of [['bech32', 'q'], ['bech32m', 'p']] as const) {
    test(`${kind}: confidential el1${witness}… and unconfidential ert1${witness}… round-trip, carrying the blinding key`, () => {
      const a = alice.newAddress(kind);
      assert.ok(a.confidential.startsWith(`el1${witness}`), a.confidential);
      assert.ok(a.unconfidential.startsWith(`ert1${witness}`), a.unconfidential);
      assert.deepEqual(a.blinding, blindingKeyForScript(alice.keys.masterBlindingKey, a.script));
      assert.equal(toHex(a.script.subarray(0, 2)), kind === 'bech32' ? '0014' : '5120');
      if (kind === 'bech32') assert.deepEqual(a.script.subarray(2), hash160(a.key.publicKey));

      const decoded = decodeAddress(a.confidential);
      assert.deepEqual(decoded.blindingKey, a.blinding.publicKey);
      assert.deepEqual(decoded.script, a.script);
      assert.equal(decoded.unconfidential, a.unconfidential);
      assert.equal(decodeAddress(a.unconfidential).blindingKey, undefined);
      assert.equal(confidentialAddress(decodeAddress(a.unconfidential).script, a.blinding.publicKey), a.confidential);
      // liquidjs-lib reads the same key and the same unconfidential address out of it
      const parsed = address.fromConfidential(a.confidential);
      assert.equal(toHex(parsed.blindingKey), toHex(a.blinding.publicKey));
      assert.equal(parsed.unconfidentialAddress, a.unconfidential);
    });
  }

  test('getaddressinfo and dumpblindingkey answer as elementsd does', () => {
    const a = alice.newAddress('bech32');
    const info = alice.addressInfo(a.confidential);
    assert.equal(info.ismine, true);
    assert.equal(info.confidential, a.confidential);
    assert.equal(info.unconfidential, a.unconfidential);
    assert.equal(info.confidential_key, toHex(a.blinding.publicKey));
    assert.equal(info.scriptPubKey, toHex(a.script));
    assert.equal(info.pubkey, toHex(a.key.publicKey));
    assert.equal(info.witness_version, 0);
    assert.equal(info.witness_program, toHex(hash160(a.key.publicKey)));
    const tr = alice.addressInfo(alice.newAddress('bech32m').confidential);
    assert.deepEqual([tr.witness_version, tr.pubkey, tr.iswitness, tr.hdkeypath], [1, undefined, true, "m/86'/1'/0'/0/1"]);
    assert.equal(alice.addressInfo(alice.newAddress('bech32', true).unconfidential).ischange, true);
    // the unconfidential form: the wallet's confidential address, but no key carried by the address itself
    const plain = alice.addressInfo(a.unconfidential);
    assert.equal(plain.confidential, a.confidential);
    assert.equal(plain.confidential_key, '');
    assert.equal(plain.ismine, true);
    // our script under someone else's blinding key: we could not unblind what it receives
    const foreign = confidentialAddress(a.script, bob.newAddress().blinding.publicKey);
    assert.equal(alice.addressInfo(foreign).ismine, false);
    assert.equal(bob.addressInfo(a.confidential).ismine, false);

    const dumped = alice.dumpBlindingKey(a.confidential);
    assert.equal(dumped, toHex(a.blinding.privateKey));
    assert.equal(toHex(secp256k1.getPublicKey(fromHex(dumped), true)), info.confidential_key);
    assert.throws(() => alice.dumpBlindingKey(a.unconfidential), /Not a CT address/);
    assert.throws(() => bob.dumpBlindingKey(a.confidential), /Blinding key for address is unknown/);
    assert.throws(() => alice.addressInfo('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'), /Invalid address/);
  });
});

describe('a confidential transaction', () => {
  let funding: SpendableCoin[];
  let bobAddress: WalletAddress;
  let carolAddress: WalletAddress;
  let carolPlain: WalletAddress;
  let change: WalletAddress;
  let tx: Transaction;
  let firstOutputs: TxOutput[];
  const FEE = 500n;

  before(() => {
    // alice first blinds an explicit coin to herself, then spends that blinded coin with a second, explicit one
    const start = alice.newAddress('bech32');
    const own = alice.newAddress('bech32');
    const first = createTransaction(zkp, {
      coins: [explicitCoin(start, 1_000_000, 'aa'.repeat(32))],
      recipients: [{ script: own.script, amount: 600_000n, blindingKey: own.blinding.publicKey }],
      fee: 300n,
      change: { script: alice.newAddress('bech32', true).script },
    });
    firstOutputs = first.tx.outs;
    const blindedOut = first.tx.outs[0];
    const blindedCoin: SpendableCoin = {
      txid: first.txid, vout: 0, output: blindedOut, key: own.key,
      unblinded: unblindOutput(zkp, blindedOut, own.blinding.privateKey),
    };
    funding = [blindedCoin, explicitCoin(start, 50_000, 'bb'.repeat(32))];

    bobAddress = bob.newAddress('bech32');
    carolAddress = carol.newAddress('bech32');
    carolPlain = carol.newAddress('bech32');
    change = alice.newAddress('bech32', true);
    const built = createTransaction(zkp, {
      coins: funding,
      recipients: [
        { script: bobAddress.script, amount: 200_000n, blindingKey: bobAddress.blinding.publicKey },
        { script: carolAddress.script, amount: 150_000n, blindingKey: carolAddress.blinding.publicKey },
        { script: carolPlain.script, amount: 10_000n }, // explicit
      ],
      fee: FEE,
      change: { script: change.script, blindingKey: change.blinding.publicKey },
    });
    tx = Transaction.fromHex(built.hex); // what a node would receive
    assert.equal(tx.getId(), built.txid);
  });

  test('the first spend blinded its outputs and the coin unblinds to 600,000 sat of L-BTC', () => {
    assert.equal(funding[0].unblinded.value, 600_000n);
    assert.equal(funding[0].unblinded.asset, POLICY_ASSET);
    assert.equal(funding[0].output.value.length, 33); // a Pedersen commitment, not an explicit value
    assert.notDeepEqual(funding[0].unblinded.valueBlinder, new Uint8Array(32));
    // a lone blinded output of explicit coins gets a blinded 0-value OP_RETURN beside it, as elementsd adds one
    assert.deepEqual(firstOutputs.map((o) => toHex(o.script).slice(0, 4)), ['0014', '0014', '6a', '']);
    assert.equal(firstOutputs[2].value.length, 33);
    assert.equal(firstOutputs[1].value.length, 9); // the explicit change
  });

  test('outputs: two confidential payments, one explicit, confidential change, explicit fee', () => {
    assert.equal(tx.outs.length, 5);
    for (const i of [0, 1, 3]) {
      assert.equal(tx.outs[i].value.length, 33, `value commitment of output ${i}`);
      assert.equal(tx.outs[i].asset.length, 33, `asset commitment of output ${i}`);
      assert.equal(tx.outs[i].nonce.length, 33, `ECDH nonce commitment of output ${i}`);
      assert.ok(tx.outs[i].rangeProof!.length > 0 && tx.outs[i].surjectionProof!.length > 0, `proofs of output ${i}`);
      // elementsd's defaults: -ct_exponent 0, -ct_bits 52, minimum value 1
      const info = new confidential.Confidential(zkp).rangeProofInfo(tx.outs[i].rangeProof!);
      assert.deepEqual([info.ctExp, info.ctBits, info.minValue], [0, 52, 1]);
    }
    assert.deepEqual(explicitOutput(tx.outs[2]), {
      value: 10_000n, asset: POLICY_ASSET, valueBlinder: new Uint8Array(32), assetBlinder: new Uint8Array(32),
    });
    assert.equal(tx.outs[4].script.length, 0);
    assert.equal(explicitOutput(tx.outs[4]).value, FEE);
    assert.equal(explicitOutput(tx.outs[4]).asset, POLICY_ASSET);
  });

  test('each receiver unblinds exactly its own output; the other key fails cleanly', () => {
    const atBob = unblindOutput(zkp, tx.outs[0], bobAddress.blinding.privateKey);
    assert.equal(atBob.value, 200_000n);
    assert.equal(atBob.asset, POLICY_ASSET);
    const atCarol = unblindOutput(zkp, tx.outs[1], carolAddress.blinding.privateKey);
    assert.equal(atCarol.value, 150_000n);
    assert.equal(atCarol.asset, POLICY_ASSET);
    assert.throws(() => unblindOutput(zkp, tx.outs[0], carolAddress.blinding.privateKey), UnblindError);
    assert.throws(() => unblindOutput(zkp, tx.outs[1], bobAddress.blinding.privateKey), UnblindError);
    assert.throws(() => unblindOutput(zkp, tx.outs[3], bobAddress.blinding.privateKey), UnblindError);
    // the key dumpblindingkey gives for the address unblinds as well
    assert.equal(unblindOutput(zkp, tx.outs[0], fromHex(bob.dumpBlindingKey(bobAddress.confidential))).value, 200_000n);
  });

  test('listunspent fields and unblindrawtransaction show what each wallet opens', () => {
    const opened = unblindOutput(zkp, tx.outs[0], bobAddress.blinding.privateKey);
    const fields = unspentBlindingFields(tx.outs[0], opened);
    assert.equal(fields.amount, 0.002);
    assert.equal(fields.asset, POLICY_ASSET);
    assert.equal(fields.amountblinder, toHex(Uint8Array.from(opened.valueBlinder).reverse()));
    assert.equal(fields.assetblinder, toHex(Uint8Array.from(opened.assetBlinder).reverse()));
    assert.match(fields.amountcommitment!, /^0[89][0-9a-f]{64}$/);
    assert.match(fields.assetcommitment!, /^0[ab][0-9a-f]{64}$/);
    assert.deepEqual(unspentBlindingFields(tx.outs[2], explicitOutput(tx.outs[2])), {
      amount: 0.0001, asset: POLICY_ASSET, amountblinder: '0'.repeat(64), assetblinder: '0'.repeat(64),
    });

    const forBob = Transaction.fromHex(unblindTransaction(zkp, tx, bob.blindingKeyOf).toHex());
    assert.deepEqual(explicitOutput(forBob.outs[0]).value, 200_000n);
    assert.equal(toHex(forBob.outs[0].nonce), '00');
    assert.equal(forBob.outs[0].rangeProof?.length ?? 0, 0);
    for (const i of [1, 3]) assert.deepEqual(forBob.outs[i], tx.outs[i], `output ${i} is not bob's and stays blinded`);
    assert.deepEqual(forBob.ins[0].witness, tx.ins[0].witness);
    const forAlice = unblindTransaction(zkp, tx, alice.blindingKeyOf);
    assert.equal(explicitOutput(forAlice.outs[3]).value, 650_000n - 360_000n - FEE);
    assert.equal(forAlice.outs[0].value.length, 33);
  });

  test('amounts and blinders balance: inputs = outputs + fee, and the commitments open to them', () => {
    const opened = [
      unblindOutput(zkp, tx.outs[0], bobAddress.blinding.privateKey),
      unblindOutput(zkp, tx.outs[1], carolAddress.blinding.privateKey),
      explicitOutput(tx.outs[2]),
      unblindOutput(zkp, tx.outs[3], change.blinding.privateKey),
      explicitOutput(tx.outs[4]),
    ];
    const inputs = funding.map((c) => c.unblinded);
    const sum = (xs: Unblinded[]) => xs.reduce((s, u) => s + u.value, 0n);
    assert.equal(sum(inputs), 650_000n);
    assert.equal(opened[3].value, 650_000n - 200_000n - 150_000n - 10_000n - FEE);
    assert.equal(sum(inputs), sum(opened));
    const terms = (xs: Unblinded[]) => xs.reduce((s, u) => (s + blindingTerm(u)) % N, 0n);
    assert.equal(terms(inputs), terms(opened));

    // each commitment is the Pedersen commitment of its opening, and its proofs verify
    const ct = new confidential.Confidential(zkp);
    const validator = new ZKPValidator(zkp);
    const assetId = (hex: string) => AssetHash.fromHex(hex).bytesWithoutPrefix;
    for (const i of [0, 1, 3]) {
      const out = tx.outs[i];
      const u = opened[i];
      const assetCommitment = ct.assetCommitment(assetId(u.asset), Buffer.from(u.assetBlinder));
      assert.deepEqual(assetCommitment, out.asset);
      assert.deepEqual(ct.valueCommitment(u.value.toString(), assetCommitment, Buffer.from(u.valueBlinder)), out.value);
      assert.ok(validator.verifyValueRangeProof(out.rangeProof!, out.value, out.asset, out.script), `range proof ${i}`);
      assert.ok(validator.verifyAssetSurjectionProof(
        inputs.map((c) => assetId(c.asset)), inputs.map((c) => Buffer.from(c.assetBlinder)),
        assetId(u.asset), Buffer.from(u.assetBlinder), out.surjectionProof!,
      ), `surjection proof ${i}`);
    }
  });

  test('P2WPKH signatures verify against the Elements segwit v0 sighash, which covers the blinded outputs', () => {
    tx.ins.forEach((input, i) => {
      const coin = funding[i];
      assert.equal(input.witness.length, 2);
      const [signature, publicKey] = input.witness;
      assert.deepEqual(new Uint8Array(publicKey), coin.key.publicKey);
      assert.equal(signature[signature.length - 1], Transaction.SIGHASH_ALL);
      const scriptCode = Buffer.from(`76a914${toHex(hash160(publicKey))}88ac`, 'hex');
      const sighash = tx.hashForWitnessV0(i, scriptCode, coin.output.value, Transaction.SIGHASH_ALL);
      const der = signature.subarray(0, -1);
      assert.ok(verifyEcdsa(publicKey, sighash, der), `input ${i}`);
      assert.ok(secp256k1.verify(der, sighash, publicKey, { prehash: false, format: 'der' }), `input ${i} (noble)`);
      // a different spent amount commitment (or another output) changes the sighash
      const other = tx.hashForWitnessV0(i, scriptCode, funding[1 - i].output.value, Transaction.SIGHASH_ALL);
      assert.equal(verifyEcdsa(publicKey, other, der), false);
      const changed = tx.clone();
      changed.outs[4].value = ElementsValue.fromNumber(Number(FEE) + 1).bytes;
      assert.equal(verifyEcdsa(publicKey, changed.hashForWitnessV0(i, scriptCode, coin.output.value, 1), der), false);
    });
  });

  test('a P2TR key-path coin: output key tweaked by TapTweak/elements, Schnorr signature over the Elements taproot sighash', () => {
    const tr = alice.newAddress('bech32m');
    const internal = tr.key.publicKey.subarray(1);
    const tweak = scalar(schnorr.utils.taggedHash('TapTweak/elements', internal));
    const P = schnorr.utils.lift_x(BigInt(`0x${toHex(internal)}`)); // the even-y internal key
    const Q = P.add(secp256k1.Point.BASE.multiply(tweak));
    assert.equal(toHex(tr.script.subarray(2)), toHex(Q.toBytes(true).subarray(1)));

    const wpkh = alice.newAddress('bech32');
    const coins = [explicitCoin(tr, 300_000, 'dd'.repeat(32)), explicitCoin(wpkh, 20_000, 'ee'.repeat(32))];
    const spend = Transaction.fromHex(createTransaction(zkp, {
      coins,
      recipients: [{ script: bobAddress.script, amount: 100_000n, blindingKey: bobAddress.blinding.publicKey }],
      fee: 400n,
      change: { script: change.script, blindingKey: change.blinding.publicKey },
    }).hex);
    assert.equal(spend.ins[0].witness.length, 1);
    const [signature] = spend.ins[0].witness;
    assert.equal(signature.length, 64); // SIGHASH_DEFAULT: no sighash byte
    const sighashWith = (genesis: Uint8Array) => spend.hashForWitnessV1(
      0, coins.map((c) => c.output.script), coins.map((c) => ({ asset: c.output.asset, value: c.output.value })),
      Transaction.SIGHASH_DEFAULT, Buffer.from(genesis),
    );
    assert.ok(schnorr.verify(signature, sighashWith(DEFAULT_GENESIS_HASH), tr.script.subarray(2)), 'P2TR input');
    assert.equal(schnorr.verify(signature, sighashWith(new Uint8Array(32).fill(9)), tr.script.subarray(2)), false);
    // the P2WPKH input beside it
    const [der, pub] = [spend.ins[1].witness[0].subarray(0, -1), spend.ins[1].witness[1]];
    const scriptCode = Buffer.from(`76a914${toHex(hash160(pub))}88ac`, 'hex');
    assert.ok(verifyEcdsa(pub, spend.hashForWitnessV0(1, scriptCode, coins[1].output.value, Transaction.SIGHASH_ALL), der), 'P2WPKH input');
    assert.equal(unblindOutput(zkp, spend.outs[0], bobAddress.blinding.privateKey).value, 100_000n);
  });

  test('refusals: short of funds, and blinded coins with no blinded output', () => {
    const start = alice.newAddress('bech32');
    assert.throws(() => createTransaction(zkp, {
      coins: [explicitCoin(start, 1_000, 'cc'.repeat(32))],
      recipients: [{ script: carolPlain.script, amount: 1_000n }],
      fee: 100n,
    }), /Insufficient funds/);
    assert.throws(() => createTransaction(zkp, {
      coins: [funding[0]],
      recipients: [{ script: carolPlain.script, amount: 600_000n - 100n }],
      fee: 100n,
    }), /needs at least one blinded output/);
  });
});
