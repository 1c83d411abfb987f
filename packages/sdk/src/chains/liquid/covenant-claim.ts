// The claim of a Liquid reverse swap by its covenant leaf, which anyone holding the preimage may build: no signature,
// the witness is the preimage, the leaf and its control block. The leaf checks output 0 only — the committed script,
// the committed amount of explicit L-BTC — so the claim is output 0 (explicit), one blinded satoshi to an OP_RETURN
// (a blinded lockup's blinding factors must balance against a blinded output) and the explicit fee: what the lockup
// holds beyond the committed amount and that satoshi. Ferry's covenant claimer and wallets alike build it here.
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { AssetHash, Blinder, Creator, Extractor, Finalizer, Pset, Transaction, Updater, ZKPGenerator, ZKPValidator, witnessStackToScriptWitness, type OwnedInput } from 'liquidjs-lib';
import type { ClaimCovenantTerms } from '../backend.ts';
import { COVENANT_BLINDED_SAT } from './covenant.ts';
import type { LiquidSwapTree } from './htlc.ts';
import { unblindOutput } from './unblind.ts';
import { unblindLockup, type LiquidLockup } from './spends.ts';
import { zkpLib } from './zkp.ts';

const OP_RETURN = Buffer.of(0x6a);
const RBF_SEQUENCE = 0xfffffffd;

export class CovenantClaimError extends Error {}

export interface CovenantClaimRequest {
  lockup: LiquidLockup;
  tree: LiquidSwapTree;
  /** 32-byte x-only internal key of the lockup output (the MuSig2 aggregate of [service, client]). */
  internalKey: Uint8Array;
  preimage: Uint8Array;
  terms: ClaimCovenantTerms;
}

/** The signed covenant claim, hex; CovenantClaimError when the lockup cannot pay the committed output and a fee. */
export function covenantClaim(request: CovenantClaimRequest): string {
  const { lockup, tree, terms } = request;
  const leaf = tree.covenantClaimLeaf;
  if (leaf === undefined) throw new CovenantClaimError('the swap tree has no covenant claim leaf');
  const locked = unblindLockup(lockup);
  if (locked.asset !== terms.assetHash) throw new CovenantClaimError(`the lockup holds asset ${locked.asset}, not ${terms.assetHash}`);
  const fee = locked.value - BigInt(terms.expectedAmount) - BigInt(COVENANT_BLINDED_SAT);
  if (fee <= 0n) throw new CovenantClaimError(`the lockup's ${locked.value} sat do not cover the committed ${terms.expectedAmount} sat and a fee`);

  const pset = Creator.newPset();
  new Updater(pset).addInputs([
    { txid: lockup.txid, txIndex: lockup.vout, witnessUtxo: lockup.prevout, sequence: RBF_SEQUENCE, sighashType: Transaction.SIGHASH_DEFAULT },
  ]);
  // The OP_RETURN's blinding key is thrown away: nobody needs to unblind one satoshi.
  const blindingPublicKey = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
  new Updater(pset).addOutputs([
    { script: Buffer.from(terms.outputScript), amount: terms.expectedAmount, asset: terms.assetHash },
    { script: OP_RETURN, amount: COVENANT_BLINDED_SAT, asset: terms.assetHash, blindingPublicKey, blinderIndex: 0 },
    { amount: Number(fee), asset: terms.assetHash },
  ]);
  const owned: OwnedInput[] = [ownedInput(lockup)];
  const generator = new ZKPGenerator(zkpLib(), ZKPGenerator.WithOwnedInputs(owned));
  const outputBlindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(zkpLib().ecc));
  new Blinder(pset, owned, new ZKPValidator(zkpLib()), generator).blindLast({ outputBlindingArgs });
  const control = liquid.TaprootUtils.createControlBlock(liquid.TaprootUtils.toHashTree(tree.tree), leaf, Buffer.from(request.internalKey));
  const witness = [Buffer.from(request.preimage), Buffer.from(leaf.output), control];
  new Finalizer(pset).finalizeInput(0, () => ({ finalScriptWitness: witnessStackToScriptWitness(witness) }));
  return Extractor.extract(pset).toHex();
}

/** The lockup as an input whose amount and blinders we know (zero blinders for an explicit one). */
function ownedInput(lockup: LiquidLockup): OwnedInput {
  if (lockup.blindingPrivateKey !== undefined && lockup.prevout.rangeProof !== undefined && lockup.prevout.rangeProof.length > 0) {
    const opened = unblindOutput(zkpLib(), lockup.prevout, lockup.blindingPrivateKey);
    return {
      index: 0,
      value: opened.value.toString(),
      asset: AssetHash.fromHex(opened.asset).bytesWithoutPrefix,
      valueBlindingFactor: Buffer.from(opened.valueBlinder),
      assetBlindingFactor: Buffer.from(opened.assetBlinder),
    };
  }
  const locked = unblindLockup(lockup);
  return { index: 0, value: locked.value.toString(), asset: AssetHash.fromHex(locked.asset).bytesWithoutPrefix, valueBlindingFactor: Buffer.alloc(32), assetBlindingFactor: Buffer.alloc(32) };
}
