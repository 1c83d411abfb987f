// elementsd's VerifyAmounts (src/confidential_validation.cpp): the Pedersen balance of inputs (with the amounts
// new issuances create, issuance.ts) and outputs, every blinded output's range proof and every blinded asset's
// surjection proof. Reissuances and peg-ins are refused before this runs (see verifier.ts).
import type { Transaction } from 'liquidjs-lib';
import type { ElementsPrevout } from './index.ts';
import { parseCommitment, tallyBalances, type CurvePoint } from './commitment.ts';
import type { Zkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { issuancePseudoInputs } from './issuance.ts';
import { verifyRangeProof, verifySurjectionProof } from './proofs.ts';
import { assetIdBytes, explicitAmount, isUnspendable, moneyRange, readAsset, readNonce, readValue, type Field } from './values.ts';

const ZERO_BLINDER = new Uint8Array(32);

type Present = Exclude<Field, { kind: 'null' }>; // an explicit or committed field

/** Undefined when the amounts verify, else which check failed (elementsd reports them all alike). */
export function verifyAmounts(zkp: Zkp, tx: Transaction, prevouts: ElementsPrevout[]): string | undefined {
  const inputs: CurvePoint[] = [];
  const inputTags: Uint8Array[] = []; // surjection proof targets: each input, then its issuance's assets
  for (const [index, prevout] of prevouts.entries()) {
    const generator = 'asset' in prevout ? zkp.generator.generate(assetIdBytes(prevout.asset)) : prevout.assetCommitment;
    let commitment: Uint8Array | undefined;
    if ('value' in prevout) {
      // secp256k1_pedersen_commit fails for a zero amount, so elementsd refuses a zero-value input.
      if (prevout.value <= 0n || !moneyRange(prevout.value)) return `input ${index} has an invalid explicit amount`;
      commitment = zkp.pedersen.commitment(prevout.value.toString(), generator, ZERO_BLINDER);
    } else {
      commitment = prevout.valueCommitment;
    }
    const point = parseCommitment(commitment, 0x08);
    if (point === undefined || parseCommitment(generator, 0x0a) === undefined) return `input ${index} has an invalid commitment`;
    inputs.push(point);
    inputTags.push(generator);
    const issued = issuancePseudoInputs(zkp, tx, index);
    if (typeof issued === 'string') return issued;
    for (const { commitment: created, generator: tag } of issued) {
      inputs.push(created);
      inputTags.push(tag);
    }
  }

  const outputs: CurvePoint[] = [];
  const generators: Uint8Array[] = [];
  const fields: { value: Present; asset: Present }[] = [];
  for (const [index, out] of tx.outs.entries()) {
    const value = readValue(out.value);
    const asset = readAsset(out.asset);
    const nonce = readNonce(out.nonce);
    if (value === undefined || asset === undefined || nonce === undefined || value.kind === 'null' || asset.kind === 'null') {
      return `output ${index} has an invalid value, asset or nonce`;
    }
    fields.push({ value, asset });
    const generator = assetGenerator(zkp, asset);
    if (parseCommitment(generator, 0x0a) === undefined) return `output ${index} has an invalid asset commitment`;
    generators.push(generator);
    let commitment: Uint8Array;
    if (value.kind === 'explicit') {
      const amount = explicitAmount(value);
      if (!moneyRange(amount)) return `output ${index} has an amount out of range`;
      if (amount === 0n) {
        // Only unspendable outputs may carry nothing.
        if (isUnspendable(out.script)) continue;
        return `output ${index} is a spendable zero-value output`;
      }
      commitment = zkp.pedersen.commitment(amount.toString(), generator, ZERO_BLINDER);
    } else {
      commitment = value.bytes;
    }
    const point = parseCommitment(commitment, 0x08);
    if (point === undefined) return `output ${index} has an invalid value commitment`;
    outputs.push(point);
  }

  if (!tallyBalances(inputs, outputs)) return 'the value commitments do not balance';

  for (const [index, out] of tx.outs.entries()) {
    const { value } = fields[index];
    const proof = out.rangeProof ?? Buffer.alloc(0);
    if (value.kind === 'explicit') {
      if (proof.length > 0) return `explicit output ${index} carries a range proof`;
      continue;
    }
    if (!verifyRangeProof(zkp, proof, value.bytes, generators[index], out.script)) {
      return `range proof of output ${index} does not verify`;
    }
  }

  for (const [index, out] of tx.outs.entries()) {
    const { asset } = fields[index];
    const proof = out.surjectionProof ?? Buffer.alloc(0);
    if (asset.kind === 'explicit') {
      if (proof.length > 0) return `explicit-asset output ${index} carries a surjection proof`;
      continue;
    }
    if (proof.length === 0 || !verifySurjectionProof(zkp, proof, inputTags, asset.bytes)) {
      return `surjection proof of output ${index} does not verify`;
    }
  }
  return undefined;
}

function assetGenerator(zkp: Zkp, asset: Present): Uint8Array {
  return asset.kind === 'explicit' ? zkp.generator.generate(asset.bytes.subarray(1)) : asset.bytes;
}
