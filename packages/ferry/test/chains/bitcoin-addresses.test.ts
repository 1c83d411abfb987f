// Output scripts written as addresses: Taproot outputs take a direct bech32m path (issue 28: the library's curve
// check was a measurable share of each creation); it must give the library's address for every real key, on every
// network, and, as Bitcoin Core does, an address for a witness v1 program that is not a key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32m, hex } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import { NETWORKS, addressOf, scriptOf } from '../../src/chains/bitcoin/network.ts';

const networks = Object.keys(NETWORKS) as (keyof typeof NETWORKS)[];

describe('Bitcoin output script to address', () => {
  test("a Taproot output's address is btc-signer's, and reads back to the script, on every network", () => {
    for (let i = 0; i < 100; i++) {
      const script = new Uint8Array([0x51, 0x20, ...schnorr.getPublicKey(secp256k1.utils.randomSecretKey())]);
      for (const network of networks) {
        const address = addressOf(network, script);
        assert.equal(address, Address(NETWORKS[network]).encode(OutScript.decode(script)));
        assert.deepEqual(scriptOf(network, address), script);
      }
    }
  });

  test('a witness v1 program that is no key still has its address, as in Bitcoin Core', () => {
    const program = hex.decode('0000000000000000000000000000000000000000000000000000000000000005');
    assert.throws(() => secp256k1.Point.fromHex('02' + hex.encode(program)));
    const decoded = bech32m.decode(addressOf('regtest', new Uint8Array([0x51, 0x20, ...program])) as `${string}1${string}`);
    assert.equal(decoded.prefix, 'bcrt');
    assert.equal(decoded.words[0], 1);
    assert.deepEqual(bech32m.fromWords(decoded.words.slice(1)), program);
  });

  test('other scripts keep the library path: P2WPKH, P2WSH, P2PKH, P2SH', () => {
    for (const output of [OutScript.encode({ type: 'wpkh', hash: new Uint8Array(20).fill(1) }), OutScript.encode({ type: 'wsh', hash: new Uint8Array(32).fill(2) }),
      OutScript.encode({ type: 'pkh', hash: new Uint8Array(20).fill(3) }), OutScript.encode({ type: 'sh', hash: new Uint8Array(20).fill(4) })]) {
      assert.equal(addressOf('mainnet', output), Address(NETWORKS.mainnet).encode(OutScript.decode(output)));
    }
  });
});
