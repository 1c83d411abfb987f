// The Elements wallet primitives the devnet's elementsregtest node will use: SLIP-77 blinding keys, confidential
// and unconfidential addresses, getaddressinfo and dumpblindingkey.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { address } from 'liquidjs-lib';
import { fromHex, toHex } from '../../src/devnet/bitcoin/bytes.ts';
import { confidentialAddress, decodeAddress } from '../../src/devnet/elements/wallet/address.ts';
import { blindingKeyForScript, hash160, masterBlindingKeyFromSeed } from '../../src/devnet/elements/wallet/keys.ts';
import { ELEMENTS_REGTEST, POLICY_ASSET, loadZkp, type Zkp } from '../../src/devnet/elements/wallet/network.ts';
import { ElementsWallet } from '../../src/devnet/elements/wallet/wallet.ts';

let zkp: Zkp;
let alice: ElementsWallet;
let bob: ElementsWallet;

before(async () => {
  zkp = await loadZkp();
  alice = new ElementsWallet(new Uint8Array(32).fill(1), zkp);
  bob = new ElementsWallet(new Uint8Array(32).fill(2), zkp);
});

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
