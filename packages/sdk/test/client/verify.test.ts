// The checks a wallet makes on a creation answer before it funds or pays anything, against answers built
// the way an honest service builds them (boltz-core trees, MuSig2 addresses, signed BOLT11 invoices) and
// against every kind of tampering with them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Musig, Scripts, TaprootUtils } from 'boltz-core';
import type { Types } from 'boltz-core';
import { encodeBolt11 } from '../../src/lightning/bolt11/index.ts';
import {
  VerificationError,
  addressOfScript,
  newKeyPair,
  newPreimage,
  reverseTree,
  serializeTree,
  submarineTree,
  verifyReverse,
  verifySubmarine,
  type KeyPair,
} from '../../src/client/node.ts';
import type { ReversePair, SubmarinePair } from '../../src/client/types.ts';
import { liquidSwapOutput, serializeLiquidTree } from '../../src/chains/liquid/htlc.ts';
import { confidentialAddress, policyAsset, unconfidentialAddress } from '../../src/chains/liquid/network.ts';

const nodeKey = secp256k1.utils.randomSecretKey();
const HEIGHT = 500;

function invoice(amountSat: number, paymentHash: Uint8Array, network: 'bcrt' | 'bc' = 'bcrt', timestamp = Math.floor(Date.now() / 1000)): string {
  return encodeBolt11(
    { network, amountMsat: BigInt(amountSat) * 1000n, timestamp, paymentHash: hex.encode(paymentHash), paymentSecret: '11'.repeat(32), description: 'test', expiry: 3600 },
    nodeKey,
  );
}

const submarinePair: SubmarinePair = { hash: 'h', rate: 1, limits: { maximal: 1e7, minimal: 1e4, maximalZeroConf: 0 }, fees: { percentage: 0.1, minerFees: 302 } };
const reversePair: ReversePair = { hash: 'h', rate: 1, limits: { maximal: 1e7, minimal: 1e4 }, fees: { percentage: 0.25, minerFees: { lockup: 308, claim: 222 } } };

/** The service's side of the address: MuSig2 of [service, client], service first, tweaked with the tree. */
function serviceAddress(service: KeyPair, client: KeyPair, tree: Types.SwapTree): string {
  const musig = TaprootUtils.tweakMusig(Musig.create(service.privateKey, [service.publicKey, client.publicKey]), tree.tree);
  return addressOfScript(Scripts.p2trOutput(musig.aggPubkey), 'regtest');
}

/** What an honest service answers to a submarine creation. */
function honestSubmarine(client: KeyPair, service: KeyPair, paymentHash: Uint8Array, invoiceAmount: number) {
  const timeoutBlockHeight = HEIGHT + 144;
  const tree = submarineTree(paymentHash, service.publicKey, client.publicKey, timeoutBlockHeight);
  const address = serviceAddress(service, client, tree);
  const expectedAmount = invoiceAmount + Math.ceil(invoiceAmount * 0.001) + 302;
  return {
    id: 'AbCdEfGhIjKl',
    address,
    swapTree: serializeTree(tree),
    claimPublicKey: hex.encode(service.publicKey),
    timeoutBlockHeight,
    expectedAmount,
    acceptZeroConf: false,
    bip21: `bitcoin:${address}?amount=${expectedAmount / 1e8}&label=Send%20to%20BTC%20lightning`,
  };
}

function honestReverse(client: KeyPair, service: KeyPair, preimageHash: Uint8Array, invoiceAmount: number) {
  const timeoutBlockHeight = HEIGHT + 144;
  const tree = reverseTree(preimageHash, client.publicKey, service.publicKey, timeoutBlockHeight);
  const lockupAddress = serviceAddress(service, client, tree);
  return {
    id: 'ReVeRsE12345',
    invoice: invoice(invoiceAmount, preimageHash),
    swapTree: serializeTree(tree),
    lockupAddress,
    refundPublicKey: hex.encode(service.publicKey),
    timeoutBlockHeight,
    onchainAmount: invoiceAmount - Math.ceil(invoiceAmount * 0.0025) - 308,
  };
}

