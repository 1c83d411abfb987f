// Real Elements regtest transactions for the Elements verifier tests, built with liquidjs-lib's PSET
// roles and boltz-core's Liquid module (secp256k1-zkp and unblinding from src/chains/liquid/): a funding
// transaction (explicit coin → blinded outputs) and spends of its outputs (blinded P2WPKH, swap claim and
// refund by script path, Taproot key path). The claim and refund take any lock time and preimage, so that
// the verifier's rejections can be tested; Ferry's own spends are src/chains/liquid/spends.ts.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { OutputType, swapTree } from 'boltz-core';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import {
  Blinder,
  Creator,
  CreatorInput,
  Extractor,
  Finalizer,
  Pset,
  Transaction,
  Updater,
  ZKPGenerator,
  ZKPValidator,
  bip341,
  networks,
  witnessStackToScriptWitness,
  type TxOutput,
} from 'liquidjs-lib';
import type { ElementsPrevout } from '@ferry/devnet/elements/verify/index.js';
import { REGTEST_POLICY_ASSET } from '@ferry/devnet/elements/verify/index.js';
import { unblindOutput } from '@ferry/sdk/chains/liquid/unblind.js';
import { loadZkp, zkpLib, type Zkp } from '@ferry/sdk/chains/liquid/zkp.js';

export const network = networks.regtest;
export { networks, Transaction };
export const FEE = 1_000;
export const TIMEOUT = 500; // refund leaf's CLTV block height

export interface Key {
  privateKey: Buffer;
  publicKey: Buffer; // compressed
}

export function newKey(): Key {
  const privateKey = Buffer.from(secp256k1.utils.randomSecretKey());
  return { privateKey, publicKey: Buffer.from(secp256k1.getPublicKey(privateKey, true)) };
}

export function p2wpkh(key: Key): Buffer {
  return Buffer.concat([Buffer.of(0x00, 0x14), ripemd160(sha256(key.publicKey))]);
}

/** The output's fields the verifier takes for a spent output. */
export function prevoutOf(out: TxOutput): ElementsPrevout {
  if (out.value[0] === 0x01) {
    return { script: out.script, value: out.value.readBigUInt64BE(1), asset: Buffer.from(out.asset.subarray(1)).reverse().toString('hex') };
  }
  return { script: out.script, valueCommitment: out.value, assetCommitment: out.asset, nonce: out.nonce };
}

/** A swap lockup: boltz-core's Liquid swap tree behind a Taproot output. */
export interface Lockup {
  preimage: Buffer;
  claimKey: Key;
  refundKey: Key;
  internalKey: Key;
  tree: ReturnType<typeof swapTree>;
  script: Buffer;
}

export function newLockup(kind: 'reverse' | 'submarine'): Lockup {
  const preimage = randomBytes(32);
  const [claimKey, refundKey, internalKey] = [newKey(), newKey(), newKey()];
  const hash = sha256(preimage);
  const tree =
    kind === 'reverse'
      ? liquid.reverseSwapTree(hash, claimKey.publicKey, refundKey.publicKey, TIMEOUT)
      : swapTree(true, hash, claimKey.publicKey, refundKey.publicKey, TIMEOUT);
  const script = bip341
    .BIP341Factory(zkpEcc())
    .taprootOutputScript(internalKey.publicKey, liquid.TaprootUtils.toHashTree(tree.tree));
  return { preimage, claimKey, refundKey, internalKey, tree, script };
}

let zkp: Zkp;
export function zkpEcc(): Zkp['ecc'] {
  return zkp.ecc;
}

/** Loads secp256k1-zkp, which also initialises boltz-core's Liquid module. */
export async function setup(): Promise<void> {
  zkp = await loadZkp();
}

export interface Funding {
  tx: Transaction;
  prevouts: ElementsPrevout[]; // of the funding transaction's own input
  /** output index → blinding private key */
  blindingKeys: Map<number, Buffer>;
}

