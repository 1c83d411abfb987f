// The two confidential proofs elementsd checks (confidential_validation.cpp, CachingRangeProofChecker and
// CachingSurjectionProofChecker): a range proof over a value commitment, a surjection proof of an asset tag.
import type { Zkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { isUnspendable } from './values.ts';

/** VerifyRangeProof: the proof commits to the scriptPubKey too (empty for an issuance's amounts). */
export function verifyRangeProof(zkp: Zkp, proof: Uint8Array, valueCommitment: Uint8Array, generator: Uint8Array, script: Uint8Array): boolean {
  if (proof.length === 0) return false;
  try {
    if (!zkp.rangeproof.verify(proof, valueCommitment, generator, script)) return false;
    // A spendable output must not be provably worth zero; an empty script counts as spendable.
    return !(BigInt(zkp.rangeproof.info(proof).minValue) === 0n && !isUnspendable(script));
  } catch {
    return false; // unparsable proof
  }
}

/** The output's asset tag is one of the input tags (inputs and issuance pseudo-inputs, in elementsd's order). */
export function verifySurjectionProof(zkp: Zkp, proof: Uint8Array, inputTags: Uint8Array[], outputTag: Uint8Array): boolean {
  try {
    return zkp.surjectionproof.verify(proof, inputTags, outputTag);
  } catch {
    return false;
  }
}