function refused(run: () => unknown, message: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof VerificationError, `expected a VerificationError, got ${String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

describe('submarine creation answers', () => {
  const client = newKeyPair();
  const service = newKeyPair();
  const { preimageHash } = newPreimage();
  const request = invoice(50_000, preimageHash);
  const check = (answer: unknown, extra: Partial<Parameters<typeof verifySubmarine>[0]> = {}) =>
    verifySubmarine({ answer, key: client, invoice: request, pair: submarinePair, height: HEIGHT, network: 'regtest', ...extra });

  test('an honest answer passes and yields the lockup to fund', () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    const checked = check(answer);
    assert.equal(checked.address, answer.address);
    assert.equal(checked.expectedAmount, 50_352);
    assert.equal(checked.invoiceAmount, 50_000);
    assert.equal(hex.encode(checked.servicePublicKey), answer.claimPublicKey);
  });

  test('an address that does not commit to the tree and both keys is refused', () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    // A valid address, but of an output the service alone controls.
    const other = honestSubmarine(newKeyPair(), service, preimageHash, 50_000);
    refused(() => check({ ...answer, address: other.address }), /lockup address .* does not commit/);
  });

  test("a tree for another hash, another refund key, or another timeout is refused", () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    const otherHash = honestSubmarine(client, service, newPreimage().preimageHash, 50_000);
    refused(() => check({ ...answer, swapTree: otherHash.swapTree }), /swap tree is not the one/);
    const otherKey = honestSubmarine(newKeyPair(), service, preimageHash, 50_000);
    refused(() => check({ ...answer, swapTree: otherKey.swapTree, address: otherKey.address }), /swap tree is not the one/);
    refused(() => check({ ...answer, timeoutBlockHeight: answer.timeoutBlockHeight + 1 }), /swap tree is not the one/);
  });

  test('amounts beyond the advertised fees, and bip21 URIs that disagree, are refused', () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, expectedAmount: answer.expectedAmount + 2, bip21: undefined }), /more than the advertised fees/);
    refused(() => check({ ...answer, bip21: answer.bip21.replace(answer.address, otherAddress()) }), /does not pay the lockup address/);
    refused(() => check({ ...answer, bip21: answer.bip21.replace(/amount=[0-9.]+/, 'amount=0.1') }), /does not ask for/);
  });

  test('timeouts in the past, too near or too far are refused', () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    refused(() => check(answer, { height: answer.timeoutBlockHeight + 1 }), /block\(s\) after the tip/);
    refused(() => check(answer, { height: answer.timeoutBlockHeight - 3 }), /only 3 block/);
    refused(() => check(answer, { policy: { minBlocks: 1, maxBlocks: 100 } }), /at most 100 accepted/);
  });

  test('bad keys, ids and invoices of another network are refused', () => {
    const answer = honestSubmarine(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, claimPublicKey: '02' + '00'.repeat(32) }), /claimPublicKey is not a valid public key/);
    refused(() => check({ ...answer, id: '../../etc' }), /not a swap id/);
    refused(() => check(answer, { invoice: invoice(50_000, preimageHash, 'bc') }), /network "bc"/);
  });
});

function otherAddress(): string {
  const [service, client] = [newKeyPair(), newKeyPair()];
  return serviceAddress(service, client, submarineTree(newPreimage().preimageHash, service.publicKey, client.publicKey, 600));
}

describe('reverse creation answers', () => {
  const client = newKeyPair();
  const service = newKeyPair();
  const { preimageHash } = newPreimage();
  const check = (answer: unknown, extra: Partial<Parameters<typeof verifyReverse>[0]> = {}) =>
    verifyReverse({ answer, key: client, preimageHash, invoiceAmount: 50_000, pair: reversePair, height: HEIGHT, network: 'regtest', ...extra });

  test('an honest answer passes', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    const checked = check(answer);
    assert.equal(checked.onchainAmount, 49_567);
    assert.equal(checked.address, answer.lockupAddress);
  });

  test('an invoice for another payment hash is refused: paying it would not buy our swap', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, invoice: invoice(50_000, newPreimage().preimageHash) }), /payment hash .* is not the hash of our preimage/);
  });

  test('an invoice for another amount, or an expired one, is refused', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, invoice: invoice(50_001, preimageHash) }), /asks for 50001 sat, not the 50000/);
    refused(() => check({ ...answer, invoice: invoice(50_000, preimageHash, 'bcrt', Math.floor(Date.now() / 1000) - 7200) }), /expired/);
  });

  test('less on chain than the advertised fees allow is refused', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, onchainAmount: answer.onchainAmount - 2 }), /less than the advertised fees allow/);
  });

  test('a lockup address or tree that is not ours is refused', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    refused(() => check({ ...answer, lockupAddress: otherAddress() }), /lockup address .* does not commit/);
    const stolen = honestReverse(newKeyPair(), service, preimageHash, 50_000);
    refused(() => check({ ...answer, swapTree: stolen.swapTree, lockupAddress: stolen.lockupAddress }), /swap tree is not the one/);
  });

  test('a timeout too near to claim in time is refused', () => {
    const answer = honestReverse(client, service, preimageHash, 50_000);
    refused(() => check(answer, { height: answer.timeoutBlockHeight - 5 }), /only 5 block/);
  });
});

describe('L-BTC creation answers', () => {
  const client = newKeyPair();
  const service = newKeyPair();
  const { preimageHash } = newPreimage();
  const request = invoice(50_000, preimageHash);
  const check = (answer: unknown) =>
    verifySubmarine({ answer, key: client, invoice: request, pair: submarinePair, height: HEIGHT, network: 'regtest', currency: 'L-BTC' });

  /** As Ferry's Liquid backend answers: Elements' tree and tweak, the address blinded to the key it returns. */
  function honestLiquid(blinding = newKeyPair()) {
    const terms = { kind: 'submarine', preimageHash, claimPublicKey: service.publicKey, refundPublicKey: client.publicKey, timeoutBlockHeight: HEIGHT + 1440, servicePublicKey: service.publicKey } as const;
    const { tree, outputScript, address } = liquidSwapOutput(terms, blinding.publicKey, 'regtest');
    const expectedAmount = 50_000 + 50 + 302;
    return {
      answer: {
        id: 'LiQuIdSwAp12',
        address,
        swapTree: serializeLiquidTree(tree),
        claimPublicKey: hex.encode(service.publicKey),
        timeoutBlockHeight: terms.timeoutBlockHeight,
        blindingKey: hex.encode(blinding.privateKey),
        expectedAmount,
        acceptZeroConf: true,
        bip21: `liquidtestnet:${address}?amount=${expectedAmount / 1e8}&label=Send%20to%20L-BTC%20lightning&assetid=${policyAsset('regtest')}`,
      },
      outputScript,
    };
  }

  test('an honest answer passes and yields the blinding key', () => {
    const { answer, outputScript } = honestLiquid();
    const checked = check(answer);
    assert.equal(checked.currency, 'L-BTC');
    assert.equal(checked.address, answer.address);
    assert.equal(hex.encode(checked.outputScript), hex.encode(outputScript));
    assert.equal(hex.encode(checked.blindingKey!), answer.blindingKey);
  });

  test('a blindingKey the address is not blinded to, a missing or malformed one, is refused', () => {
    const { answer } = honestLiquid();
    refused(() => check({ ...answer, blindingKey: hex.encode(newKeyPair().privateKey) }), /is blinded to [0-9a-f]{66}, not to [0-9a-f]{66}, the public key of the blindingKey/);
    refused(() => check({ ...answer, blindingKey: undefined }), /no blindingKey in the answer/);
    refused(() => check({ ...answer, blindingKey: 'zz' }), /blindingKey is not 32 bytes of hex/);
  });

  test('an address of another output, or not confidential, is refused', () => {
    const { answer, outputScript } = honestLiquid();
    const stranger = confidentialAddress(Scripts.p2trOutput(newKeyPair().publicKey.subarray(1)), newKeyPair().publicKey, 'regtest');
    refused(() => check({ ...answer, address: stranger }), /lockup address el1\w+ does not commit to the swap tree and both keys .* its script 5120[0-9a-f]{64} is not 5120/);
    refused(() => check({ ...answer, address: unconfidentialAddress(outputScript, 'regtest') }), /is blinded to no key/);
    const bitcoinTweak = addressOfScript(Scripts.p2trOutput(outputScript.subarray(2)), 'regtest');
    refused(() => check({ ...answer, address: bitcoinTweak }), /is not a regtest address of L-BTC/);
  });

  test("a Bitcoin tree, or a payment URI of another scheme or asset, is refused", () => {
    const { answer } = honestLiquid();
    const bitcoinTree = serializeTree(submarineTree(preimageHash, service.publicKey, client.publicKey, answer.timeoutBlockHeight));
    refused(() => check({ ...answer, swapTree: bitcoinTree }), /swap tree is not the one .* on L-BTC/);
    refused(() => check({ ...answer, bip21: answer.bip21.replace('liquidtestnet:', 'bitcoin:') }), /does not pay the lockup address/);
    refused(() => check({ ...answer, bip21: answer.bip21.replace(/assetid=\w+/, `assetid=${'11'.repeat(32)}`) }), /does not ask for the asset .* \(L-BTC\)/);
  });
});