export interface FundOptions {
  /** The explicit coin spent (its value is the destinations' total plus the fee); default a random outpoint. */
  coin?: { txid: string; vout: number };
  /** The explicit L-BTC fee output's amount; 0 leaves the fee output out. Default FEE. */
  fee?: number;
}

/**
 * Spends an explicit L-BTC coin of `payer` to blinded outputs, one per destination, and an explicit
 * fee. Every destination gets its own blinding key.
 */
export function fund(payer: Key, destinations: { script: Buffer; amount: number }[], options: FundOptions = {}): Funding {
  const fee = options.fee ?? FEE;
  const total = destinations.reduce((sum, out) => sum + out.amount, 0) + fee;
  const coin: TxOutput = {
    script: p2wpkh(payer),
    value: explicitValue(total),
    asset: Buffer.concat([Buffer.of(0x01), Buffer.from(REGTEST_POLICY_ASSET, 'hex').reverse()]),
    nonce: Buffer.of(0x00),
  };
  const pset = Creator.newPset();
  const outpoint = options.coin ?? { txid: randomBytes(32).toString('hex'), vout: 0 };
  pset.addInput(new CreatorInput(outpoint.txid, outpoint.vout, 0xfffffffd).toPartialInput());
  const updater = new Updater(pset);
  updater.addInWitnessUtxo(0, coin).addInSighashType(0, Transaction.SIGHASH_ALL);
  const blindingKeys = new Map<number, Buffer>();
  destinations.forEach((out, index) => {
    const blinding = newKey();
    blindingKeys.set(index, blinding.privateKey);
    updater.addOutputs([{ script: out.script, amount: out.amount, asset: network.assetHash, blindingPublicKey: blinding.publicKey, blinderIndex: 0 }]);
  });
  if (fee > 0) updater.addOutputs([{ amount: fee, asset: network.assetHash }]);
  blind(pset, [undefined]);
  signP2wpkh(pset, 0, payer);
  return { tx: Extractor.extract(pset), prevouts: [prevoutOf(coin)], blindingKeys };
}

/** Spends a blinded P2WPKH output of `funding` to a new blinded output and the fee. */
export function spendP2wpkh(funding: Funding, vout: number, owner: Key, sign: P2wpkhSigner = signP2wpkh): Transaction {
  const utxo = funding.tx.outs[vout];
  const pset = Creator.newPset();
  pset.addInput(new CreatorInput(funding.tx.getId(), vout, 0xfffffffd).toPartialInput());
  const updater = new Updater(pset);
  updater.addInWitnessUtxo(0, utxo).addInSighashType(0, Transaction.SIGHASH_ALL);
  const amount = unblindAmount(utxo, funding.blindingKeys.get(vout)!);
  updater.addOutputs([
    { script: p2wpkh(newKey()), amount: amount - FEE, asset: network.assetHash, blindingPublicKey: newKey().publicKey, blinderIndex: 0 },
    { amount: FEE, asset: network.assetHash },
  ]);
  blind(pset, [funding.blindingKeys.get(vout)!]);
  sign(pset, 0, owner);
  return Extractor.extract(pset);
}

/** Signs input `index` of `pset` (a P2WPKH input) for `key` and finalizes it. */
export type P2wpkhSigner = (pset: Pset, index: number, key: Key) => void;

/** Signs Elements' BIP143 message, or `message` when given (to forge a wrong one). */
export function signP2wpkh(pset: Pset, index: number, key: Key, message?: Uint8Array, lowS = true): void {
  const digest = message ?? pset.getInputPreimage(index, Transaction.SIGHASH_ALL);
  let der = secp256k1.sign(digest, key.privateKey, { prehash: false, format: 'der' });
  if (!lowS) {
    const { r, s } = secp256k1.Signature.fromBytes(der, 'der');
    der = new secp256k1.Signature(r, secp256k1.Point.CURVE().n - s).toBytes('der');
  }
  const signature = Buffer.concat([der, Buffer.of(Transaction.SIGHASH_ALL)]);
  // Finalized by hand: liquidjs-lib's Signer would refuse the deliberately wrong signatures.
  new Finalizer(pset).finalizeInput(index, () => ({ finalScriptWitness: witnessStackToScriptWitness([signature, key.publicKey]) }));
}

