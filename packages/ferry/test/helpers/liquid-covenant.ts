// Claim covenant spends for the Elements verifier tests: a reverse swap lockup whose tree has boltz-core's covenant
// claim leaf (output 0 must pay the committed script the committed amount of explicit L-BTC), and a claim by that
// leaf built by hand (no signature: the preimage, the leaf and its control block), with whatever outputs a test
// wants — the honest ones or a forgery — so that the verifier's introspection opcodes are what decides.
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { Creator, CreatorInput, Extractor, Finalizer, Pset, Transaction, Updater, bip341, witnessStackToScriptWitness, type TxOutput } from 'liquidjs-lib';
import { TIMEOUT, blind, network, newKey, signP2wpkh, zkpEcc, type Funding, type Key, type Lockup } from './liquid.ts';

export interface CovenantLockup extends Lockup {
  /** The leaf that lets anyone claim to the committed output with the preimage. */
  covenantLeaf: { version: number; output: Buffer };
}

/** A reverse swap lockup with the covenant claim leaf for `outputScript`, `expectedAmount` of L-BTC. */
export function newCovenantLockup(outputScript: Buffer, expectedAmount: number, assetHash = network.assetHash): CovenantLockup {
  const preimage = randomBytes(32);
  const [claimKey, refundKey, internalKey] = [newKey(), newKey(), newKey()];
  const tree = liquid.reverseSwapTree(sha256(preimage), claimKey.publicKey, refundKey.publicKey, TIMEOUT, [
    { type: liquid.Feature.ClaimCovenant, assetHash, outputScript, expectedAmount },
  ]);
  const script = bip341.BIP341Factory(zkpEcc()).taprootOutputScript(internalKey.publicKey, liquid.TaprootUtils.toHashTree(tree.tree));
  const covenantLeaf = tree.covenantClaimLeaf!;
  return { preimage, claimKey, refundKey, internalKey, tree, script, covenantLeaf: { version: covenantLeaf.version, output: Buffer.from(covenantLeaf.output) } };
}

export interface ClaimOutput {
  script: Buffer;
  amount: number;
  /** Asset id as displayed; default L-BTC. */
  asset?: string;
  /** Blinded to this key when given, explicit otherwise. */
  blindingPublicKey?: Buffer;
}

/** An explicit coin of `key` (P2WPKH) spent as a second input, e.g. to pay output 0 in another asset. */
export interface ExtraCoin {
  key: Key;
  coin: TxOutput;
  outpoint: { txid: string; vout: number };
}

/** Claims funding output `vout` (a covenant lockup) by the covenant leaf, to `outputs` in this order. */
export function covenantClaim(funding: Funding, vout: number, lockup: CovenantLockup, outputs: ClaimOutput[], extra?: ExtraCoin): Transaction {
  const pset = Creator.newPset();
  pset.addInput(new CreatorInput(funding.tx.getId(), vout, 0xfffffffd).toPartialInput());
  if (extra !== undefined) pset.addInput(new CreatorInput(extra.outpoint.txid, extra.outpoint.vout, 0xfffffffd).toPartialInput());
  const updater = new Updater(pset);
  updater.addInWitnessUtxo(0, funding.tx.outs[vout]).addInSighashType(0, Transaction.SIGHASH_DEFAULT);
  if (extra !== undefined) updater.addInWitnessUtxo(1, extra.coin).addInSighashType(1, Transaction.SIGHASH_ALL);
  updater.addOutputs(
    outputs.map((out) => ({
      script: out.script,
      amount: out.amount,
      asset: out.asset ?? network.assetHash,
      ...(out.blindingPublicKey !== undefined ? { blindingPublicKey: out.blindingPublicKey, blinderIndex: 0 } : {}),
    })),
  );
  blind(pset, extra === undefined ? [funding.blindingKeys.get(vout)!] : [funding.blindingKeys.get(vout)!, undefined]);
  if (extra !== undefined) signP2wpkh(pset, 1, extra.key);
  finalizeCovenantInput(pset, 0, lockup);
  return Extractor.extract(pset);
}

function finalizeCovenantInput(pset: Pset, index: number, lockup: CovenantLockup): void {
  const control = liquid.TaprootUtils.createControlBlock(
    liquid.TaprootUtils.toHashTree(lockup.tree.tree),
    lockup.covenantLeaf,
    lockup.internalKey.publicKey.subarray(1),
  );
  const witness = [lockup.preimage, lockup.covenantLeaf.output, control];
  new Finalizer(pset).finalizeInput(index, () => ({ finalScriptWitness: witnessStackToScriptWitness(witness) }));
}

/** OP_RETURN: where the claim's one blinded satoshi goes (the backend's covenant claims balance blinding so). */
export const OP_RETURN = Buffer.of(0x6a);
