// The legacy (v1) swap sizes Ferry prices its v1 pairs with are those of the transactions really built: Ferry's
// claim of a P2SH-nested P2WSH submarine lockup (its own code), and a client's claim of a P2WSH reverse lockup
// (boltz-core, as v1 wallets build it). Each stated size covers the transaction and is at most a few vbytes over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { OutScript, Transaction } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction, reverseSwapScript, swapScript } from 'boltz-core';
import type { ClaimDetails } from 'boltz-core';
import { BITCOIN_LEGACY_SIZES, BITCOIN_SIZES } from '../../src/chains/bitcoin/backend.ts';
import { legacyClaim, legacyOutputScripts } from '@ferry/sdk/chains/bitcoin/spends.js';

const key = () => {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
};
const vsizeOf = (rawHex: string) => Transaction.fromRaw(hex.decode(rawHex), { allowUnknownOutputs: true }).vsize;
// Ferry sweeps to its wallet's Taproot addresses; wallets claim to SegWit v0 or v1 ones.
const taprootDestination = () => OutScript.encode({ type: 'tr', pubkey: key().publicKey.slice(1) });
const SLACK = 3;

test("Ferry's legacy submarine claim (P2SH-P2WSH, <signature> <preimage> <redeem script>) fits BITCOIN_LEGACY_SIZES.claim", () => {
  for (let round = 0; round < 5; round++) {
    const [claim, refund] = [key(), key()];
    const preimage = randomBytes(32);
    const redeemScript = swapScript(sha256(preimage), claim.publicKey, refund.publicKey, 2_000_000 + round);
    const built = legacyClaim({
      output: { txid: hex.encode(randomBytes(32)), vout: 0, value: 100_000n, script: legacyOutputScripts(redeemScript)['p2sh-p2wsh'] },
      outputType: 'p2sh-p2wsh',
      redeemScript,
      privateKey: claim.privateKey,
      preimage,
      destination: taprootDestination(),
      feeRate: 1,
    });
    const vsize = vsizeOf(built.hex);
    assert.ok(vsize <= BITCOIN_LEGACY_SIZES.claim && vsize >= BITCOIN_LEGACY_SIZES.claim - SLACK, `claim is ${vsize} vB`);
  }
  assert.ok(BITCOIN_LEGACY_SIZES.claim > BITCOIN_SIZES.claim, 'a legacy claim costs more than a Taproot one');
});

test("a wallet's legacy reverse claim (P2WSH, built by boltz-core) fits BITCOIN_LEGACY_SIZES.clientClaim", () => {
  for (let round = 0; round < 5; round++) {
    const [claim, refund] = [key(), key()];
    const preimage = randomBytes(32);
    const redeemScript = reverseSwapScript(sha256(preimage), claim.publicKey, refund.publicKey, 2_000_000 + round);
    const details = {
      type: OutputType.Bech32,
      redeemScript,
      preimage,
      privateKey: claim.privateKey,
      transactionId: hex.encode(randomBytes(32)),
      vout: 0,
      script: legacyOutputScripts(redeemScript).p2wsh,
      amount: 100_000n,
    };
    const tx = constructClaimTransaction([details as unknown as ClaimDetails], taprootDestination(), 200n, true);
    const vsize = vsizeOf(hex.encode(tx.toBytes(true, true)));
    assert.ok(vsize <= BITCOIN_LEGACY_SIZES.clientClaim && vsize >= BITCOIN_LEGACY_SIZES.clientClaim - SLACK, `client claim is ${vsize} vB`);
  }
});