/** The swap claim by script path (preimage + claim key), with boltz-core's Liquid claim builder. */
export function claim(funding: Funding, vout: number, lockup: Lockup, preimage = lockup.preimage): Transaction {
  return liquid.constructClaimTransaction(
    [{ ...swapUtxo(funding, vout, lockup), preimage, privateKey: lockup.claimKey.privateKey }],
    p2wpkh(newKey()),
    BigInt(FEE),
    true,
    network,
    newKey().publicKey,
  );
}

/** The swap refund by script path at `locktime`; `rbf` false makes its input final. */
export function refund(funding: Funding, vout: number, lockup: Lockup, locktime: number, rbf = true): Transaction {
  return liquid.constructRefundTransaction(
    [{ ...swapUtxo(funding, vout, lockup), privateKey: lockup.refundKey.privateKey }],
    p2wpkh(newKey()),
    locktime,
    BigInt(FEE),
    rbf,
    network,
    newKey().publicKey,
  );
}

function swapUtxo(funding: Funding, vout: number, lockup: Lockup) {
  return {
    ...funding.tx.outs[vout],
    type: OutputType.Taproot as const,
    transactionId: funding.tx.getId(),
    vout,
    swapTree: lockup.tree,
    internalKey: lockup.internalKey.publicKey.subarray(1),
    blindingPrivateKey: funding.blindingKeys.get(vout)!,
  };
}

/** A Taproot key-path output (no script tree) for `key`. */
export function keyPathScript(key: Key): Buffer {
  return bip341.BIP341Factory(zkp.ecc).taprootOutputScript(key.publicKey);
}

/** Spends a blinded key-path output with liquidjs-lib's Taproot key signer. */
export function spendKeyPath(funding: Funding, vout: number, key: Key, genesisBlockHash = network.genesisBlockHash): Transaction {
  const utxo = funding.tx.outs[vout];
  const pset = Creator.newPset();
  pset.addInput(new CreatorInput(funding.tx.getId(), vout, 0xfffffffd).toPartialInput());
  const updater = new Updater(pset);
  updater.addInWitnessUtxo(0, utxo).addInSighashType(0, Transaction.SIGHASH_DEFAULT);
  const amount = unblindAmount(utxo, funding.blindingKeys.get(vout)!);
  updater.addOutputs([
    { script: p2wpkh(newKey()), amount: amount - FEE, asset: network.assetHash, blindingPublicKey: newKey().publicKey, blinderIndex: 0 },
    { amount: FEE, asset: network.assetHash },
  ]);
  blind(pset, [funding.blindingKeys.get(vout)!]);
  const message = pset.getInputPreimage(0, Transaction.SIGHASH_DEFAULT, genesisBlockHash);
  const signature = bip341.BIP341Factory(zkp.ecc).taprootSignKey(message, key.privateKey);
  new Finalizer(pset).finalizeInput(0, () => ({ finalScriptWitness: witnessStackToScriptWitness([signature]) }));
  return Extractor.extract(pset);
}

export function blind(pset: Pset, inputBlindingKeys: (Buffer | undefined)[]): void {
  const generator = new ZKPGenerator(zkpLib(), ZKPGenerator.WithBlindingKeysOfInputs(inputBlindingKeys as Buffer[]));
  const outputBlindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(zkp.ecc));
  new Blinder(pset, generator.unblindInputs(pset), new ZKPValidator(zkpLib()), generator).blindLast({ outputBlindingArgs });
}

const unblindAmount = (out: TxOutput, blindingKey: Buffer): number => Number(unblindOutput(zkpLib(), out, blindingKey).value);

export function explicitValue(amount: number): Buffer {
  const bytes = Buffer.alloc(9);
  bytes[0] = 0x01;
  bytes.writeBigUInt64BE(BigInt(amount), 1);
  return bytes;
}
