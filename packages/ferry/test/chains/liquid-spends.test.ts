// Liquid swap outputs and their spends (src/chains/liquid/) against the devnet's Elements node, which verifies range
// and surjection proofs, the commitment balance and Elements sighashes: the user wallet locks L-BTC to the blinded
// swap address, then script-path claims (right and wrong preimage), refunds (before and at the timeout) and MuSig2
// key-path spends go through sendrawtransaction and are mined; the effects are checked in the destination wallet.
// Every assert.ok carries a message: without one, node rebuilds it by parsing tsx's one-line output, which hangs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Musig, TaprootUtils, swapTree } from 'boltz-core';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { Transaction, bip341 } from 'liquidjs-lib';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';
import { signWithMusig, type KeyPair } from '@ferry/sdk/keys/index.js';
import { swapClientKey, type SwapOutputTerms } from '@ferry/sdk/chains/backend.js';
import { blindingKeyForScript, masterBlindingKeyFromSeed } from '@ferry/sdk/chains/liquid/blinding.js';
import {
  LIQUID_LEAF_VERSION,
  deserializeLiquidTree,
  liquidSwapMusig,
  liquidSwapOutput,
  liquidSwapOutputKey,
  serializeLiquidTree,
  type LiquidSwapOutput,
} from '@ferry/sdk/chains/liquid/htlc.js';
import { decodeAddress, genesisBlockHash, policyAsset, unconfidentialAddress } from '@ferry/sdk/chains/liquid/network.js';
import {
  LockupUnblindError,
  clientSpendSighash,
  finishKeyPathSpend,
  keyPathDraft,
  scriptPathClaim,
  scriptPathRefund,
  unblindLockup,
  type LiquidDestination,
  type LiquidLockup,
  type LiquidScriptPathSpend,
} from '@ferry/sdk/chains/liquid/spends.js';
import { initLiquid, zkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { Rpc } from '../helpers/devnet-rpc.ts';

const LOCKED_BTC = 0.01;
const LOCKED = 1_000_000n;

let dataDir: string;
let devnet: ElementsDevnet;
let rpc: Rpc;
let user: Rpc;
let dest: Rpc;
let burn: string;
const masterBlindingKey = masterBlindingKeyFromSeed(randomBytes(64));

const newKey = (): KeyPair => {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
};

interface Swap {
  kind: SwapOutputTerms['kind'];
  preimage: Uint8Array;
  service: KeyPair;
  client: KeyPair;
  terms: SwapOutputTerms;
  output: LiquidSwapOutput;
  internalKey: Uint8Array;
}

/** A swap whose timeout is `blocks` after the tip; the service holds the claim key of a submarine swap. */
async function newSwap(kind: Swap['kind'], blocks = 50): Promise<Swap> {
  const preimage = randomBytes(32);
  const [service, client] = [newKey(), newKey()];
  const [claim, refund] = kind === 'submarine' ? [service, client] : [client, service];
  const height = await rpc.call<number>('getblockcount');
  const terms: SwapOutputTerms = {
    kind,
    preimageHash: sha256(preimage),
    claimPublicKey: claim.publicKey,
    refundPublicKey: refund.publicKey,
    timeoutBlockHeight: height + blocks,
    servicePublicKey: service.publicKey,
  };
  const output = liquidSwapOutput(terms, (script) => blindingKeyForScript(masterBlindingKey, script).publicKey, 'regtest');
  const { internalKey } = liquidSwapOutputKey(service.publicKey, client.publicKey, output.tree);
  return { kind, preimage, service, client, terms, output, internalKey };
}

const mine = async (blocks = 1): Promise<string[]> => rpc.call<string[]>('generatetoaddress', blocks, burn);

/** The user wallet pays the swap's address (or the one given); the lockup is mined. */
async function lock(swap: Swap, address = swap.output.address): Promise<LiquidLockup> {
  const txid = await user.call<string>('sendtoaddress', address, LOCKED_BTC);
  await mine();
  const tx = Transaction.fromHex(await rpc.call<string>('getrawtransaction', txid));
  const vout = tx.outs.findIndex((out) => out.script.equals(Buffer.from(swap.output.outputScript)));
  assert.ok(vout >= 0, 'the lockup pays the swap script');
  return { txid, vout, prevout: tx.outs[vout], blindingPrivateKey: blindingKeyForScript(masterBlindingKey, swap.output.outputScript).privateKey };
}

/** A fresh confidential address of the destination wallet. */
async function destination(): Promise<LiquidDestination> {
  const { script, blindingPublicKey } = decodeAddress(await dest.call<string>('getnewaddress'), 'regtest');
  assert.ok(blindingPublicKey, 'the destination wallet hands out confidential addresses');
  return { script, blindingPublicKey };
}

const satOf = (btc: number): bigint => BigInt(Math.round(btc * 1e8));
const destBalance = async (): Promise<bigint> =>
  satOf((await dest.call<{ mine: { trusted: Record<string, number> } }>('getbalances')).mine.trusted.bitcoin ?? 0);

/** Broadcasts, mines, and checks the transaction is in the block and the destination got `amount`. */
async function confirmPays(hex: string, txid: string, amount: bigint): Promise<void> {
  const before = await destBalance();
  assert.equal(await rpc.call('sendrawtransaction', hex), txid);
  const [block] = await mine();
  const mined = await rpc.call<{ tx: string[] }>('getblock', block, 1);
  assert.ok(mined.tx.includes(txid), 'the spend is mined');
  assert.equal((await destBalance()) - before, amount);
}

/** A script-path spend of the lockup signed by `signer`, to a fresh destination at 1 sat/vB. */
async function scriptPathSpend(swap: Swap, lockup: LiquidLockup, signer: KeyPair): Promise<LiquidScriptPathSpend> {
  const common = { lockup, destination: await destination(), network: 'regtest', feeRate: 1 } as const;
  return { ...common, tree: swap.output.tree, internalKey: swap.internalKey, privateKey: signer.privateKey };
}

/** MuSig2 of [service, client], both sides with boltz-core's Musig: the client aggregates the service's partial. */
function keyPathSignature(swap: Swap, sighash: Uint8Array): Uint8Array {
  const keys = [swap.service.publicKey, swap.client.publicKey] as const;
  const client = liquid.TaprootUtils.tweakMusig(Musig.create(swap.client.privateKey, keys), swap.output.tree.tree).message(sighash).generateNonce();
  const service = signWithMusig(liquidSwapMusig(swap.service.privateKey, keys, swap.output.tree), swap.client.publicKey, sighash, client.publicNonce);
  return client
    .aggregateNonces([[swap.service.publicKey, service.pubNonce]])
    .initializeSession()
    .signPartial()
    .addPartial(swap.service.publicKey, service.partialSignature)
    .aggregatePartials();
}

/** The script-path signer of a leaf: the claim key holder or the refund key holder. */
const holderOf = (swap: Swap, key: Uint8Array): KeyPair => (Buffer.from(key).equals(Buffer.from(swap.service.publicKey)) ? swap.service : swap.client);

before(async () => {
  await initLiquid();
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-liquid-spends-'));
  devnet = await startElementsDevnet({ dataDir, port: 0 });
  rpc = new Rpc(devnet);
  user = rpc.for(devnet.wallets.user);
  await rpc.call('createwallet', 'dest');
  dest = rpc.for('dest');
  await rpc.call('createwallet', 'miner');
  burn = await rpc.for('miner').call<string>('getnewaddress');
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Liquid network facts', () => {
  test('the regtest genesis hash and L-BTC asset are the devnet node\'s', async () => {
    assert.equal(await rpc.call('getblockhash', 0), genesisBlockHash('regtest'));
    const [coin] = await user.call<{ asset: string }[]>('listunspent');
    assert.equal(coin.asset, policyAsset('regtest'));
    assert.equal(genesisBlockHash('mainnet'), '1466275836220db2944ca059a3a10ef6fd2ea684b0688d2c379296888a206003');
    assert.equal(policyAsset('mainnet'), '6f0279e9ed041c3d710a9f57d0c02928416460c4b722ae3457a11eec381c526d');
  });

  test('addresses: el1 confidential and ert1 unconfidential, decoded to script and blinding key', async () => {
    const swap = await newSwap('submarine');
    assert.match(swap.output.address, /^el1p/);
    const decoded = decodeAddress(swap.output.address, 'regtest');
    assert.deepEqual(decoded.script, swap.output.outputScript);
    assert.deepEqual(decoded.blindingPublicKey, blindingKeyForScript(masterBlindingKey, swap.output.outputScript).publicKey);
    const plain = unconfidentialAddress(swap.output.outputScript, 'regtest');
    assert.match(plain, /^ert1p/);
    assert.deepEqual(decodeAddress(plain, 'regtest'), { script: swap.output.outputScript, unconfidential: plain });
    assert.throws(() => decodeAddress(swap.output.address, 'mainnet'), /Invalid address/);
    // The devnet node agrees the address is the script's.
    const info = await user.call<{ scriptPubKey: string; unconfidential: string }>('getaddressinfo', swap.output.address);
    assert.deepEqual([info.scriptPubKey, info.unconfidential], [Buffer.from(swap.output.outputScript).toString('hex'), plain]);
  });
});

describe('Liquid swap outputs', () => {
  for (const kind of ['submarine', 'reverse'] as const) {
    test(`${kind}: the output key is boltz-core's Liquid MuSig2 tweak of [service, client], the tree Liquid's`, async () => {
      const swap = await newSwap(kind);
      const keys = [swap.service.publicKey, swapClientKey(swap.terms)] as const;
      const boltz = liquid.TaprootUtils.tweakMusig(Musig.create(swap.service.privateKey, keys), swap.output.tree.tree);
      assert.deepEqual(swap.output.outputScript.subarray(2), TaprootUtils.toXOnly(boltz.aggPubkey));
      assert.deepEqual(liquidSwapMusig(swap.service.privateKey, keys, swap.output.tree).aggPubkey, boltz.aggPubkey);
      const viaLiquidjs = bip341
        .BIP341Factory(zkp().ecc)
        .taprootOutputScript(Buffer.from([0x02, ...swap.internalKey]), liquid.TaprootUtils.toHashTree(swap.output.tree.tree));
      assert.deepEqual(new Uint8Array(viaLiquidjs), swap.output.outputScript);

      const json = serializeLiquidTree(swap.output.tree);
      assert.deepEqual([json.claimLeaf.version, json.refundLeaf.version], [196, 196]);
      assert.equal(LIQUID_LEAF_VERSION, 196);
      assert.deepEqual(liquidSwapOutputKey(swap.service.publicKey, swapClientKey(swap.terms), deserializeLiquidTree(json)).outputScript, swap.output.outputScript);
    });
  }

  test('a Bitcoin tree does not deserialize as a Liquid one', () => {
    const [a, b] = [newKey(), newKey()];
    const bitcoinTree = swapTree(false, sha256(randomBytes(32)), a.publicKey, b.publicKey, 100);
    const json = { claimLeaf: { version: bitcoinTree.claimLeaf.version, output: Buffer.from(bitcoinTree.claimLeaf.output).toString('hex') }, refundLeaf: { version: 196, output: '51' } };
    assert.throws(() => deserializeLiquidTree(json), /claim leaf has version 192, not Liquid's 196/);
  });
});

describe('Liquid swap spends on the devnet Elements node', () => {
  for (const kind of ['submarine', 'reverse'] as const) {
    test(`${kind}: the claim leaf with the preimage is accepted, mined, and pays the destination the amount less the fee`, async () => {
      const swap = await newSwap(kind);
      const lockup = await lock(swap);
      assert.deepEqual(unblindLockup(lockup), { value: LOCKED, asset: policyAsset('regtest') });
      const built = scriptPathClaim({ ...(await scriptPathSpend(swap, lockup, holderOf(swap, swap.terms.claimPublicKey))), preimage: swap.preimage });
      assert.equal(built.fee, BigInt(built.vsize), '1 sat per discounted vbyte');
      assert.equal(built.amount, LOCKED - built.fee);
      const tx = Transaction.fromHex(built.hex);
      assert.equal(tx.virtualSize(true), built.vsize);
      assert.ok(tx.virtualSize(false) > built.vsize * 2, 'the range and surjection proofs are discounted');
      await confirmPays(built.hex, built.txid, built.amount);
    });

    test(`${kind}: a key-path spend signed by MuSig2 of [service, client] is accepted; the client's sighash is the draft's`, async () => {
      const swap = await newSwap(kind);
      const lockup = await lock(swap);
      const draft = keyPathDraft({ lockup, destination: await destination(), network: 'regtest', feeRate: 0.5, fee: 300n });
      assert.deepEqual(clientSpendSighash(draft.unsignedHex, 0, [lockup.prevout], 'regtest'), draft.sighash);
      assert.notDeepEqual(clientSpendSighash(draft.unsignedHex, 0, [lockup.prevout], 'mainnet'), draft.sighash, 'the sighash commits to the genesis hash');
      const signature = keyPathSignature(swap, draft.sighash);
      assert.ok(schnorr.verify(signature, draft.sighash, swap.output.outputScript.subarray(2)), 'the aggregate signs for the output key');
      const finished = draft.finish(signature);
      assert.deepEqual(finishKeyPathSpend(draft.unsignedHex, signature), { txid: finished.txid, hex: finished.hex });
      assert.deepEqual([finished.fee, finished.amount, finished.lockTime], [300n, LOCKED - 300n, 0]);
      await confirmPays(finished.hex, finished.txid, finished.amount);
    });
  }

  test('a wrong preimage is rejected with elementsd\'s reason', async () => {
    const swap = await newSwap('reverse');
    const lockup = await lock(swap);
    const built = scriptPathClaim({ ...(await scriptPathSpend(swap, lockup, swap.client)), preimage: randomBytes(32) });
    const error = await rpc.error('sendrawtransaction', built.hex);
    assert.deepEqual([error.code, error.message], [-26, 'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)']);
    assert.equal((await rpc.call<{ spent?: unknown } | null>('gettxout', lockup.txid, lockup.vout)) !== null, true, 'the lockup is unspent');
  });

  test('the refund leaf is non-final before the timeout and accepted once the chain reaches it', async () => {
    const swap = await newSwap('submarine', 5);
    const lockup = await lock(swap);
    const built = scriptPathRefund({ ...(await scriptPathSpend(swap, lockup, swap.client)), timeoutBlockHeight: swap.terms.timeoutBlockHeight });
    assert.equal(built.lockTime, swap.terms.timeoutBlockHeight);
    assert.ok(Transaction.fromHex(built.hex).ins[0].sequence < 0xffffffff, 'a non-final sequence, so the lock time applies');
    const early = await rpc.error('sendrawtransaction', built.hex);
    assert.deepEqual([early.code, early.message], [-26, 'non-final']);
    await mine(swap.terms.timeoutBlockHeight - (await rpc.call<number>('getblockcount')));
    await confirmPays(built.hex, built.txid, built.amount);
  });

  test('unblinding: a blinded lockup needs its blinding key, the right one', async () => {
    const swap = await newSwap('submarine');
    const lockup = await lock(swap);
    assert.throws(() => unblindLockup({ ...lockup, blindingPrivateKey: undefined }), (error: Error) =>
      error instanceof LockupUnblindError && /is blinded: its blinding private key is needed/.test(error.message));
    assert.throws(() => unblindLockup({ ...lockup, blindingPrivateKey: newKey().privateKey }), LockupUnblindError);
  });

  test('an unblinded lockup (paid to the unconfidential address) is read without a key and claimed to an unblinded destination', async () => {
    const swap = await newSwap('submarine');
    const { blindingPrivateKey: _unused, ...lockup } = await lock(swap, unconfidentialAddress(swap.output.outputScript, 'regtest'));
    assert.deepEqual(unblindLockup(lockup), { value: LOCKED, asset: policyAsset('regtest') });
    const spend = await scriptPathSpend(swap, lockup, swap.service);
    const built = scriptPathClaim({ ...spend, destination: { script: spend.destination.script }, preimage: swap.preimage });
    assert.ok(Transaction.fromHex(built.hex).outs.every((out) => out.rangeProof === undefined || out.rangeProof.length === 0), 'nothing is blinded');
    await confirmPays(built.hex, built.txid, built.amount);
  });

  test('a fee rate below Liquid\'s floor of 0.1 sat/vB is raised to it', async () => {
    const swap = await newSwap('reverse');
    const lockup = await lock(swap);
    const draft = keyPathDraft({ lockup, destination: await destination(), network: 'regtest', feeRate: 0.01 });
    const signed = draft.finish(new Uint8Array(64));
    assert.equal(signed.fee, BigInt(Math.ceil(signed.vsize / 10)));
  });

  test('a blinded lockup cannot be spent to an unblinded destination', async () => {
    const swap = await newSwap('submarine');
    const lockup = await lock(swap);
    const { script } = await destination();
    assert.throws(
      () => keyPathDraft({ lockup, destination: { script }, network: 'regtest', feeRate: 1 }),
      /Elements requires a blinded output when a blinded input is spent/,
    );
  });
});
